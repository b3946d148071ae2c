import Foundation
import TestSupport
import Testing
import Thumbnails

/// A video recorded turned (its frames stored as the sensor saw them, with a display matrix that turns them upright)
/// gives the cover of the same video recorded upright, turned: the ffmpeg CLI's autorotated frame is the oracle.
@Suite("Covers of videos turned by their display matrix against the ffmpeg CLI")
struct RotatedCoverTests {
    let scratch: TemporaryFolder

    init() throws {
        scratch = try TemporaryFolder(prefix: "RotatedCoverTests")
    }

    /// A detailed picture (testsrc2: fine lines, saturated colour edges) stored 64x48 without colour tags, lossless,
    /// and the same stream given a display matrix that turns it by `rotation` degrees.
    func videos(rotation: Int) throws -> (upright: URL, turned: URL) {
        let upright = scratch.url.appending(path: "upright.mp4")
        try CutStreamTests.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=64x48:rate=10:duration=0.3", "-c:v", "libx264", "-qp", "0",
            "-pix_fmt", "yuv420p", upright.path,
        ])
        let turned = scratch.url.appending(path: "turned.mp4")
        try CutStreamTests.ffmpeg([
            "-i", upright.path, "-c", "copy", "-metadata:s:v:0", "rotate=\(rotation)", turned.path,
        ])
        return (upright, turned)
    }

    /// `pixels` (packed RGB, `width` x `height`) turned as a `rotate` tag of `rotation` says: counterclockwise.
    static func turn(_ pixels: [UInt8], width: Int, height: Int, rotation: Int) -> [UInt8] {
        var turned = [UInt8](repeating: 0, count: pixels.count)
        let outputWidth = rotation % 180 == 0 ? width : height
        for y in 0..<height {
            for x in 0..<width {
                let (u, v) =
                    switch rotation {
                    case 90: (y, width - 1 - x)
                    case 180: (width - 1 - x, height - 1 - y)
                    default: (height - 1 - y, x)
                    }
                for channel in 0..<3 {
                    turned[(v * outputWidth + u) * 3 + channel] = pixels[(y * width + x) * 3 + channel]
                }
            }
        }
        return turned
    }

    /// The mean of one channel of packed RGB.
    static func mean(_ pixels: [UInt8], channel: Int) -> Double {
        let values = stride(from: channel, to: pixels.count, by: 3).map { Double(pixels[$0]) }
        return values.reduce(0, +) / Double(max(values.count, 1))
    }

    /// Turned by 90, 180 or 270 degrees, at the video's own size and fitted into 48x48: the cover's colours are the
    /// upright cover's (within 3 levels), and it is as close to the CLI's autorotated frame as the upright cover is to
    /// the CLI's (within 1.5 dB).
    @Test(arguments: [90, 180, 270])
    func turnedCoverMatchesTheUprightCover(rotation: Int) throws {
        let (upright, turned) = try videos(rotation: rotation)
        let quarter = rotation % 180 != 0
        for maximum in [PixelSize.zero, PixelSize(width: 48, height: 48)] {
            var options = CoverOptions()
            options.maximumSize = maximum
            let uprightCover = try CoverGenerator().makeCover(for: upright, options: options)
            let turnedCover = try CoverGenerator().makeCover(for: turned, options: options)
            let size = uprightCover.size
            let turnedSize = quarter ? PixelSize(width: size.height, height: size.width) : size
            try #require(turnedCover.size == turnedSize)
            let scaling = maximum == .zero ? nil : "scale=\(turnedSize.width):\(turnedSize.height):flags=bilinear"
            let uprightCLI = try PictureReference.frame(
                upright.path, filter: maximum == .zero ? nil : "scale=\(size.width):\(size.height):flags=bilinear",
                width: size.width, height: size.height)
            let turnedCLI = try PictureReference.frame(
                turned.path, filter: scaling, width: turnedSize.width, height: turnedSize.height)
            let uprightPSNR = PictureReference.psnr(uprightCover.pixels, uprightCLI.pixels)
            let turnedPSNR = PictureReference.psnr(turnedCover.pixels, turnedCLI.pixels)
            // Above 60 dB two pictures differ by a level on a few samples: equal, for this purpose.
            #expect(
                turnedPSNR >= min(uprightPSNR, 60) - 1.5,
                "\(rotation) degrees within \(maximum): \(turnedPSNR) dB from the CLI, upright \(uprightPSNR) dB")
            // Unscaled, the cover is the upright one turned, sample for sample. Scaled, the CLI's own pictures of the
            // two differ where colours meet (swscale shares chroma between neighbours across, not down), so the
            // colours are compared as the mean of each channel.
            let expected = Self.turn(uprightCover.pixels, width: size.width, height: size.height, rotation: rotation)
            let worst = zip(turnedCover.pixels, expected).map { abs(Int($0) - Int($1)) }.max() ?? 0
            let means = (0..<3).map { channel in
                abs(Self.mean(turnedCover.pixels, channel: channel) - Self.mean(uprightCover.pixels, channel: channel))
            }
            #expect(
                maximum == .zero ? worst <= 3 : means.allSatisfy { $0 <= 3 },
                "\(rotation) degrees within \(maximum): \(worst) levels from the upright cover, turned; means \(means)")
        }
    }

    /// An interlaced take (testsrc2 scrolling sideways, woven two pictures a frame, coded interlaced, top field first)
    /// and the same stream given a display matrix that turns it by `rotation` degrees.
    func interlacedVideos(rotation: Int) throws -> (upright: URL, turned: URL) {
        let upright = scratch.url.appending(path: "interlaced.mp4")
        try CutStreamTests.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=50:duration=0.2", "-vf",
            "scroll=h=0.01,tinterlace=interleave_top,setfield=tff", "-c:v", "libx264", "-preset", "veryfast", "-crf",
            "20", "-x264-params", "tff=1", "-flags", "+ildct+ilme", "-pix_fmt", "yuv420p", "-bf", "0", upright.path,
        ])
        let turned = scratch.url.appending(path: "interlaced-turned.mp4")
        try CutStreamTests.ffmpeg([
            "-i", upright.path, "-c", "copy", "-metadata:s:v:0", "rotate=\(rotation)", turned.path,
        ])
        return (upright, turned)
    }

    /// A turned interlaced take, at its own size and fitted into 160x160, is as close to the CLI's deinterlaced frame
    /// turned upright as the upright take's cover is to the CLI's deinterlaced frame (within 1.5 dB). The CLI
    /// deinterlaces with `yadif` (as the interlacing tests compare); its autorotate inserts its turn before any `-vf`
    /// filter, which would hand `yadif` fields turned on their side, so the oracle deinterlaces first and then turns as
    /// autorotate does (`-noautorotate -vf yadif,transpose=...`).
    @Test(arguments: [90, 180, 270])
    func turnedInterlacedCoverMatchesTheCLI(rotation: Int) throws {
        let (upright, turned) = try interlacedVideos(rotation: rotation)
        let turn =
            switch rotation {
            case 90: "transpose=cclock"
            case 180: "hflip,vflip"
            default: "transpose=clock"
            }
        for maximum in [PixelSize.zero, PixelSize(width: 160, height: 160)] {
            let options = CoverOptions(maximumSize: maximum)
            let uprightCover = try CoverGenerator().makeCover(for: upright, options: options)
            let turnedCover = try CoverGenerator().makeCover(for: turned, options: options)
            let size = uprightCover.size
            let turnedSize = rotation % 180 != 0 ? PixelSize(width: size.height, height: size.width) : size
            try #require(turnedCover.size == turnedSize)
            let scale = { (size: PixelSize) in
                maximum == .zero ? "" : ",scale=\(size.width):\(size.height):flags=bilinear"
            }
            let uprightCLI = try PictureReference.frame(
                upright.path, filter: "yadif" + scale(size), width: size.width, height: size.height)
            let turnedCLI = try PictureReference.frame(
                turned.path, noAutorotate: true, filter: "yadif,\(turn)" + scale(turnedSize), width: turnedSize.width,
                height: turnedSize.height)
            let uprightPSNR = PictureReference.psnr(uprightCover.pixels, uprightCLI.pixels)
            let turnedPSNR = PictureReference.psnr(turnedCover.pixels, turnedCLI.pixels)
            #expect(
                turnedPSNR >= min(uprightPSNR, 60) - 1.5,
                "\(rotation) degrees within \(maximum): \(turnedPSNR) dB from the CLI, upright \(uprightPSNR) dB")
        }
    }
}

import Composition
import Foundation
import Pixels
import TestSupport
import Testing

/// A take both interlaced and turned by its display matrix (a camera's interlaced stream written sideways) composes as
/// the ffmpeg CLI shows it: deinterlaced first, then turned upright, then scaled into the tile. The CLI's autorotate
/// inserts its turn before any `-vf` filter, which would hand `yadif` fields turned on their side, so the oracle
/// deinterlaces and then turns as autorotate does (`-noautorotate -vf yadif,transpose=...`).
@Suite("Composer: turned interlaced takes against the ffmpeg CLI", .serialized)
struct TurnedInterlacedTakeTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder(prefix: "CompositionTurnedInterlaced")
    }

    func file(_ name: String) -> URL { folder.url.appendingPathComponent(name) }

    /// An interlaced take (testsrc2 scrolling sideways, two pictures woven into each frame, coded interlaced, top
    /// field first; 320x240 at 25 frames a second, 0.2 s) and the same stream given a display matrix that turns it by
    /// `rotation` degrees.
    func takes(rotation: Int) throws -> (upright: URL, turned: URL) {
        let upright = file("interlaced.mp4")
        if !FileManager.default.fileExists(atPath: upright.path) {
            try FFmpegTool.run([
                "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=50:duration=0.2", "-vf",
                "scroll=h=0.01,tinterlace=interleave_top,setfield=tff", "-c:v", "libx264", "-preset", "veryfast",
                "-crf", "20", "-x264-params", "tff=1", "-flags", "+ildct+ilme", "-pix_fmt", "yuv420p", "-bf", "0",
                upright.path,
            ])
        }
        let turned = file("interlaced-turned-\(rotation).mp4")
        try FFmpegTool.run(["-i", upright.path, "-c", "copy", "-metadata:s:v:0", "rotate=\(rotation)", turned.path])
        return (upright, turned)
    }

    /// `take` alone in a one-tile plan of `size`, lossless, at 25 frames a second; its frames as 4:2:0 planes.
    func compose(_ take: URL, size: PixelSize, _ name: String) async throws -> [Data] {
        var plan = CompositionPlan(files: [take], grid: GridLayout(columns: 1, rows: 1), size: size)
        plan.video.constantRateFactor = 0
        plan.frameRate = FrameRate(frames: 25)
        let output = file(name)
        _ = try await Composer().compose(plan, to: output)
        return try FFmpegTool.frames(of: output, width: size.width, height: size.height)
    }

    /// The CLI's frames of `take` (its display matrix ignored) through `filter`, as 4:2:0 planes of `size`.
    static func cliFrames(of take: URL, filter: String, size: PixelSize) throws -> [Data] {
        let data = try FFmpegTool.run([
            "-noautorotate", "-i", take.path, "-map", "0:v:0", "-vf", filter, "-f", "rawvideo", "-pix_fmt", "yuv420p",
            "-",
        ])
        let frameSize = size.width * size.height * 3 / 2
        return stride(from: 0, to: data.count - frameSize + 1, by: frameSize).map {
            data.subdata(in: $0..<($0 + frameSize))
        }
    }

    /// Turned by 90, 180 or 270 degrees, at the take's own size (turned) and scaled into a smaller tile: the tile is as
    /// close to the CLI's deinterlaced, turned (and scaled) frames as the upright take's tile is to the CLI's
    /// deinterlaced (and scaled) frames, within 1.5 dB, frame for frame. A tile on its side, mirrored, or made of
    /// fields turned into columns fails by far more.
    @Test(arguments: [90, 180, 270])
    func turnedInterlacedTakeMatchesTheCLI(rotation: Int) async throws {
        let (upright, turned) = try takes(rotation: rotation)
        let quarter = rotation % 180 != 0
        for scale in [1.0, 0.5] {
            let uprightSize = PixelSize(width: Int(320 * scale), height: Int(240 * scale))
            let turnedSize = quarter ? PixelSize(width: uprightSize.height, height: uprightSize.width) : uprightSize
            let scaling = { (size: PixelSize) in
                scale == 1 ? "" : ",scale=\(size.width):\(size.height):flags=bilinear"
            }
            let uprightOut = try await compose(upright, size: uprightSize, "upright-\(rotation)-\(scale).mp4")
            let turnedOut = try await compose(turned, size: turnedSize, "turned-\(rotation)-\(scale).mp4")
            let uprightCLI = try Self.cliFrames(of: upright, filter: "yadif" + scaling(uprightSize), size: uprightSize)
            let turnedCLI = try Self.cliFrames(
                of: turned, filter: "yadif,\(RotatedTakeTests.turn(rotation))" + scaling(turnedSize), size: turnedSize)
            try #require(uprightOut.count == 5 && uprightCLI.count == 5, "\(uprightOut.count), \(uprightCLI.count)")
            try #require(turnedOut.count == 5 && turnedCLI.count == 5, "\(turnedOut.count), \(turnedCLI.count)")
            let uprightPSNR = RotatedTakeTests.psnr(uprightOut, uprightCLI)
            let turnedPSNR = RotatedTakeTests.psnr(turnedOut, turnedCLI)
            // Above 60 dB two pictures differ by a level on a few samples: equal, for this purpose.
            let size = "\(turnedSize.width)x\(turnedSize.height)"
            #expect(
                turnedPSNR >= min(uprightPSNR, 60) - 1.5,
                "\(rotation) degrees at \(size): \(turnedPSNR) dB from the CLI, upright \(uprightPSNR) dB")
        }
    }
}

import Composition
import Foundation
import Pixels
import TestSupport
import Testing

/// A take recorded turned (a phone held sideways writes its frames as the sensor sees them and a display matrix that
/// turns them upright) composes as the same take recorded upright: the ffmpeg CLI is the oracle, which turns the
/// stored planes (`transpose`, `hflip`, `vflip`) before it converts or scales anything.
@Suite("Composer: takes turned by their display matrix against the ffmpeg CLI", .serialized)
struct RotatedTakeTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder(prefix: "CompositionRotated")
    }

    func file(_ name: String) -> URL { folder.url.appendingPathComponent(name) }

    /// The filters the CLI's autorotate turns a stream with whose `rotate` tag is `rotation` (the tag's display
    /// matrix turns the picture counterclockwise).
    static func turn(_ rotation: Int) -> String {
        switch rotation {
        case 90: "transpose=cclock"
        case 180: "hflip,vflip"
        default: "transpose=clock"
        }
    }

    /// A detailed picture (testsrc2: fine lines, saturated colour edges) stored 64x48 without colour tags, lossless,
    /// and the same stream given a display matrix that turns it by `rotation` degrees.
    func takes(rotation: Int) throws -> (upright: URL, turned: URL) {
        let upright = file("upright.mp4")
        if !FileManager.default.fileExists(atPath: upright.path) {
            try FFmpegTool.run([
                "-f", "lavfi", "-i", "testsrc2=size=64x48:rate=10:duration=0.3", "-c:v", "libx264", "-qp", "0",
                "-pix_fmt", "yuv420p", upright.path,
            ])
        }
        let turned = file("turned-\(rotation).mp4")
        try FFmpegTool.run(["-i", upright.path, "-c", "copy", "-metadata:s:v:0", "rotate=\(rotation)", turned.path])
        return (upright, turned)
    }

    /// `take` alone in a one-tile plan of `size`, lossless; its frames as 4:2:0 planes.
    func compose(_ take: URL, size: PixelSize, _ name: String) async throws -> [Data] {
        var plan = CompositionPlan(files: [take], grid: GridLayout(columns: 1, rows: 1), size: size)
        plan.video.constantRateFactor = 0
        plan.frameRate = FrameRate(frames: 10)
        let output = file(name)
        _ = try await Composer().compose(plan, to: output)
        return try FFmpegTool.frames(of: output, width: size.width, height: size.height)
    }

    /// The PSNR of two lists of 4:2:0 frames over every plane (99 when equal).
    static func psnr(_ a: [Data], _ b: [Data]) -> Double {
        let count = a.first?.count ?? 0
        return zip(a, b).map { Luma.psnr($0, $1, count: count) }.min() ?? 0
    }

    /// Turned by 90, 180 or 270 degrees, at the take's own size and scaled into a smaller tile: the tile's colours
    /// are the upright take's turned (within 3 levels), and it is as close to the CLI's autorotated (and scaled)
    /// take as the upright take's tile is to the CLI's (within 1.5 dB). A turned take that went through RGB came
    /// out 36 dB from the CLI where upright ones were over 51 dB.
    @Test(arguments: [90, 180, 270])
    func turnedTakeMatchesTheUprightTake(rotation: Int) async throws {
        let (upright, turned) = try takes(rotation: rotation)
        let quarter = rotation % 180 != 0
        for scale in [1.0, 0.75] {
            let width = Int(64 * scale)
            let height = Int(48 * scale)
            let uprightSize = PixelSize(width: width, height: height)
            let turnedSize = quarter ? PixelSize(width: height, height: width) : uprightSize
            let scaling = "scale=\(turnedSize.width):\(turnedSize.height):flags=bilinear"
            let uprightOut = try await compose(upright, size: uprightSize, "upright-\(rotation)-\(width).mp4")
            let turnedOut = try await compose(turned, size: turnedSize, "turned-\(rotation)-\(width).mp4")
            let uprightCLI = try FFmpegTool.frames(
                of: upright, width: width, height: height, filter: "scale=\(width):\(height):flags=bilinear")
            let turnedCLI = try FFmpegTool.frames(
                of: turned, width: turnedSize.width, height: turnedSize.height, filter: scaling)
            try #require(uprightOut.count == 3 && turnedOut.count == 3 && uprightCLI.count == 3 && turnedCLI.count == 3)
            let uprightPSNR = Self.psnr(uprightOut, uprightCLI)
            let turnedPSNR = Self.psnr(turnedOut, turnedCLI)
            // Above 60 dB two pictures differ by a level on a few samples: equal, for this purpose.
            #expect(
                turnedPSNR >= min(uprightPSNR, 60) - 1.5,
                "\(rotation) degrees at \(width)x\(height): \(turnedPSNR) dB from the CLI, upright \(uprightPSNR) dB")
            guard scale == 1 else { continue }
            // The upright take's tile, turned by the CLI's lossless plane filters.
            let expected = try FFmpegTool.frames(
                of: file("upright-\(rotation)-\(width).mp4"), width: turnedSize.width, height: turnedSize.height,
                filter: Self.turn(rotation))
            for (ours, reference) in zip(turnedOut, expected) {
                let worst = zip(ours, reference).map { abs(Int($0) - Int($1)) }.max() ?? 0
                #expect(worst <= 3, "\(rotation) degrees: a sample is \(worst) levels from the upright take's, turned")
            }
        }
    }
}

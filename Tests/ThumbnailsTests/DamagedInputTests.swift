import Foundation
import SeededRandom
import TestSupport
import Testing
import Thumbnails

@Suite("Damaged inputs never crash the describer")
struct DamagedInputTests {
    /// Cuts and corrupts each codec's fixture at seeded places: every result must be a
    /// description or a `ThumbnailError` with a one-line reason, never a crash or another error.
    @Test(
        "cut and corrupted fixtures describe or fail with a typed error",
        arguments: ["h264.mp4", "hevc.mp4", "vp9.webm", "mpeg4.avi", "offset-timestamps.ts"]
    )
    func damaged(_ name: String) throws {
        let original = try Data(contentsOf: Fixtures.url(name))
        let folder = try TemporaryFolder()
        var generator = SplitMix64(seed: UInt64(original.count))
        var described = 0
        var failed = 0
        for round in 0..<40 {
            let bytes = Fixtures.damaged(
                original, cutting: round % 2 == 0, overwrites: (round % 4) * 8, using: &generator)
            let url = folder.url.appending(path: "\(round)-\(name)")
            try bytes.write(to: url)
            do {
                let media = try MediaDescription(contentsOf: url)
                #expect(media.frameSize.width > 0 && media.frameSize.height > 0)
                described += 1
            } catch {
                #expect(error.reason.split(whereSeparator: \.isNewline).count == 1)
                #expect(error.kind != .fileNotFound && error.kind != .notReadable, "\(error.reason)")
                failed += 1
            }
        }
        #expect(described + failed == 40)
        // Light damage (a few flipped bytes, no cut) still describes: both paths are exercised.
        #expect(described > 0)
    }
}

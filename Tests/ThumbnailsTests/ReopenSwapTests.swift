import Foundation
import TestSupport
import Testing

@testable import MediaCore
@testable import Thumbnails

/// An input opened again (a demuxer that cannot seek back, a failed seek) goes through the same guarded opening as
/// the first time: a file swapped meanwhile for a FIFO is refused with the opener's one-line reason, without blocking
/// on it and without reading it.
@Suite("A cover's input reopened after its file was swapped for a FIFO is refused, never read")
struct ReopenSwapTests {
    @Test("MediaInput.reopen onto a path that became a FIFO after the first opening")
    func reopenOntoFIFO() throws {
        let folder = try TemporaryFolder()
        let take = folder.url.appending(path: "take.mp4")
        try FileManager.default.copyItem(at: Fixtures.url("h264.mp4"), to: take)
        let outcome = try FIFOSwap.run(at: take) {
            try MediaInput(contentsOf: take)
        } reopening: { (input: MediaInput) throws(ThumbnailError) in
            try input.reopen()
        }
        #expect(!outcome.blocked, "the reopen blocked on the FIFO")
        #expect(outcome.baitLeft == FIFOSwap.bait.count, "the reopen read the FIFO")
        let error = try #require(throws: ThumbnailError.self) { try outcome.result.get() }
        #expect(error.kind == .notAMediaFile)
        #expect(error.reason == "\(take.path): is a FIFO, not a regular file", "\(error.reason)")
    }
}

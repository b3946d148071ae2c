import Foundation
import Testing

@testable import CoverBatch
@testable import MediaCore
@testable import Thumbnails

@Suite("The messages between a batch and its worker processes")
struct WorkerWireTests {
    @Test("a job keeps its paths' exact bytes")
    func jobs() throws {
        let job = CoverJob(
            input: try #require(FileSystemPath(bytes: [0x61, 0xFF, 0x0A, 0x2E, 0x6D])),
            output: FileSystemPath("o/ü.png"))
        #expect(WorkerWire.decodeJob(WorkerWire.encode(job)) == job)
    }

    @Test("results of both kinds come back as they were sent")
    func results() throws {
        let written = WrittenCover(width: 320, height: 180, actualTime: 1.04, warnings: ["cut short", "ü"])
        let decoded = try #require(WorkerWire.decodeResult(WorkerWire.encode(.success(written))))
        #expect(try decoded.get() == written)
        let error = ThumbnailError(.noVideoStream, reason: "a.m4a: no video stream; it has audio (aac)")
        let failed = try #require(WorkerWire.decodeResult(WorkerWire.encode(.failure(error))))
        #expect(throws: error) { try failed.get() }
    }

    @Test("truncated or padded messages are refused, never read past their end")
    func malformed() {
        let message = WorkerWire.encode(.success(WrittenCover(width: 1, height: 1, actualTime: 0)))
        for length in 0..<message.count {
            #expect(WorkerWire.decodeResult(Array(message.prefix(length))) == nil)
        }
        #expect(WorkerWire.decodeResult(message + [0]) == nil)
        #expect(WorkerWire.decodeJob([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F]) == nil)
    }

    @Test("a wait status is described by its signal or its exit status")
    func deaths() {
        #expect(WorkerProcess.describe(11) == "crashed while making its cover (signal 11: Segmentation fault)")
        #expect(WorkerProcess.describe(3 << 8).hasSuffix("exited with status 3 without an answer"))
    }
}

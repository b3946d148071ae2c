import Dispatch
import Foundation
import Locking
import TestSupport
import Testing

@testable import MediaCore
@testable import Thumbnails

/// Long enough to be in flight: the exact last frame decodes every packet of the file.
let slowOptions = CoverOptions(maximumSize: PixelSize(width: 64, height: 64), time: .seconds(1.96)).exact()

@Suite("Async, completion handlers, sequences, cancellation")
struct ConcurrencyTests {
    @Test("async cover matches the blocking one")
    func asyncCover() async throws {
        let generator = CoverGenerator()
        let url = Fixtures.url("h264.mp4")
        let asynchronous = try await generator.cover(for: url, options: slowOptions)
        let blocking = try generator.makeCover(for: url, options: slowOptions)
        #expect(asynchronous == blocking)
        let data = try Data(contentsOf: url)
        #expect(try await generator.cover(from: data, name: "h264.mp4", options: slowOptions) == blocking)
    }

    @Test("async errors are ThumbnailError")
    func asyncError() async throws {
        let error = await #expect(throws: ThumbnailError.self) {
            try await CoverGenerator().cover(for: Fixtures.url("audio-only.m4a"))
        }
        #expect(error?.kind == .noVideoStream)
    }

    @Test("cancelling the task in flight throws CancellationError at the next packet")
    func taskCancellation() async throws {
        let gate = CheckGate(pauseAt: 5)
        let generator = CoverGenerator(checkObserver: gate.observe)
        let task = Task { try await generator.cover(for: Fixtures.url("h264.mp4"), options: slowOptions) }
        await gate.waitUntilReached()
        task.cancel()
        gate.release()
        await #expect(throws: CancellationError.self) { try await task.value }
        // The check that was paused saw the cancellation: no further packet was read.
        #expect(gate.checks == 5)
    }

    @Test("a task cancelled before it starts throws CancellationError without decoding")
    func cancelledBeforeStart() async throws {
        let gate = CheckGate(pauseAt: 0)
        let generator = CoverGenerator(checkObserver: gate.observe)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await generator.cover(for: Fixtures.url("h264.mp4"), options: slowOptions)
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(gate.checks <= 1)
    }

    @Test("cancelAll stops covers in flight, and later covers run normally")
    func cancelAll() async throws {
        let gate = CheckGate(pauseAt: 5)
        let generator = CoverGenerator(checkObserver: gate.observe)
        let task = Task { try await generator.cover(for: Fixtures.url("h264.mp4"), options: slowOptions) }
        await gate.waitUntilReached()
        generator.cancelAll()
        gate.release()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(gate.checks == 5)
        let later = try await generator.cover(for: Fixtures.url("h264.mp4"), options: slowOptions)
        #expect(later.width == 64)
    }

    @Test("the completion handler gets the cover at the requested size, exactly once")
    func completionHandler() async throws {
        let box = Box<Result<CoverImage, ThumbnailError>>()
        let calls = LockedValue(0)
        CoverGenerator().generateCover(
            for: Fixtures.url("rotation-minus90.mp4"), size: PixelSize(width: 100, height: 100)
        ) {
            calls.withLock { $0 += 1 }
            box.set($0)
        }
        let result = try #require(await box.wait())
        let image = try result.get()
        #expect(image.size == PixelSize(width: 56, height: 100))
        #expect(calls.withLock { $0 } == 1)

        let failure = Box<Result<CoverImage, ThumbnailError>>()
        CoverGenerator().generateCover(for: Fixtures.url("empty.mp4"), size: .zero) { failure.set($0) }
        let failed = try #require(await failure.wait())
        #expect(throws: ThumbnailError.self) { try failed.get() }
    }

    @Test("cancelling a completion-handler request in flight delivers .cancelled at the next packet")
    func completionCancellation() async throws {
        let gate = CheckGate(pauseAt: 5)
        let generator = CoverGenerator(checkObserver: gate.observe)
        let box = Box<Result<CoverImage, ThumbnailError>>()
        let request = generator.generateCover(
            for: Fixtures.url("h264.mp4"), size: PixelSize(width: 64, height: 64), options: slowOptions
        ) { box.set($0) }
        await gate.waitUntilReached()
        request.cancel()
        request.cancel()
        gate.release()
        let result = try #require(await box.wait())
        #expect(throws: ThumbnailError(.cancelled, reason: "\(Fixtures.url("h264.mp4").path): cancelled")) {
            try result.get()
        }
        #expect(request.isCancelled)
        #expect(gate.checks == 5)
    }

    @Test("several times from one file come in order with their actual times")
    func severalTimes() async throws {
        let times: [CoverTime] = [.seconds(0), .seconds(0.52), .fraction(0.5), .seconds(1.5), .seconds(99)]
        var actual: [Double] = []
        let stream = CoverGenerator().covers(
            for: Fixtures.url("h264.mp4"), at: times,
            options: CoverOptions(maximumSize: PixelSize(width: 32, height: 32)).exact())
        for try await cover in stream {
            #expect(cover.width == 32)
            actual.append(cover.actualTime)
        }
        #expect(actual.count == 5)
        let expected = [0, 0.52, 1.0, 1.48, 1.96]
        for (got, want) in zip(actual, expected) {
            #expect(abs(got - want) < 1e-6, "\(actual)")
        }
        // A failure ends the sequence with the typed error.
        let failing = CoverGenerator().covers(for: Fixtures.url("not-a-video.mp4"), at: [.seconds(0)])
        await #expect(throws: ThumbnailError.self) {
            for try await _ in failing {}
        }
    }

    @Test("many files with a concurrency limit: one result per input, errors typed")
    func manyFiles() async throws {
        let names = ["h264.mp4", "hevc.mp4", "vp9.webm", "mpeg4.avi", "empty.mp4", "audio-only.m4a", "one-frame.mp4"]
        let urls = names.map(Fixtures.url)
        var seen: [Int: FileCover] = [:]
        for await cover in CoverGenerator().covers(
            for: urls, options: CoverOptions(maximumSize: PixelSize(width: 32, height: 32)), maximumConcurrency: 2)
        {
            #expect(seen[cover.index] == nil)
            seen[cover.index] = cover
        }
        #expect(seen.count == names.count)
        for (index, name) in names.enumerated() {
            let result = try #require(seen[index]?.result)
            #expect(seen[index]?.url == urls[index])
            switch name {
            case "empty.mp4", "audio-only.m4a":
                #expect(throws: ThumbnailError.self) { try result.get() }
            default:
                #expect(try result.get().width == 32, "\(name)")
            }
        }
    }
}

@Suite("The cover service a grid uses")
struct CoverServiceTests {
    let size = PixelSize(width: 64, height: 64)

    /// A service; with a gated generator it decodes the exact last frame, so that it reads
    /// every packet and the gate is reached.
    func service(_ generator: CoverGenerator? = nil, concurrency: Int = 2) -> CoverService {
        CoverService(
            generator: generator ?? CoverGenerator(), cache: CoverCache(capacity: 1 << 20),
            options: generator == nil ? CoverOptions(skipsDarkFrames: true) : slowOptions,
            maximumConcurrency: concurrency)
    }

    @Test("a miss decodes on a background queue; the next request is a synchronous hit")
    func hitAfterMiss() async throws {
        let covers = service()
        let url = Fixtures.url("black-first-second.mp4")
        #expect(covers.cachedCover(for: url, maximumSize: size) == nil)
        let box = Box<Result<CoverImage, ThumbnailError>>()
        covers.requestCoverImage(for: url, maximumSize: size) { box.set($0) }
        let first = try #require(await box.wait()).get()
        // The service skips the black opening by default.
        #expect(first.actualTime >= 1)

        let delivered = LockedValue<CoverImage?>(nil)
        covers.requestCoverImage(for: url, maximumSize: size) { result in
            delivered.withLock { $0 = try? result.get() }
        }
        // Delivered before requestCover returned.
        #expect(delivered.withLock { $0 } == first)
        #expect(covers.cachedCover(for: url, maximumSize: size) == first)
        #expect(covers.decodeCount == 1)
        #expect(try await covers.cover(for: url, maximumSize: size) == first)
    }

    @Test("requests for the same file and size share one decode; cancelling one leaves the other")
    func sharedDecode() async throws {
        let gate = CheckGate(pauseAt: 3)
        let covers = service(CoverGenerator(checkObserver: gate.observe))
        let url = Fixtures.url("h264.mp4")
        let first = Box<Result<CoverImage, ThumbnailError>>()
        let second = Box<Result<CoverImage, ThumbnailError>>()
        let third = Box<Result<CoverImage, ThumbnailError>>()
        covers.requestCoverImage(for: url, maximumSize: size) { first.set($0) }
        await gate.waitUntilReached()
        let cancelled = covers.requestCoverImage(for: url, maximumSize: size) { second.set($0) }
        covers.requestCoverImage(for: url, maximumSize: size) { third.set($0) }
        cancelled.cancel()
        // The cancelled request hears at once, while the decode is still paused.
        let secondResult = try #require(second.value)
        #expect(throws: ThumbnailError.self) { try secondResult.get() }
        gate.release()
        let image = try #require(await first.wait()).get()
        #expect(try #require(await third.wait()).get() == image)
        #expect(covers.decodeCount == 1)
    }

    @Test("a request cancelled after its decode finished, but before its completion was called, gets .cancelled")
    func cancelDuringDelivery() async throws {
        // Two requests share one decode (held at its first check until both joined). The completion called first
        // blocks its delivery thread until the other request is cancelled: that one's decode is done, its completion
        // not yet called, and cancel() has returned, so the completion must get .cancelled, not the cover.
        let gate = CheckGate(pauseAt: 1)
        let covers = service(CoverGenerator(checkObserver: gate.observe))
        let url = Fixtures.url("h264.mp4")
        let results = [Box<Result<CoverImage, ThumbnailError>>(), Box<Result<CoverImage, ThumbnailError>>()]
        let calledFirst = LockedValue<Int?>(nil)
        let delivering = DispatchSemaphore(value: 0)
        let cancelled = DispatchSemaphore(value: 0)
        var requests: [CoverRequest] = []
        for index in results.indices {
            requests.append(
                covers.requestCoverImage(for: url, maximumSize: size) { result in
                    let isFirst = calledFirst.withLock { first in
                        if first != nil { return false }
                        first = index
                        return true
                    }
                    results[index].set(result)
                    if isFirst {
                        delivering.signal()
                        cancelled.wait()
                    }
                })
        }
        await gate.waitUntilReached()
        gate.release()
        await waitOnThread(delivering)
        let first = try #require(calledFirst.withLock { $0 })
        let other = 1 - first
        #expect(results[other].value == nil)
        requests[other].cancel()
        cancelled.signal()
        #expect(try #require(await results[first].wait()).get().width == 64)
        guard case .failure(let error) = try #require(await results[other].wait()) else {
            Issue.record("the request cancelled before its completion was called got the cover")
            return
        }
        #expect(error.kind == .cancelled)
        #expect(covers.decodeCount == 1)
    }

    @Test("cancelling every request of a decode stops it; cancelAll answers everyone with .cancelled")
    func cancellation() async throws {
        let gate = CheckGate(pauseAt: 3)
        let covers = service(CoverGenerator(checkObserver: gate.observe), concurrency: 1)
        let url = Fixtures.url("h264.mp4")
        let running = Box<Result<CoverImage, ThumbnailError>>()
        let pending = Box<Result<CoverImage, ThumbnailError>>()
        covers.requestCoverImage(for: url, maximumSize: size) { running.set($0) }
        await gate.waitUntilReached()
        // A different size is another job, pending behind the limit of one.
        covers.requestCoverImage(for: url, maximumSize: PixelSize(width: 32, height: 32)) { pending.set($0) }
        covers.cancelAll()
        for box in [running, pending] {
            let result = try #require(box.value)
            #expect(throws: ThumbnailError.self) { try result.get() }
        }
        gate.release()
        // Later requests run normally.
        let later = try await covers.cover(for: url, maximumSize: size)
        #expect(later.width == 64)
    }

    @Test("pending decodes start newest first (the cells that just scrolled in)")
    func newestFirst() async throws {
        let gate = CheckGate(pauseAt: 3)
        // The order of the starts (each input's first cancellation check): completion handlers
        // run once a decode's slot is free, so under load one may overtake an earlier one.
        let started = LockedValue<[String]>([])
        let generator = CoverGenerator { name in
            started.withLock { if $0.last != name { $0.append(name) } }
            gate.observe()
        }
        let covers = service(generator, concurrency: 1)
        let done = DispatchSemaphore(value: 0)
        let names = ["h264.mp4", "hevc.mp4", "vp9.webm", "mpeg4.avi"]
        covers.requestCoverImage(for: Fixtures.url(names[0]), maximumSize: size) { _ in done.signal() }
        await gate.waitUntilReached()
        for name in names.dropFirst() {
            covers.requestCoverImage(for: Fixtures.url(name), maximumSize: size) { _ in done.signal() }
        }
        gate.release()
        for _ in names { await waitOnThread(done) }
        let expected = ["h264.mp4", "mpeg4.avi", "vp9.webm", "hevc.mp4"]
        #expect(started.withLock { $0 } == expected.map { Fixtures.url($0).path })
        #expect(covers.decodeCount == 4)
    }

    @Test("a missing file is reported through the completion, typed")
    func missing() async throws {
        let box = Box<Result<CoverImage, ThumbnailError>>()
        service().requestCoverImage(for: Fixtures.url("no-such-file.mp4"), maximumSize: size) { box.set($0) }
        let result = try #require(await box.wait())
        let error = try #require(throws: ThumbnailError.self) { try result.get() }
        #expect(error.kind == .fileNotFound)
    }

    @Test("a cancelled async request throws CancellationError")
    func asyncCancellation() async throws {
        let gate = CheckGate(pauseAt: 3)
        let covers = service(CoverGenerator(checkObserver: gate.observe))
        let task = Task { try await covers.cover(for: Fixtures.url("h264.mp4"), maximumSize: size) }
        await gate.waitUntilReached()
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        gate.release()
    }
}

@Suite("FFmpeg's interrupt callback stops blocking reads")
struct InterruptionTests {
    @Test("an interruption that is already requested stops opening the file")
    func duringOpen() throws {
        let error = try #require(throws: ThumbnailError.self) {
            try MediaInput(contentsOf: Fixtures.url("offset-timestamps.ts"), interruption: Interruption { true })
        }
        #expect(error.kind == .cancelled)
    }

    @Test("an interruption requested after opening stops reading packets with .cancelled, not a cover")
    func duringReading() throws {
        let requested = LockedValue(false)
        let input = try MediaInput(
            contentsOf: Fixtures.url("h264.mp4"), probe: .whenIncomplete,
            interruption: Interruption { requested.withLock { $0 } })
        let session = try CoverSession(
            input: input, options: ValidatedCoverOptions(CoverOptions().exact()), checkCancellation: {})
        requested.withLock { $0 = true }
        let error = try #require(throws: ThumbnailError.self) {
            try session.cover(at: ValidatedCoverTime(.seconds(1.5)))
        }
        #expect(error.kind == .cancelled)
    }
}

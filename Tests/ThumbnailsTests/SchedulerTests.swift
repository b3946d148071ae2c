import CoverBatch
import Dispatch
import Foundation
import Locking
import TestSupport
import Testing

@testable import MediaCore
@testable import Thumbnails

/// An item that blocks its scheduler thread until released, and says when it started.
private final class HeldItem: Sendable {
    let started = DispatchSemaphore(value: 0)
    private let resume = DispatchSemaphore(value: 0)

    func work(_: DecodeScheduler.Cancellation) -> DecodeScheduler.FollowUp? {
        started.signal()
        resume.wait()
        return nil
    }

    func release() { resume.signal() }
}

/// Waits for every semaphore in turn.
private func waitAll(_ semaphores: [DispatchSemaphore]) {
    for semaphore in semaphores { semaphore.wait() }
}

@Suite("One scheduler beneath every cover API")
struct SchedulerTests {
    // MARK: The scheduler itself

    @Test("the limit holds across submitted and caller-thread items; the rest wait their turn")
    func limitHolds() async throws {
        let scheduler = DecodeScheduler(limit: 2)
        let held = [HeldItem(), HeldItem()]
        for item in held {
            scheduler.submit(work: item.work, dropped: {})
        }
        waitAll(held.map(\.started))
        let ran = LockedValue(0)
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<3 {
            scheduler.submit(group: DecodeScheduler.Group(limit: 5)) { _ in
                ran.withLock { $0 += 1 }
                done.signal()
                return nil
            } dropped: {
            }
        }
        let blockingDone = DispatchSemaphore(value: 0)
        Thread {
            _ = try? scheduler.run(name: "blocking") { _ throws(ThumbnailError) in ran.withLock { $0 += 1 } }
            blockingDone.signal()
        }.start()
        // Nothing more was admitted while both slots are held.
        #expect(scheduler.admittedCount == 2)
        #expect(ran.withLock { $0 } == 0)
        for item in held { item.release() }
        await waitOnThread(blockingDone)
        for _ in 0..<3 { await waitOnThread(done) }
        #expect(ran.withLock { $0 } == 4)
        #expect(scheduler.admittedCount == 6)
        #expect(scheduler.peakRunning == 2)
    }

    @Test("admission is oldest first, or newest first in a group that says so; groups take turns")
    func admissionOrder() async throws {
        let scheduler = DecodeScheduler(limit: 1)
        let held = HeldItem()
        scheduler.submit(work: held.work, dropped: {})
        held.started.wait()
        let order = LockedValue<[String]>([])
        let done = DispatchSemaphore(value: 0)
        let fifo = DecodeScheduler.Group(limit: 1)
        let lifo = DecodeScheduler.Group(limit: 1, order: .newestFirst)
        func submit(_ name: String, to group: DecodeScheduler.Group) {
            scheduler.submit(group: group) { _ in
                order.withLock { $0.append(name) }
                done.signal()
                return nil
            } dropped: {
            }
        }
        submit("fifo 1", to: fifo)
        submit("lifo 1", to: lifo)
        submit("fifo 2", to: fifo)
        submit("lifo 2", to: lifo)
        submit("fifo 3", to: fifo)
        submit("lifo 3", to: lifo)
        held.release()
        for _ in 0..<6 { await waitOnThread(done) }
        // The groups take turns (the first to arrive first), each in its own order.
        #expect(order.withLock { $0 } == ["fifo 1", "lifo 3", "fifo 2", "lifo 2", "fifo 3", "lifo 1"])
    }

    @Test("a withdrawn waiting item is dropped at once and never starts; cancelAll drops the rest")
    func withdrawnNeverStarts() async throws {
        let scheduler = DecodeScheduler(limit: 1)
        let held = HeldItem()
        scheduler.submit(work: held.work, dropped: {})
        held.started.wait()
        let started = LockedValue<[Int]>([])
        let dropped = LockedValue<[Int]>([])
        let tokens = (0..<3).map { _ in CancellationToken() }
        for (index, token) in tokens.enumerated() {
            scheduler.submit(token: token) { _ in
                started.withLock { $0.append(index) }
                return nil
            } dropped: {
                dropped.withLock { $0.append(index) }
            }
        }
        tokens[1].cancel()
        scheduler.withdraw(tokens[1])
        #expect(dropped.withLock { $0 } == [1])
        scheduler.cancelAll()
        #expect(dropped.withLock { $0 } == [1, 0, 2])
        // A token cancelled before its item is submitted: dropped at once.
        let early = CancellationToken()
        early.cancel()
        scheduler.submit(token: early) { _ in
            started.withLock { $0.append(9) }
            return nil
        } dropped: {
            dropped.withLock { $0.append(9) }
        }
        #expect(dropped.withLock { $0 } == [1, 0, 2, 9])
        held.release()
        // Items submitted after cancelAll run normally.
        #expect(try scheduler.run(name: "later") { _ throws(ThumbnailError) in 7 } == 7)
        #expect(started.withLock { $0 }.isEmpty)
        #expect(scheduler.admittedCount == 2)
    }

    @Test("a completion handler may wait for another cover of the same bounded generator")
    func followUpMayWait() async throws {
        let generator = CoverGenerator(maximumConcurrency: 1)
        let url = Fixtures.url("h264.mp4")
        let size = PixelSize(width: 16, height: 16)
        let nested = Box<Result<CoverImage, ThumbnailError>>()
        generator.generateCover(for: url, size: size) { _ in
            // On the thread that made the first cover: with the slot still held this would wait for ever.
            nested.set(
                Result { () throws(ThumbnailError) in
                    try generator.makeCover(for: url, options: CoverOptions(maximumSize: size))
                })
        }
        #expect(try #require(await nested.wait()).get().width == 16)
    }

    // MARK: Through the public APIs

    @Test(
        "the generator's limit is never exceeded by its async, completion-handler, sequence and batch covers together")
    func limitAcrossAPIs() async throws {
        let generator = CoverGenerator(maximumConcurrency: 2)
        let url = Fixtures.url("h264.mp4")
        let options = CoverOptions(maximumSize: PixelSize(width: 32, height: 32))
        let handled = Box<Result<CoverImage, ThumbnailError>>()
        generator.generateCover(for: url, size: PixelSize(width: 32, height: 32)) { handled.set($0) }
        let output = FileManager.default.temporaryDirectory.appending(path: "scheduler-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: output) }
        let jobs = (0..<4).map { CoverJob(input: url, output: output.appending(path: "\($0).png")) }
        let batchDone = DispatchSemaphore(value: 0)
        let batchResults = LockedValue(0)
        Thread {
            CoverBatch.run(jobs, options: options, format: .png, concurrency: 4, generator: generator) { result in
                if case .success = result.result { batchResults.withLock { $0 += 1 } }
            }
            batchDone.signal()
        }.start()
        async let first = generator.cover(for: url, options: options)
        async let second = generator.cover(for: url, options: options)
        var fromSequence = 0
        for await cover in generator.covers(for: Array(repeating: url, count: 4), options: options) {
            if case .success = cover.result { fromSequence += 1 }
        }
        let blocking = try generator.makeCover(for: url, options: options)
        let covers = try await [first, second]
        #expect(covers.allSatisfy { $0.width == 32 })
        #expect(try #require(await handled.wait()).get().width == 32)
        await waitOnThread(batchDone)
        #expect(fromSequence == 4 && batchResults.withLock { $0 } == 4 && blocking.width == 32)
        #expect(generator.scheduler.admittedCount == 12)
        #expect(generator.scheduler.peakRunning <= 2)
    }

    @Test("a completion-handler request cancelled while waiting for its turn never starts its decode")
    func queuedRequestCancelled() async throws {
        let gate = CheckGate(pauseAt: 3)
        let generator = CoverGenerator(maximumConcurrency: 1, checkObserver: gate.observe)
        let url = Fixtures.url("h264.mp4")
        let first = Box<Result<CoverImage, ThumbnailError>>()
        let second = Box<Result<CoverImage, ThumbnailError>>()
        generator.generateCover(for: url, size: PixelSize(width: 32, height: 32), options: slowOptions) {
            first.set($0)
        }
        await gate.waitUntilReached()
        let queued = generator.generateCover(for: url, size: PixelSize(width: 32, height: 32)) { second.set($0) }
        queued.cancel()
        // Answered at once, while the running decode is still paused.
        let result = try #require(second.value)
        #expect(throws: ThumbnailError(.cancelled, reason: "\(url.path): cancelled")) { try result.get() }
        gate.release()
        #expect(try #require(await first.wait()).get().width == 32)
        #expect(generator.scheduler.admittedCount == 1)
    }

    @Test("an async cover cancelled while waiting for its turn throws CancellationError and never starts")
    func queuedTaskCancelled() async throws {
        let gate = CheckGate(pauseAt: 3)
        let generator = CoverGenerator(maximumConcurrency: 1, checkObserver: gate.observe)
        let url = Fixtures.url("h264.mp4")
        let running = Task { try await generator.cover(for: url, options: slowOptions) }
        await gate.waitUntilReached()
        let queued = Task { try await generator.cover(for: url, options: slowOptions) }
        queued.cancel()
        await #expect(throws: CancellationError.self) { try await queued.value }
        gate.release()
        _ = try await running.value
        #expect(generator.scheduler.admittedCount == 1)
    }

    @Test("a service decode whose requests are all cancelled before it starts never starts")
    func queuedServiceJobCancelled() async throws {
        let gate = CheckGate(pauseAt: 3)
        let covers = CoverService(
            generator: CoverGenerator(checkObserver: gate.observe), cache: CoverCache(capacity: 1 << 20),
            options: slowOptions, maximumConcurrency: 1)
        let running = Box<Result<CoverImage, ThumbnailError>>()
        let queued = Box<Result<CoverImage, ThumbnailError>>()
        covers.requestCoverImage(for: Fixtures.url("h264.mp4"), maximumSize: PixelSize(width: 64, height: 64)) {
            running.set($0)
        }
        await gate.waitUntilReached()
        let request = covers.requestCoverImage(
            for: Fixtures.url("hevc.mp4"), maximumSize: PixelSize(width: 64, height: 64)
        ) { queued.set($0) }
        request.cancel()
        #expect(
            try #require(queued.value).map(\.width)
                == .failure(
                    ThumbnailError(
                        .cancelled, reason: "\(Fixtures.url("hevc.mp4").path): cancelled")))
        gate.release()
        _ = try #require(await running.wait()).get()
        #expect(covers.decodeCount == 1)
    }

    @Test("in-process batch jobs start in their order")
    func batchOrder() throws {
        let names = ["h264.mp4", "hevc.mp4", "vp9.webm", "mpeg4.avi", "one-frame.mp4"]
        let output = FileManager.default.temporaryDirectory.appending(path: "order-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: output) }
        let jobs = names.map { CoverJob(input: Fixtures.url($0), output: output.appending(path: "\($0).png")) }
        // Reports come once a job's slot is free, so they may overtake each other under load:
        // the order to check is that of the starts (each input's first cancellation check).
        let started = LockedValue<[String]>([])
        let generator = CoverGenerator { name in
            started.withLock { if $0.last != name { $0.append(name) } }
        }
        let reported = LockedValue<[Int]>([])
        CoverBatch.run(jobs, options: CoverOptions(), format: .png, concurrency: 1, generator: generator) { result in
            reported.withLock { $0.append(result.index) }
        }
        #expect(started.withLock { $0 } == names.map { Fixtures.url($0).path })
        #expect(reported.withLock { $0 }.sorted() == Array(names.indices))
    }

    // MARK: Options checked once, at every entry

    static let badOptions = CoverOptions(time: .fraction(1.5))
    static let badReason = "fraction 1.5 is outside 0...1"

    @Test("invalid options are refused at each entry with the one-line reason, before anything is queued")
    func invalidAtEveryEntry() async throws {
        let generator = CoverGenerator()
        let url = Fixtures.url("h264.mp4")
        let expected = ThumbnailError(.invalidArgument, reason: Self.badReason)
        #expect(throws: expected) { try generator.makeCover(for: url, options: Self.badOptions) }
        #expect(throws: expected) { try generator.makeCover(forFileAt: FileSystemPath(url), options: Self.badOptions) }
        #expect(throws: expected) { try generator.makeCover(from: Data([1, 2, 3]), options: Self.badOptions) }
        await #expect(throws: expected) { try await generator.cover(for: url, options: Self.badOptions) }
        await #expect(throws: expected) { try await generator.cover(from: Data(), options: Self.badOptions) }
        await #expect(throws: expected) {
            for try await _ in generator.covers(for: url, at: [.seconds(0)], options: Self.badOptions) {}
        }
        var sequence: [FileCover] = []
        for await cover in generator.covers(for: [url, url], options: Self.badOptions) { sequence.append(cover) }
        #expect(sequence.count == 2)
        for cover in sequence { #expect(throws: expected) { try cover.result.get() } }

        let handled = Box<Result<CoverImage, ThumbnailError>>()
        generator.generateCover(for: url, size: .zero, options: Self.badOptions) { handled.set($0) }
        let handledResult = try #require(await handled.wait())
        #expect(throws: expected) { try handledResult.get() }

        let batch = LockedValue<[CoverJobResult]>([])
        let job = CoverJob(input: url, output: URL(filePath: "/nonexistent-folder/never.png"))
        CoverBatch.run([job, job], options: Self.badOptions, format: .png, concurrency: 2) { result in
            batch.withLock { $0.append(result) }
        }
        #expect(batch.withLock { $0 }.count == 2)
        for result in batch.withLock({ $0 }) { #expect(throws: CoverJobError(expected)) { try result.result.get() } }

        // The worker checks its options before anything else (even before its standard input).
        #expect(throws: expected) { try CoverWorker.serve(options: Self.badOptions, format: .png) }
        #expect(generator.scheduler.admittedCount == 0)
    }

    @Test("a size that cannot be right is refused by the service synchronously")
    func invalidServiceSize() throws {
        let covers = CoverService(cache: CoverCache(capacity: 1 << 20))
        let delivered = LockedValue<Result<CoverImage, ThumbnailError>?>(nil)
        covers.requestCoverImage(for: Fixtures.url("h264.mp4"), maximumSize: PixelSize(width: -1, height: 5)) {
            result in delivered.withLock { $0 = result }
        }
        let result = try #require(delivered.withLock { $0 })
        #expect(
            throws: ThumbnailError(
                .invalidArgument, reason: "maximum size \(PixelSize(width: -1, height: 5)) is negative")
        ) {
            try result.get()
        }
    }

    @Test("every time of a filmstrip is checked before the file is opened")
    func invalidTimeInFilmstrip() async throws {
        let stream = CoverGenerator().covers(
            for: Fixtures.url("no-such-file.mp4"), at: [.seconds(0), .seconds(-1)],
            options: CoverOptions(maximumSize: PixelSize(width: 32, height: 32)))
        await #expect(throws: ThumbnailError(.invalidArgument, reason: "time -1.0 s is not a time in the video")) {
            for try await _ in stream {}
        }
    }
}

import Dispatch
import Foundation
import Locking
import TestSupport
import Testing

@testable import CoverBatch
@testable import MediaCore
@testable import Thumbnails

/// Holds every decoding thread at its first cancellation check until `expected` threads are
/// held at once, or a generous deadline passes (a guard against a hang, not a measurement):
/// `reachedTogether` then says whether that many jobs really ran at the same time.
final class ThreadBarrier: Sendable {
    private struct State {
        var arrived: Set<ObjectIdentifier> = []
        var released = false
    }
    private let state = LockedValue(State())
    private let expected: Int
    private let allArrived = DispatchSemaphore(value: 0)

    init(expected: Int) {
        self.expected = expected
    }

    /// The generator's check observer.
    func observe() {
        let thread = ObjectIdentifier(Thread.current)
        let (isFirstVisit, isLast) = state.withLock { state -> (Bool, Bool) in
            guard !state.released, state.arrived.insert(thread).inserted else { return (false, false) }
            if state.arrived.count == expected { state.released = true }
            return (true, state.released)
        }
        guard isFirstVisit else { return }
        if isLast {
            for _ in 1..<expected { allArrived.signal() }
        } else if allArrived.wait(timeout: .now() + 5) == .timedOut {
            state.withLock { $0.released = true }
        }
    }

    /// Whether `expected` threads were held at once.
    var reachedTogether: Bool { state.withLock { $0.arrived.count >= expected } }
}

@Suite("CoverBatch: many covers written in one process")
struct CoverBatchTests {
    @Test("concurrency N runs N inputs at once, even beyond the number of cores")
    func concurrencyIsHonoured() throws {
        let folder = try TemporaryFolder()
        // More workers than cores: a pool sized by the cores would hold at most that many.
        let workers = min(ProcessInfo.processInfo.activeProcessorCount + 2, CoverBatch.maximumConcurrency)
        let barrier = ThreadBarrier(expected: workers)
        let jobs = (0..<workers).map { index in
            CoverJob(input: Fixtures.url("h264.mp4"), output: folder.url.appending(path: "\(index).png"))
        }
        let results = LockedValue<[CoverJobResult]>([])
        CoverBatch.run(
            jobs, options: CoverOptions(maximumSize: PixelSize(width: 16, height: 16)), format: .png,
            concurrency: workers, generator: CoverGenerator(checkObserver: barrier.observe)
        ) { result in
            results.withLock { $0.append(result) }
        }
        #expect(barrier.reachedTogether, "\(workers) jobs should run at the same time")
        let finished = results.withLock { $0 }
        #expect(finished.map(\.index).sorted() == Array(0..<workers))
        #expect(finished.allSatisfy { (try? $0.result.get()) != nil })
    }
}

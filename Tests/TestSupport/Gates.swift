import Dispatch
import Foundation
import Locking

/// Counts calls of ``observe()`` (for instance a cover generator's cancellation checks, one per packet) and, at a
/// chosen call, blocks the calling thread until the test releases it: so "cancelled in flight" is exact, not timed.
package final class CheckGate: Sendable {
    private let count = LockedValue(0)
    private let pauseAt: Int
    private let reached = DispatchSemaphore(value: 0)
    private let resume = DispatchSemaphore(value: 0)

    package init(pauseAt: Int) {
        self.pauseAt = pauseAt
    }

    /// The observer to give the generator.
    package func observe() {
        let now = count.withLock { count in
            count += 1
            return count
        }
        if now == pauseAt {
            reached.signal()
            resume.wait()
        }
    }

    /// Waits (without blocking the cooperative pool) until decoding reached the chosen check.
    package func waitUntilReached() async {
        await waitOnThread(reached)
    }

    /// Lets the paused decode go on.
    package func release() {
        resume.signal()
    }

    package var checks: Int { count.withLock { $0 } }
}

/// Waits for `semaphore` on a thread of its own: neither the cooperative pool nor the dispatch
/// queues the code under test runs on are blocked.
package func waitOnThread(_ semaphore: DispatchSemaphore) async {
    await withCheckedContinuation { continuation in
        Thread {
            semaphore.wait()
            continuation.resume()
        }.start()
    }
}

/// A value set once from a completion handler.
package final class Box<Value: Sendable>: Sendable {
    private let storage = LockedValue<Value?>(nil)
    private let done = DispatchSemaphore(value: 0)

    package init() {}

    package func set(_ value: Value) {
        storage.withLock { $0 = value }
        done.signal()
    }

    package var value: Value? { storage.withLock { $0 } }

    package func wait() async -> Value? {
        await waitOnThread(done)
        return value
    }
}

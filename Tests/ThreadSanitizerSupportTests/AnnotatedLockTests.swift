import Dispatch
import Foundation
import Synchronization
import Testing
import ThreadSanitizerSupport

/// `Mutex.withAnnotatedLock`. Under ThreadSanitizer (Tools/sanitize.sh --thread) the concurrent test is the shape that
/// was reported as a race with plain `withLock` (canvas-thumb's reporter: worker threads updating one `Mutex`'s state
/// with no other synchronization between them): it must run without a report.
@Suite("Annotated Mutex sections")
struct AnnotatedLockTests {
    final class Counter: Sendable {
        let state = Mutex((count: 0, log: [Int]()))
    }

    @Test("Threads updating one Mutex through withAnnotatedLock lose no update")
    func concurrentUpdates() {
        let counter = Counter()
        let workers = 4
        let done = DispatchGroup()
        for worker in 0..<workers {
            done.enter()
            Thread {
                for step in 0..<20_000 {
                    counter.state.withAnnotatedLock { state in
                        state.count += 1
                        if step % 5_000 == 0 { state.log.append(worker) }
                    }
                }
                done.leave()
            }.start()
        }
        done.wait()
        let (count, log) = counter.state.withAnnotatedLock { ($0.count, $0.log) }
        #expect(count == workers * 20_000)
        #expect(log.count == workers * 4)
    }

    struct Refusal: Error, Equatable {}

    @Test("It returns the body's result and rethrows its typed error, leaving the lock free")
    func resultAndErrors() {
        let mutex = Mutex(41)
        #expect(
            mutex.withAnnotatedLock { value -> Int in
                value += 1
                return value
            } == 42)
        #expect(throws: Refusal.self) {
            try mutex.withAnnotatedLock { (_: inout Int) throws(Refusal) -> Void in throw Refusal() }
        }
        #expect(mutex.withLockIfAvailable { $0 } == 42)
    }
}

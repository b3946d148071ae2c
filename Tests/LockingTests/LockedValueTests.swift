import Dispatch
import Foundation
import Locking
import Synchronization
import Testing

/// `LockedValue`, the package's one lock type. Under ThreadSanitizer
/// (Tools/sanitize.sh --thread) the concurrent tests are the shape that was reported as a race with plain
/// `Mutex.withLock` (canvas-thumb's reporter: worker threads updating one `Mutex`'s state with no other synchronization
/// between them): they must run without a report.
@Suite("Locked values")
struct LockedValueTests {
    final class Counter: Sendable {
        let state = LockedValue((count: 0, log: [Int]()))
    }

    @Test("Threads updating one LockedValue lose no update")
    func concurrentUpdates() {
        let counter = Counter()
        let workers = 4
        let done = DispatchGroup()
        for worker in 0..<workers {
            done.enter()
            Thread {
                for step in 0..<20_000 {
                    counter.state.withLock { state in
                        state.count += 1
                        if step % 5_000 == 0 { state.log.append(worker) }
                    }
                }
                done.leave()
            }.start()
        }
        done.wait()
        let (count, log) = counter.state.withLock { ($0.count, $0.log) }
        #expect(count == workers * 20_000)
        #expect(log.count == workers * 4)
    }

    struct Refusal: Error, Equatable {}

    @Test("withLock returns the body's result and rethrows its typed error, leaving the lock free")
    func resultAndErrors() {
        let locked = LockedValue(41)
        #expect(
            locked.withLock { value -> Int in
                value += 1
                return value
            } == 42)
        #expect(throws: Refusal.self) {
            try locked.withLock { (_: inout Int) throws(Refusal) -> Void in throw Refusal() }
        }
        #expect(locked.withLockIfAvailable { $0 } == 42)
    }

    @Test("withLockIfAvailable skips the body while another thread holds the lock")
    func lockIfAvailable() {
        final class Shared: Sendable {
            let value = LockedValue(0)
        }
        let shared = Shared()
        let held = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        Thread {
            shared.value.withLock { value in
                value = 1
                held.signal()
                release.wait()
            }
            done.signal()
        }.start()
        held.wait()
        let whileHeld = shared.value.withLockIfAvailable { $0 }
        release.signal()
        done.wait()
        #expect(whileHeld == nil)
        #expect(shared.value.withLockIfAvailable { $0 } == 1)
    }

    struct Handle: ~Copyable {
        var number: Int
    }

    @Test("A non-copyable value is reachable in place")
    func nonCopyableValue() {
        let locked = LockedValue(Handle(number: 1))
        locked.withLock { $0.number += 1 }
        #expect(locked.withLock { $0.number } == 2)
    }

    /// Not `Sendable`: what `withLockUnchecked` is for.
    final class Node {
        var links: [Node] = []
    }

    @Test("withLockUnchecked and init(unchecked:) reach state the compiler cannot prove disconnected, under the lock")
    func uncheckedState() throws {
        let root = Node()
        let locked = LockedValue(unchecked: [root])
        let added = Node()
        locked.withLockUnchecked { $0.append(added) }
        let last = locked.withLockUnchecked { $0.last }
        #expect(last === added)
        #expect(throws: Refusal.self) {
            try locked.withLockUnchecked { (_: inout [Node]) throws(Refusal) -> Void in throw Refusal() }
        }
        // The lock is free again after the error.
        #expect(locked.withLockIfAvailable { $0.count } == 2)
    }
}

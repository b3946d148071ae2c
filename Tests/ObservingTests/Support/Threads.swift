import Foundation
import Observing
import Synchronization
import TestSupport

/// Runs `body(index)` on `count` new threads and returns when all have finished.
func runOnThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let remaining = Atomic<Int>(count)
        let finished = DispatchSemaphoreBox(continuation: continuation)
        for index in 0..<count {
            let thread = Thread {
                body(index)
                if remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 {
                    finished.resume()
                }
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }
}

/// Resumes a continuation once, from any thread.
private final class DispatchSemaphoreBox: Sendable {
    private let continuation: Protected<CheckedContinuation<Void, Never>?>

    init(continuation: CheckedContinuation<Void, Never>) {
        self.continuation = Protected(continuation)
    }

    func resume() {
        continuation.withLock { $0.take() }?.resume()
    }
}

/// A thread started at once; `finished()` waits for it without blocking a concurrency thread.
final class StartedThread: Sendable {
    private let done = Protected<(finished: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

    init(_ body: @escaping @Sendable () -> Void) {
        let thread = Thread { [self] in
            body()
            markFinished()
        }
        thread.start()
    }

    private func markFinished() {
        done.withLock { state in
            state.finished = true
            return state.waiter.take()
        }?.resume()
    }

    func finished() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = done.withLock { state in
                if state.finished {
                    return true
                }
                state.waiter = continuation
                return false
            }
            if resumeNow {
                continuation.resume()
            }
        }
    }
}

/// Waits for `semaphore` on a plain thread, so the concurrency pool is never blocked.
func wait(for semaphore: DispatchSemaphore) async {
    await StartedThread { semaphore.wait() }.finished()
}

/// A deadline for bounded stress loops (the loops stop; nothing asserts on time).
struct Deadline: Sendable {
    private let end: ContinuousClock.Instant

    init(seconds: Double) {
        end = .now + .milliseconds(Int(seconds * 1000))
    }

    var hasPassed: Bool { ContinuousClock.now >= end }
}

/// Observes `counter.value` with a handler that holds its call open: it signals `entered`, stays inside for
/// 50 ms, then sets `exited`, so that an `invalidate()` can run while the call is in progress.
struct SlowObservation {
    let entered = DispatchSemaphore(value: 0)
    let exited = Flag()

    func start(on counter: Counter) -> ObservationToken {
        counter.observe(\.value) { [entered, exited] _, _ in
            entered.signal()
            Thread.sleep(forTimeInterval: 0.05)
            exited.set()
        }
    }
}

/// O7 under concurrent writes: `max(StressScale.threads / 2, 1)` threads call `write` with ever new values while one
/// more thread keeps observing (`observe`, given the function its handler must call) and invalidating at once. Bounded
/// like the stress test; on a loaded machine the writers may not run while any observation exists within that time,
/// so the loops go on (up to 30 s) until one delivery was seen and the caller's checks check something.
/// Returns the handler calls that started after their `invalidate()` returned, and all the handler calls.
func invalidateRacingWriters(
    write: @escaping @Sendable (Int) -> Void,
    observe: @escaping @Sendable (_ handlerCalled: @escaping @Sendable () -> Void) -> ObservationToken
) async -> (violations: Int, deliveries: Int) {
    let deadline = Deadline(seconds: min(StressScale.seconds, 1))
    let limit = Deadline(seconds: 30)
    let violations = CallCounter()
    let deliveries = CallCounter()
    let keepGoing: @Sendable () -> Bool = { !deadline.hasPassed || (deliveries.count == 0 && !limit.hasPassed) }
    let writers = max(StressScale.threads / 2, 1)
    await runOnThreads(writers + 1) { index in
        if index < writers {
            var value = index * 1_000_000
            while keepGoing() {
                value += 1
                write(value)
            }
            return
        }
        while keepGoing() {
            let ended = Flag()
            let called = DispatchSemaphore(value: 0)
            let token = observe {
                deliveries.increment()
                if ended.isSet {
                    violations.increment()
                }
                called.signal()
            }
            if deliveries.count == 0 {
                // Until a first call came, each observation waits up to 50 ms for one: on a machine loaded enough
                // (the whole suite under ThreadSanitizer on two cores), windows of 0.1 ms can all pass while the
                // writers wait for a core, and the run would then have checked nothing.
                _ = called.wait(timeout: .now() + .milliseconds(50))
            } else {
                Thread.sleep(forTimeInterval: 0.000_1)
            }
            token.invalidate()
            ended.set()
        }
    }
    return (violations.count, deliveries.count)
}

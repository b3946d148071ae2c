import Dispatch
import Locking
import Synchronization

/// Admits handler calls of one observation until it is closed, and makes `close` wait for the calls
/// already admitted on other threads (guarantee O7).
///
/// The state is one atomic word: bit 0 says "closed", the other bits count the calls in progress. A
/// call is admitted by incrementing the count first and checking the bit second, so once `close` has
/// set the bit and seen the count drain, no call can start any more.
///
/// The base class of `GatedHandler` (one object per observation instead of two). Why `@unchecked Sendable` is
/// safe: its stored properties are an atomic and a `LockedValue`, both `let` (a class that can be subclassed
/// cannot be checked `Sendable`).
@usableFromInline
class DeliveryGate: @unchecked Sendable {
    @usableFromInline let state = Atomic<Int>(0)
    private let waiters = LockedValue<[DispatchSemaphore]>([])

    @usableFromInline static var closedBit: Int { 1 }
    @usableFromInline static var oneCall: Int { 2 }

    /// Whether `close()` has been called.
    @inlinable
    final var isClosed: Bool {
        state.load(ordering: .acquiring) & Self.closedBit != 0
    }

    /// Admits a call on the thread of `context` unless the gate is closed; pair with `leave(on:)`.
    @inlinable
    @inline(__always)
    func enter(on context: ThreadContext) -> Bool {
        // Wrapping arithmetic compiles to one `lock xadd` (the trapping form is a compare-and-swap loop);
        // the count cannot overflow, as each admitted call is a frame on some thread's stack.
        let before = state.wrappingAdd(Self.oneCall, ordering: .acquiringAndReleasing).oldValue
        guard before & Self.closedBit == 0 else {
            leave()
            return false
        }
        context.pushRunningGate(ObjectIdentifier(self))
        return true
    }

    /// Ends a call admitted by `enter(on:)`.
    @inlinable
    @inline(__always)
    func leave(on context: ThreadContext) {
        context.popRunningGate()
        leave()
    }

    @inlinable
    func leave() {
        let before = state.wrappingSubtract(Self.oneCall, ordering: .acquiringAndReleasing).oldValue
        if _slowPath(before & Self.closedBit != 0) {
            wakeWaiters()
        }
    }

    /// Wakes the `close()` calls waiting for the calls in progress to drain.
    @usableFromInline
    func wakeWaiters() {
        let toWake = waiters.withLock { list in
            let woken = list
            list.removeAll()
            return woken
        }
        for semaphore in toWake {
            semaphore.signal()
        }
    }

    @usableFromInline
    init() {}

    /// Closes the gate: no call starts after this returns. Waits for calls running on other threads;
    /// calls running on this thread (`close` from inside the handler) are left to finish on their own.
    /// Returns `false` if the gate was already closed.
    @discardableResult
    final func close() -> Bool {
        let before = state.bitwiseOr(Self.closedBit, ordering: .acquiringAndReleasing).oldValue
        // No call in progress (the common case): nothing to wait for, and no waiter to register under the lock.
        if state.load(ordering: .acquiring) / Self.oneCall == 0 {
            return before & Self.closedBit == 0
        }
        let id = ObjectIdentifier(self)
        let own = ThreadContext.current.runningCalls(of: id)
        while true {
            let semaphore: DispatchSemaphore? = waiters.withLock { list in
                let running = state.load(ordering: .acquiring) / Self.oneCall
                if running <= own {
                    return nil
                }
                let semaphore = DispatchSemaphore(value: 0)
                list.append(semaphore)
                return semaphore
            }
            guard let semaphore else { break }
            semaphore.wait()
        }
        return before & Self.closedBit == 0
    }
}

/// A handler behind a `DeliveryGate`, released when the gate closes so that what it captured is freed
/// as soon as the observation is invalidated (not when the last reference to the token goes away).
///
/// Why `@unchecked Sendable` is safe: `body` is written only by `init` and by the first
/// `closeReleasingHandler()`, after `gate.close()` returned. By then every call admitted on another thread has left the gate
/// (their `leave` is a releasing decrement that `close` observes with an acquiring load), and no call
/// can be admitted any more, so no other thread reads `body` again. A call still running on the closing
/// thread itself (a handler that invalidates its own observation) read `body` before, on this thread.
/// The same argument is why `body` skips the run-time exclusivity check.
@usableFromInline
final class GatedHandler<Root, Value>: DeliveryGate, @unchecked Sendable {
    @usableFromInline @exclusivity(unchecked) var body: (@Sendable (Root, ObservedChange<Value>) -> Void)?

    @usableFromInline
    init(_ body: @escaping @Sendable (Root, ObservedChange<Value>) -> Void) {
        self.body = body
    }

    /// The gate: this object itself.
    @inlinable
    var gate: DeliveryGate {
        self
    }

    /// Calls the handler unless the gate is closed.
    @inlinable
    func call(_ root: Root, _ change: ObservedChange<Value>) {
        ThreadContext.withCurrent { context in
            call(root, change, on: context)
        }
    }

    /// Calls the handler unless the gate is closed, on the thread whose context is `context`.
    @inlinable
    func call(_ root: Root, _ change: ObservedChange<Value>, on context: ThreadContext) {
        // `enter` and `leave` of this object itself, not through `gate` (a computed property: a retain and a release).
        guard enter(on: context) else { return }
        body?(root, change)
        leave(on: context)
    }

    /// Closes the gate (waiting for calls running on other threads) and releases the handler.
    /// Returns `false` if it was already closed.
    @discardableResult
    func closeReleasingHandler() -> Bool {
        guard close() else { return false }
        body = nil
        return true
    }
}

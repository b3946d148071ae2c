import Dispatch
import Locking
import Synchronization

/// The order and the end of one observation's handler calls (O7, O11).
///
/// - Turns: every change a storage notifies has a version; an observation takes the versions of its storage one after
///   the other (`waitForTurn` blocks on the thread's semaphore until the previous version's delivery finished), so its
///   calls come in store order whichever thread wrote. The `.initial` call takes the version current at
///   registration, so it comes first.
/// - Calls: a handler runs holding `calls`, a blocking `Mutex` (which donates priority on Apple platforms).
///   `end()` marks the observation ended and then takes `calls` once: it returns only when no call is running, and no
///   call starts after (each call checks the mark once it holds `calls`). An end made inside the observation's own
///   handler does not wait for itself: the gate knows which thread is calling it.
///
/// Kept inside its observation (a noncopyable value, not an object of its own: observe + invalidate makes one object
/// fewer).
@usableFromInline
struct CallGate: ~Copyable, Sendable {
    @usableFromInline let turns: LockedValue<CallTurns>
    /// The handler (a `HandlerBox`), dropped when the observation ends (what it captures is released then). Boxed so
    /// that the lock's value has one type whatever the handler's: unspecialized code destroys an observation, and would
    /// otherwise look up the generic metadata of the lock's value.
    @usableFromInline let calls: LockedValue<(any AnyObject & Sendable)?>
    @usableFromInline let ended = Atomic<Bool>(false)
    /// The id of the thread (its `ThreadContext`) whose handler call is running, 0 when none. Written only under
    /// `calls`, by the calling thread; `end` compares it with its own thread's id, which another thread can never
    /// have written, so relaxed order tells it whether it runs inside the call.
    @usableFromInline let callingThread = Atomic<UInt64>(0)
    /// Set by an `end` once it has woken the waiters and dropped the handler, no call running: a later `end` (a token
    /// released after `invalidate()`) has nothing to wake or wait for.
    @usableFromInline let finished = Atomic<Bool>(false)
    /// The observation's place in the registry's list (-1: not listed), used only under the registry's lock.
    let registryIndex = Atomic<Int>(-1)

    @inlinable
    init<Handler: Sendable>(_ handler: consuming Handler) {
        turns = LockedValue(CallTurns(next: 0))
        calls = LockedValue(HandlerBox(handler))
    }

    @inlinable
    var hasEnded: Bool {
        ended.load(ordering: .acquiring)
    }

    // MARK: Turns

    /// Waits until `turn` is this observation's next one; false when the observation ended (then nothing is
    /// delivered and the turn needs no end).
    @inlinable
    func waitForTurn(_ turn: UInt64, _ context: ThreadContext) -> Bool {
        while true {
            let answer = turns.withLock { turns -> Bool? in
                // The end mark is read under the lock: `end` sets it before it takes the lock to wake the waiters, so
                // a delivery either sees it here or is waiting by then and is woken. (Read before the lock, it could
                // be unset here and the waiters woken before this one is added: nobody would wake it again.)
                if hasEnded { return false }
                if turns.next == turn { return true }
                turns.waiters.append((turn, context.wakeUp))
                return nil
            }
            if let answer { return answer }
            // Woken by `advance` when `turn` is next, or by `end`.
            context.wakeUp.wait()
        }
    }

    /// Makes `turn` the next one and wakes the delivery waiting for it, if any.
    @inlinable
    func advance(to turn: UInt64) {
        let waiter = turns.withLock { turns -> DispatchSemaphore? in
            turns.next = turn
            guard let index = turns.waiters.firstIndex(where: { $0.turn == turn }) else { return nil }
            return turns.waiters.remove(at: index).wakeUp
        }
        waiter?.signal()
    }

    // MARK: Calls

    /// Runs `body` with the handler (a handler call) holding `calls`, unless the observation ended.
    @inlinable
    func call<Handler: Sendable>(_ context: ThreadContext, _ body: (Handler) -> Void) {
        // The frame is opened outside `calls`: when this is the thread's outermost frame (a call handed to a queue or
        // the main queue), the writes the handler queued are delivered once `calls` is released, never under it.
        let dropped = context.frame {
            calls.withLock { handler -> (any AnyObject & Sendable)? in
                guard let box = handler, !hasEnded else { return nil }
                let current = (box as! HandlerBox<Handler>).handler
                callingThread.store(context.id, ordering: .relaxed)
                body(current)
                callingThread.store(0, ordering: .relaxed)
                // Ended from inside its own call: the handler is dropped now that the call is over.
                guard hasEnded else { return nil }
                defer { handler = nil }
                return handler
            }
        }
        withExtendedLifetime(dropped) {}
    }

    /// Main-actor delivery: whether a call made now on the main actor would overtake one waiting on the main queue.
    var hasCallsQueuedOnMain: Bool {
        turns.withLock { $0.queuedOnMain > 0 }
    }

    func queuedOnMain(_ delta: Int) {
        turns.withLock { $0.queuedOnMain += delta }
    }

    // MARK: End

    /// Marks the observation ended, wakes the deliveries waiting for a turn, and waits for a handler call running on
    /// another thread. Returns whether this was the first call.
    @inlinable
    @discardableResult
    func end() -> Bool {
        if finished.load(ordering: .acquiring) { return false }
        let first = !ended.exchange(true, ordering: .acquiringAndReleasing)
        let waiters = turns.withLock { turns in
            let waiters = turns.waiters.map(\.wakeUp)
            turns.waiters = []
            return waiters
        }
        for waiter in waiters { waiter.signal() }
        if let context = ThreadContext.existing, callingThread.load(ordering: .relaxed) == context.id {
            return first
        }
        // Waits for a call running elsewhere; the handler is released after the lock.
        let dropped = calls.withLock { handler in
            defer { handler = nil }
            return handler
        }
        finished.store(true, ordering: .releasing)
        withExtendedLifetime(dropped) {}
        return first
    }
}

/// An observation's turns (see `CallGate`); not generic, so that code handling them needs no generic metadata.
@usableFromInline
struct CallTurns {
    @usableFromInline var next: UInt64
    /// The deliveries waiting for a turn, each with the semaphore of its thread.
    @usableFromInline var waiters: [(turn: UInt64, wakeUp: DispatchSemaphore)] = []
    /// Main-actor delivery: calls handed to the main queue and not yet made.
    var queuedOnMain = 0

    @usableFromInline
    init(next: UInt64) {
        self.next = next
    }
}

/// A gate's handler, boxed (see `CallGate.calls`).
@usableFromInline
final class HandlerBox<Handler: Sendable>: Sendable {
    @usableFromInline let handler: Handler

    @usableFromInline
    init(_ handler: Handler) {
        self.handler = handler
    }
}

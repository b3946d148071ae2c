import Locking

/// The order and the end of one observation's handler calls (O7, O11).
///
/// - Turns: each change a storage notifies has a version, and an observation takes its storage's versions one after the
///   other, holding `delivering`: a delivery made meanwhile on another thread blocks on that lock (see `deliver`). A
///   delivery whose earlier turn is not being delivered (it is queued on another thread, behind a running handler) is
///   parked here, and the thread that delivers the earlier turn delivers it next: no thread waits for another's
///   progress through user code. The `.initial` call takes the version current at registration, so it comes first.
/// - Calls: a handler runs holding `calls`, a `Mutex` (on Apple platforms an `os_unfair_lock`, which donates priority).
///   `end()` marks the gate ended, then takes `calls` once: it returns only when no call is running, and no call starts
///   after. An end made inside the gate's own call (the thread's context knows it is making it) does not wait for
///   itself.
final class CallGate<Handler: Sendable>: Sendable {
    private struct Turns {
        /// The next turn to deliver; none before `open`.
        var next = UInt64.max
        var parked: [UInt64: (ThreadContext) -> Void] = [:]
        var ended = false
        /// Main-actor delivery: calls handed to the main queue and not yet made.
        var queuedOnMain = 0
    }

    private let turns = Guarded(Turns())
    /// Held while this gate's deliveries run.
    private let delivering = LockedValue(())
    /// The handler, dropped when the gate ends (what it captures is released then).
    private let calls: LockedValue<Handler?>

    init(_ handler: Handler) {
        calls = LockedValue(handler)
    }

    var hasEnded: Bool {
        turns.with { $0.ended }
    }

    // MARK: Turns

    /// Makes `turn` the first one, and delivers what was parked for it meanwhile.
    func open(at turn: UInt64, _ context: ThreadContext) {
        delivering.withLock { _ in runParked(from: turn, context) }
    }

    /// Runs `delivery` in turn `turn`, then whatever was parked behind it. A delivery running on another thread is
    /// waited for on `delivering`, the lock it holds (which donates priority); a delivery whose earlier turn is not
    /// being delivered (it is queued behind a handler on another thread) is parked for that thread, which runs it after
    /// its own. Nothing runs once the gate ended.
    func deliver(turn: UInt64, _ context: ThreadContext, _ delivery: @escaping (ThreadContext) -> Void) {
        delivering.withLock { _ in
            let now = turns.with { turns -> Bool in
                guard !turns.ended else { return false }
                if turns.next == turn { return true }
                turns.parked[turn] = delivery
                return false
            }
            guard now else { return }
            delivery(context)
            runParked(from: turn &+ 1, context)
        }
    }

    /// Makes `turn` the next one and runs its parked delivery, then the next one's, while there are.
    private func runParked(from turn: UInt64, _ context: ThreadContext) {
        var turn = turn
        while let parked = turns.with({ turns in
            turns.next = turn
            return turns.ended ? nil : turns.parked.removeValue(forKey: turn)
        }) {
            parked(context)
            turn &+= 1
        }
    }

    // MARK: Calls

    /// Runs `body` with the handler (a handler call) holding `calls`, unless the gate ended.
    func call(_ context: ThreadContext, _ body: (Handler) -> Void) {
        // The frame is opened outside `calls`: when it is the thread's outermost one (a call handed to a queue), the
        // writes the handler made are delivered once `calls` is released, never under it.
        let dropped = context.frame {
            calls.withLock { handler -> Handler? in
                guard let current = handler, !hasEnded else { return nil }
                context.calling(self) { body(current) }
                // Ended from inside its own call: the handler is dropped now that the call is over.
                guard hasEnded else { return nil }
                defer { handler = nil }
                return handler
            }
        }
        withExtendedLifetime(dropped) {}
    }

    /// Main-actor delivery: adds `delta` to the calls handed to the main queue and not yet made; returns how many were.
    @discardableResult func queuedOnMain(_ delta: Int) -> Int {
        turns.with { turns in
            defer { turns.queuedOnMain += delta }
            return turns.queuedOnMain
        }
    }

    // MARK: End

    /// Marks the gate ended, drops the parked deliveries, and waits for a handler call running on another thread.
    /// Returns whether this was the first call.
    @discardableResult
    func end() -> Bool {
        let (first, parked) = turns.with { turns in
            defer { (turns.ended, turns.parked) = (true, [:]) }
            return (!turns.ended, turns.parked)
        }
        withExtendedLifetime(parked) {}
        if ThreadContext.existing?.isCalling(self) == true { return first }
        let dropped = calls.withLock { handler in
            defer { handler = nil }
            return handler
        }
        withExtendedLifetime(dropped) {}
        return first
    }
}

/// A lock around state that holds values of the library's generic types (a property's `Value`, a chain's last value,
/// deliveries parked with their changes, a weak reference to an object), which the compiler cannot prove `Sendable`.
///
/// Why the unchecked section is safe, for every caller: the state is only reached inside `with`, holding the lock, so
/// no two threads touch it at once; what leaves a section is a copy of a value or a new strong reference (atomic
/// retain). Such a value crosses to another thread only (a) to the thread that writes the object's property, or (b) for
/// a chain, to the thread that writes one of its links, which re-evaluates the key path from the root. For an object
/// that is not `Sendable` the compiler keeps it, and every object reachable from it (each link of its chains, held in
/// its properties), in one isolation domain, so (a) and (b) are that domain's threads. A `Sendable` object's
/// `@Observed` values are `Sendable` (`Observed` is `Sendable` only where its value is). The exception is a chain from
/// an object that is not `Sendable` through a link that is: writing that link elsewhere evaluates the key path, and
/// reads the root, on the writer's thread (under the storage locks; the root's own unlocked state is the getter's).
@usableFromInline struct Guarded<State>: ~Copyable, Sendable {
    @usableFromInline let lock = LockedValue<State?>(nil)

    @usableFromInline init(_ state: consuming State) {
        let state = Optional(state)
        section { $0 = state }
    }

    /// Runs `body` with the state, holding the lock.
    @inlinable func with<Result>(_ body: (inout State) -> Result) -> Result {
        section { body(&$0!) }
    }

    @inlinable func section<Result>(_ body: (inout State?) -> Result) -> Result {
        lock.withLockUnchecked(body)
    }
}

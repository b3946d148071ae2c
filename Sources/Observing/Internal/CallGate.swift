import Dispatch
import Locking
import Synchronization

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
///   itself; a later end from another thread still waits for that call.
/// - The gate holds the handler (its observation's `Caller`) in `calls` and lets it go when it ends, so that whoever
///   holds the observation a moment longer (a write, a listing on another thread) holds no handler. A token keeps the
///   gate after letting its observation go, so that a later `invalidate()` still waits.
final class CallGate: Sendable {
    private let turns = Guarded(Turns())
    /// Set once by `end()`; an atomic flag, so that the check every call and delivery makes costs no lock.
    private let ended = Atomic<Bool>(false)
    /// Held while this gate's deliveries run. Locks around a `Bool` nobody reads, not `()`: a value of size zero lies at
    /// the address of the next lock's atomic word, and ThreadSanitizer reports the two as a race.
    private let delivering = LockedValue(false)
    /// Held while the handler runs; holds the handler until the gate ends.
    private let calls: LockedValue<(any AnyObject & Sendable)?>

    /// Takes the optional it keeps: the optimizer specializes a non-optional one per handler type (a run-time lookup).
    init(holding handler: (any AnyObject & Sendable)?) { calls = LockedValue(handler) }

    var hasEnded: Bool { ended.load(ordering: .acquiring) }

    /// Makes `turn` the first one, and delivers what was parked for it meanwhile.
    func open(at turn: UInt64, _ context: ThreadContext) { delivering.withLock { _ in runParked(from: turn, context) } }

    /// Runs `delivery` in turn `turn`, then whatever was parked behind it. A delivery running on another thread is
    /// waited for on `delivering`, the lock it holds (which donates priority); a delivery whose earlier turn is not
    /// being delivered (it is queued behind a handler on another thread) is parked for that thread, which runs it after
    /// its own. Nothing runs once the gate ended.
    func deliver(turn: UInt64, _ context: ThreadContext, _ delivery: @escaping (ThreadContext) -> Void) {
        delivering.withLock { _ in
            let now = turns.with { turns -> Bool in
                // Checked under `turns`: `end()` sets the flag before it empties `parked` under the same lock.
                guard !hasEnded else { return false }
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
            return hasEnded ? nil : turns.parked.removeValue(forKey: turn)
        }) {
            parked(context)
            turn &+= 1
        }
    }

    /// Runs `body` (a handler call) holding `calls`, unless the gate ended.
    func call(_ context: ThreadContext, _ body: () -> Void) {
        // The frame is opened outside `calls`: when it is the thread's outermost one (a call handed to a queue), the
        // writes the handler made are delivered once `calls` is released, never under it.
        context.frame {
            _ = calls.withLock { handler in
                if !hasEnded { context.calling(self, body) }
                // Ended meanwhile (this call's end could not wait for itself): the handler goes now, after the lock.
                return hasEnded ? handler.take() : nil
            }
        }
    }

    /// Main-actor delivery: adds `delta` to the calls handed to the main queue and not yet made; returns how many were.
    @discardableResult func queuedOnMain(_ delta: Int) -> Int {
        turns.with { turns in
            defer { turns.queuedOnMain += delta }
            return turns.queuedOnMain
        }
    }

    /// Marks the gate ended, drops the parked deliveries, and waits for a handler call running on another thread (every
    /// call does, the first or not). Returns whether this was the first call.
    @discardableResult
    func end() -> Bool {
        let first = !ended.exchange(true, ordering: .acquiringAndReleasing)
        var parked: [UInt64: (ThreadContext) -> Void] = [:]
        turns.with { swap(&$0.parked, &parked) }  // What it captures goes here, outside the lock.
        if ThreadContext.existing?.isCalling(self) == true { return first }
        _ = calls.withLock { $0.take() }  // Let go after the lock.
        return first
    }
}

/// A call gate's turns: the next one to deliver (none before `open`), and the deliveries parked for later ones.
private struct Turns {
    var next = UInt64.max
    var parked: [UInt64: (ThreadContext) -> Void] = [:]
    /// Main-actor delivery: calls handed to the main queue and not yet made.
    var queuedOnMain = 0
}

/// A handler and where it is called (O9). `dispatch` (queue and main-actor delivery) hands a call to another thread and
/// returns true, or returns false when the call is to be made at once, here. Its observation's gate holds it, and lets
/// it go when the observation ends.
final class Caller<Root: AnyObject, Value>: Sendable {
    typealias Handler = @Sendable (Root, ObservedChange<Value>) -> Void
    typealias Dispatch = @Sendable (Root, ObservedChange<Value>, CallGate) -> Bool
    let handler: Handler
    let dispatch: Dispatch?

    /// Called on the mutating thread, or as `dispatch` says.
    init(_ handler: @escaping Handler, dispatch: Dispatch? = nil) {
        self.handler = handler
        self.dispatch = dispatch
    }
}

extension Caller {
    /// Inside a call of `gate`: calls the handler, or hands the call to its queue or the main actor.
    func callOrHand(_ root: Root, _ change: ObservedChange<Value>, _ gate: CallGate) {
        if dispatch?(root, change, gate) != true { handler(root, change) }
    }
}

extension Caller where Root: Sendable, Value: Sendable {
    /// Called where `delivery` says. The dispatches of one observation happen in its turn order, so the calls reach the
    /// queue in store order (O11).
    convenience init(_ delivery: ObservationDelivery, _ handler: @escaping Handler) {
        self.init(handler, dispatch: Self.dispatch(delivery, handler))
    }

    /// How `delivery` hands a call of `handler` to another thread (made through the gate); nil for the mutating thread.
    private static func dispatch(_ delivery: ObservationDelivery, _ handler: @escaping Handler) -> Dispatch? {
        switch delivery {
        case .mutatingThread:
            return nil
        case .queue(let queue):
            return { root, change, gate in
                queue.async { gate.call(ThreadContext.current) { handler(root, change) } }
                return true
            }
        case .mainActor:
            // At once when already on the main actor and no earlier call of this observation waits on the main
            // queue (it would be overtaken); otherwise on the main queue.
            return { root, change, gate in
                if isOnMainActor && gate.queuedOnMain(0) == 0 { return false }
                gate.queuedOnMain(1)
                DispatchQueue.main.async {
                    gate.call(ThreadContext.current) { handler(root, change) }
                    gate.queuedOnMain(-1)
                }
                return true
            }
        }
    }
}

/// A lock around state the compiler cannot prove `Sendable`: a property's value, a chain's last value, deliveries
/// parked with their changes, a weak reference to an object.
///
/// Why the unchecked section is safe: the state is reached only inside `with`, holding the lock, and what leaves a
/// section is a copy or a new strong reference. Of a type that is not `Sendable`, such a value leaves it only on a
/// thread of the observed object's isolation domain: the object's own property is read and written by threads that
/// hold the object (for an object that is not `Sendable`, its domain; a `Sendable` object's `@Observed` values are
/// `Sendable`), a delivery and its handler run on the writing thread or a queue (which needs `Sendable` values), and a
/// chain is evaluated on threads that write one of its links: any thread may read a `Sendable` root, and a root not
/// known to be `Sendable` follows no object known to be (`ChainObservation.retarget`), so its links are objects reached
/// only through it, in its domain. "Known": through an API that requires `Sendable`; an object that claims `@unchecked
/// Sendable` yet keeps `@Observed` wrappers (not `let`s) is not known to be, which is its own unchecked promise.
@usableFromInline struct Guarded<State>: ~Copyable, Sendable {
    @usableFromInline let lock: LockedValue<State>

    @usableFromInline init(_ state: consuming State) { lock = LockedValue(unchecked: state) }

    /// Runs `body` with the state, holding the lock.
    @inlinable func with<Result>(_ body: (inout State) -> Result) -> Result {
        lock.withLockUnchecked(body)
    }
}

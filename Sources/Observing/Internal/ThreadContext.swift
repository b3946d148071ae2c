import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Per-thread state of the observation machinery: the re-entrancy queue (O8), the stack of handler
/// calls in progress on this thread (O7) and the key-path access tracker (O4).
///
/// Deliberately not `Sendable`: each instance is reached only through the thread-local slot of the
/// thread that created it, so it is only ever touched by that thread.
@usableFromInline
final class ThreadContext {
    /// A notification waiting for the handler that caused it to return.
    struct Pending {
        var round: Int
        var work: (ThreadContext) -> Void
    }

    /// Whether a delivery is running on this thread (a change made now is queued, not delivered).
    /// (Only this thread touches a context, so run-time exclusivity checks are skipped.)
    @usableFromInline
    @exclusivity(unchecked) var isDelivering = false
    /// Whether `enqueue` was called since `beginDelivery()` (then `endDelivery()` has work to do).
    @usableFromInline
    @exclusivity(unchecked) var hasQueued = false
    /// The round of the notification being delivered: 0 for a change made outside any handler,
    /// n + 1 for a change made inside a handler of round n.
    @exclusivity(unchecked) private var currentRound = 0
    @exclusivity(unchecked) private var pending: [Pending] = []
    @exclusivity(unchecked) private var pendingHead = 0
    private var stoppedCycle: (source: CycleSource, rounds: Int)?

    /// Gates of the handler calls running on this thread, innermost last.
    @usableFromInline @exclusivity(unchecked) var runningGates: [ObjectIdentifier] = []

    /// Reads recorded by `track(_:)`, innermost tracking scope last.
    private var trackingStack: [[TrackedRead]] = []

    /// The context of the calling thread, created on first use and freed when the thread exits.
    @usableFromInline
    static var current: ThreadContext {
        if let pointer = pthread_getspecific(threadContextKey) {
            return Unmanaged<ThreadContext>.fromOpaque(pointer).takeUnretainedValue()
        }
        let context = ThreadContext()
        pthread_setspecific(threadContextKey, Unmanaged.passRetained(context).toOpaque())
        return context
    }

    /// Calls `body` with the context of the calling thread, without retaining it (the thread-local
    /// slot keeps it alive for as long as the thread runs).
    @usableFromInline
    static func withCurrent<Result>(_ body: (ThreadContext) -> Result) -> Result {
        if let pointer = pthread_getspecific(threadContextKey) {
            return Unmanaged<ThreadContext>.fromOpaque(pointer)._withUnsafeGuaranteedRef(body)
        }
        return body(current)
    }

    // MARK: Delivery (O8)

    /// Starts a delivery on this thread; call only when `isDelivering` is false, and pair with
    /// `endDelivery()`, which delivers everything the handlers queued meanwhile.
    @inlinable
    func beginDelivery() {
        isDelivering = true
    }

    /// Ends the delivery started by `beginDelivery()`: drains the queued notifications, round by round.
    @inlinable
    func endDelivery() {
        if _slowPath(hasQueued) {
            finishQueued()
        }
        isDelivering = false
    }

    /// Delivers what was queued, then reports a cycle that was stopped.
    @usableFromInline
    func finishQueued() {
        drain()
        hasQueued = false
        currentRound = 0
        if let stopped = stoppedCycle {
            stoppedCycle = nil
            ObservationDiagnostics.report(.unsettledCycle(source: stopped.source, rounds: stopped.rounds))
        }
    }

    /// Runs `work` now, as part of a delivery, even if one is already running (used for `.initial`
    /// callbacks, which must run before `observe` returns). Changes made by `work` are queued.
    func deliverNow(_ work: () -> Void) {
        if isDelivering {
            work()
            return
        }
        beginDelivery()
        work()
        endDelivery()
    }

    /// Queues `work` after what is already queued, one round deeper than the notification being
    /// delivered; beyond `ObservationDiagnostics.maximumRounds` it is dropped and the cycle reported.
    /// `object` and `storage` name the changed property in that report.
    @usableFromInline
    func enqueue(object: AnyObject, storage: any PropertyNaming, _ work: @escaping (ThreadContext) -> Void) {
        hasQueued = true
        let round = currentRound + 1
        let limit = ObservationDiagnostics.maximumRounds
        if round > limit {
            if stoppedCycle == nil {
                stoppedCycle = (CycleSource(object: object, propertyName: storage.propertyName(in: object)), limit)
            }
            return
        }
        pending.append(Pending(round: round, work: work))
    }

    private func drain() {
        while pendingHead < pending.count {
            let next = pending[pendingHead]
            pendingHead += 1
            currentRound = next.round
            next.work(self)
        }
        pending.removeAll(keepingCapacity: pending.capacity <= 64)
        pendingHead = 0
    }

    // MARK: Key-path tracking (O4)

    /// Evaluates `body` and returns the `@Observed` reads it made on this thread, in order.
    func track<Result>(_ body: () -> Result) -> (Result, [TrackedRead]) {
        trackingStack.append([])
        activeTrackers.add(1, ordering: .relaxed)
        let result = body()
        activeTrackers.subtract(1, ordering: .relaxed)
        return (result, trackingStack.removeLast())
    }

    /// Records a read made by an `@Observed` getter if a tracking scope is open on this thread.
    func recordRead(_ read: TrackedRead) {
        guard !trackingStack.isEmpty else { return }
        trackingStack[trackingStack.count - 1].append(read)
    }
}

/// How many tracking scopes are open on all threads: getters look at the thread-local context only
/// when this is not zero, so reads outside `observe` cost one relaxed load.
let activeTrackers = Atomic<Int>(0)

/// The thread-local slot holding each thread's `ThreadContext` (retained; released when the thread exits).
let threadContextKey: pthread_key_t = {
    var key = pthread_key_t()
    #if canImport(Darwin)
        let destructor: @convention(c) (UnsafeMutableRawPointer) -> Void = { pointer in
            Unmanaged<ThreadContext>.fromOpaque(pointer).release()
        }
    #else
        let destructor: @convention(c) (UnsafeMutableRawPointer?) -> Void = { pointer in
            guard let pointer else { return }
            Unmanaged<ThreadContext>.fromOpaque(pointer).release()
        }
    #endif
    let status = pthread_key_create(&key, destructor)
    precondition(status == 0, "Observing: pthread_key_create failed (\(status)); no thread-local slot left")
    return key
}()

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What one thread is doing with observations: its frames (handler calls, transactions, key path evaluations: a write
/// made inside one is queued, O8), the notifications queued behind them, the call gates whose handler it is calling,
/// and the reads recorded while a key path is evaluated. Only its own thread reaches it (through a pthread key).
@usableFromInline final class ThreadContext {
    /// A notification queued behind the running handler: delivered, or skipped (`true`) when the cycle is stopped.
    private struct Pending {
        let round: Int
        /// The object and storage written, named in a report if the cycle is stopped here.
        let object: AnyObject
        let storage: AnyObject
        let deliver: (_ skip: Bool) -> Void
    }

    /// How many handler calls, transactions or key path evaluations run on this thread now.
    private(set) var depth = 0
    /// Whether this thread is delivering the queued notifications (the frames it opens meanwhile leave them to it).
    private var isDraining = false
    /// The round of the notification being delivered (0: a write made outside any handler).
    private var round = 0
    /// Notifications of writes made inside handlers, delivered in order once the outermost frame ends.
    private var pending: [Pending] = []
    /// The reads recorded by the key path evaluations running on this thread, innermost last.
    private var recordings: [[TrackedRead]] = []
    /// The call gates whose handler this thread is calling, innermost last.
    private var calling: [ObjectIdentifier] = []

    /// The calling thread's context, made on first use and released when the thread exits.
    static var current: ThreadContext {
        if let context = existing { return context }
        let context = ThreadContext()
        // Why `Unmanaged` is safe: the key's slot holds this one retained reference, released exactly once, by the
        // key's destructor when this thread exits; only this thread reads the slot.
        pthread_setspecific(contextKey, Unmanaged.passRetained(context).toOpaque())
        return context
    }

    /// The calling thread's context if it has one.
    static var existing: ThreadContext? {
        // Why `Unmanaged` is safe: the slot holds the retained context `current` stored, alive until this thread
        // exits; the reference taken here is a new strong one.
        pthread_getspecific(contextKey).map { Unmanaged<ThreadContext>.fromOpaque($0).takeUnretainedValue() }
    }

    // MARK: Frames and re-entrancy (O8)

    /// Runs `body` as a frame in which writes are queued; the outermost frame then delivers what was queued.
    func frame<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        depth += 1
        defer {
            depth -= 1
            if depth == 0 && !isDraining && !pending.isEmpty { drain() }
        }
        return try body()
    }

    /// Queues `deliver` behind the running handler, one round later (a write made inside a handler).
    func enqueue(object: AnyObject, storage: AnyObject, _ deliver: @escaping (_ skip: Bool) -> Void) {
        pending.append(Pending(round: round + 1, object: object, storage: storage, deliver: deliver))
    }

    /// Delivers the queued notifications in order, each in its round; past the cycle limit they are skipped and the
    /// first skipped one is reported once the drain is over (an issue handler's writes are then ordinary writes).
    private func drain() {
        // The drain counts as a frame: user code it runs outside a handler (a deinit of a value it releases) queues
        // its writes behind the ones being delivered instead of delivering them at once, ahead of earlier turns.
        isDraining = true
        depth += 1
        let limit = ObservationDiagnostics.maximumRounds
        var unsettled: ObservationIssue?
        while !pending.isEmpty {
            // Taken out before they are delivered: a write made meanwhile appends to a `pending` nobody iterates.
            let batch = pending
            pending = []
            for item in batch {
                if item.round > limit {
                    if unsettled == nil {
                        let source = CycleSource(object: item.object, storage: item.storage)
                        unsettled = .unsettledCycle(source: source, rounds: limit)
                    }
                    item.deliver(true)
                } else {
                    round = item.round
                    item.deliver(false)
                    round = 0
                }
            }
        }
        depth -= 1
        isDraining = false
        if let unsettled { ObservationDiagnostics.report(unsettled) }
    }

    /// Runs `body` as a call of `gate`'s handler.
    func calling<Result>(_ gate: AnyObject, _ body: () -> Result) -> Result {
        calling.append(ObjectIdentifier(gate))
        defer { calling.removeLast() }
        return body()
    }

    /// Whether this thread is inside a call of `gate`'s handler.
    func isCalling(_ gate: AnyObject) -> Bool { calling.contains(ObjectIdentifier(gate)) }

    // MARK: Recording reads

    /// Evaluates `body`, recording the `@Observed` reads it makes on this thread into `reads` (in a frame: what it
    /// queues is delivered once the reads are taken).
    func record<Value>(_ reads: inout [TrackedRead], _ body: () -> Value) -> Value {
        frame {
            var recording: [TrackedRead] = []
            recording.reserveCapacity(4)  // the few reads a key path makes, in one allocation
            recordings.append(consume recording)
            let value = body()
            reads = recordings.removeLast()
            return value
        }
    }

    /// The calling thread's context while it evaluates a key path (its `@Observed` reads are recorded); nil otherwise.
    @usableFromInline static var evaluating: ThreadContext? {
        guard let context = existing, !context.recordings.isEmpty else { return nil }
        return context
    }

    /// Records in the innermost evaluation a read of `storage`, the property `keyPath` of `object`, after its
    /// `writes`-th write; `shared`: `object` is `Sendable`.
    @usableFromInline func add(
        _ storage: any LinkableStorage, _ object: AnyObject, _ keyPath: AnyKeyPath, writes: UInt64, shared: Bool
    ) {
        recordings[recordings.count - 1].append(
            TrackedRead(storage: storage, object: object, keyPath: keyPath, writes: writes, shared: shared))
    }
}

/// One `@Observed` read made while a key path was evaluated: the storage, the object and property it belongs to, how
/// many writes the storage had seen, and whether the object is `Sendable` (read through a subscript that requires it).
struct TrackedRead {
    let storage: any LinkableStorage
    let object: AnyObject
    let keyPath: AnyKeyPath
    let writes: UInt64
    let shared: Bool
}

/// The key whose slot holds each thread's `ThreadContext`.
private let contextKey: pthread_key_t = {
    var key = pthread_key_t()
    // The key's destructor: releases the exiting thread's context. Why `Unmanaged` is safe: called once per thread, at
    // its exit, with the reference `current` retained.
    let status = pthread_key_create(&key) { slot in slot.map { Unmanaged<ThreadContext>.fromOpaque($0).release() } }
    precondition(status == 0, "Observing: pthread_key_create failed (\(status))")
    return key
}()

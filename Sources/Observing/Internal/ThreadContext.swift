import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What one thread is doing with observations: how many handler calls run on it (so that a write made inside one is
/// queued, O8), the notifications queued behind them, and the reads recorded while `observe` evaluates a key path.
///
/// Only its own thread touches it, so it is a plain class and is not `Sendable`: it is reached through a pthread key
/// (`current`), never handed to another thread.
@usableFromInline
final class ThreadContext {
    /// A notification queued behind the running handler: delivered, or skipped (`true`) when the cycle is stopped.
    struct Pending {
        let round: Int
        /// The object and storage written, named in a report if the cycle is stopped here.
        let object: AnyObject
        let storage: AnyObject
        let deliver: (_ skip: Bool) -> Void
    }

    /// This thread's number, for `CallGate` to tell its own calls from other threads'.
    @usableFromInline let id: UInt64
    /// The counters a delivery reads and writes, in atomics read and written with relaxed order (plain loads and
    /// stores): only this thread touches them, and a stored `var` of a class would be checked for exclusive access
    /// at run time on every use (a look-up in a thread-local table).
    @usableFromInline let frames = Atomic<Int>(0)
    @usableFromInline let draining = Atomic<Bool>(false)
    @usableFromInline let hasPending = Atomic<Bool>(false)
    /// How many handler calls (or key path evaluations) run on this thread now.
    @inlinable var depth: Int {
        get { frames.load(ordering: .relaxed) }
        set { frames.store(newValue, ordering: .relaxed) }
    }
    /// Whether this thread is delivering the queued notifications (the frames it opens meanwhile leave them to it).
    @inlinable var isDraining: Bool {
        get { draining.load(ordering: .relaxed) }
        set { draining.store(newValue, ordering: .relaxed) }
    }
    /// The round of the notification being delivered (0: a write made outside any handler).
    var round = 0
    /// Notifications of writes made inside handlers, delivered in order once the outermost call returns.
    private var pending: [Pending] = []
    /// The reads recorded by the key path evaluations running on this thread, innermost last.
    @usableFromInline var recordings: [[TrackedRead]] = []
    /// Whether the evaluation being recorded is a registration's, which wants its read's `StorageLocator`.
    @usableFromInline var isLocating = false
    /// The storage locators registrations remembered on this thread (see `remember`).
    @usableFromInline var locators: [(keyPath: AnyKeyPath, locator: StorageLocator)] = []
    /// The one semaphore this thread waits on (for a delivery turn): a thread waits for one thing at a time.
    @usableFromInline let wakeUp = DispatchSemaphore(value: 0)

    private static let nextID = Atomic<UInt64>(1)
    /// How many threads record reads now: a getter looks at its thread's context only when some thread does.
    @usableFromInline static let recordingThreads = Atomic<Int>(0)

    private init() {
        id = Self.nextID.wrappingAdd(1, ordering: .relaxed).oldValue
    }

    /// The calling thread's context, made on first use and released when the thread exits.
    @usableFromInline
    static var current: ThreadContext {
        if let context = existing {
            return context
        }
        let context = ThreadContext()
        // Why `Unmanaged` is safe: the key's slot holds this one retained reference, released exactly once, by the
        // key's destructor when the thread exits (`releaseContext`); only this thread reads the slot.
        pthread_setspecific(contextKey, Unmanaged.passRetained(context).toOpaque())
        return context
    }

    /// The calling thread's context if it has one.
    @usableFromInline
    static var existing: ThreadContext? {
        guard let slot = pthread_getspecific(contextKey) else { return nil }
        // Why `Unmanaged` is safe: the slot holds a retained `ThreadContext` (see `current`), alive until this
        // thread exits; the reference taken here is a new strong one.
        return Unmanaged<ThreadContext>.fromOpaque(slot).takeUnretainedValue()
    }

    // MARK: Calls

    /// Runs `body` as a frame in which writes are queued; the outermost frame then delivers what was queued.
    @inlinable
    func frame<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        depth += 1
        defer {
            depth -= 1
            if depth == 0 && !isDraining && hasPending.load(ordering: .relaxed) { drain() }
        }
        return try body()
    }

    // MARK: Re-entrancy (O8)

    /// Queues `deliver` behind the running handler, one round later (a write made inside a handler).
    @usableFromInline
    func enqueue(object: AnyObject, storage: AnyObject, _ deliver: @escaping (_ skip: Bool) -> Void) {
        pending.append(Pending(round: round + 1, object: object, storage: storage, deliver: deliver))
        hasPending.store(true, ordering: .relaxed)
    }

    /// Delivers the queued notifications in order, each in its round; past `maximumRounds` they are skipped and
    /// the first skipped one is reported.
    @usableFromInline
    func drain() {
        guard !pending.isEmpty else { return }
        // The drain counts as a frame: user code it runs outside a handler (a deinit of a value it releases) queues
        // its writes behind the ones being delivered instead of delivering them at once, ahead of earlier turns.
        isDraining = true
        depth += 1
        let limit = ObservationDiagnostics.maximumRounds
        var unsettled: ObservationIssue?
        while !pending.isEmpty {
            // Taken out of `pending` before they are delivered and released: a write made meanwhile (even by a
            // deinit run by their release) appends to a `pending` nobody is mutating.
            let batch = pending
            pending = []
            hasPending.store(false, ordering: .relaxed)
            for item in batch {
                if item.round > limit {
                    if unsettled == nil {
                        unsettled = .unsettledCycle(
                            source: CycleSource(object: item.object, storage: item.storage), rounds: limit)
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
        // Reported once the drain is over: an issue handler's writes are then ordinary writes.
        if let unsettled { ObservationDiagnostics.report(unsettled) }
    }

    // MARK: Recording reads

    /// Evaluates `body`, recording the `@Observed` reads it makes on this thread.
    @inlinable
    func record<Value>(locating: Bool = false, _ body: () -> Value) -> (Value, [TrackedRead]) {
        // A frame whose queued notifications are delivered once the reads are taken off the stack.
        return frame {
            recordings.append([])
            isLocating = locating
            Self.recordingThreads.add(1, ordering: .relaxed)
            let value = body()
            Self.recordingThreads.subtract(1, ordering: .relaxed)
            isLocating = false
            return (value, recordings.removeLast())
        }
    }

    /// The storage of the property `keyPath` names in `object`, found through the locator a registration on this
    /// thread remembered for it (see `remember`); nil when there is none.
    @inlinable
    func locateStorage(of keyPath: AnyKeyPath, in object: AnyObject) -> AnyObject? {
        for entry in locators where entry.keyPath === keyPath {
            return entry.locator.storage(object)
        }
        return nil
    }

    /// Remembers how to find the storage of the property `keyPath` names, a key path found to be exactly one
    /// `@Observed` property of its own root class: a later registration of it on this thread, on an object of that
    /// very class (not a subclass, which may override the property), finds the storage without evaluating the key
    /// path through the getter (a wrapper's reads that storage only; a `let` getter naming its storage is skipped
    /// too). Per thread (no lock), the last 16; an entry holds its key path, so that identity is not reused meanwhile.
    @usableFromInline
    func remember(_ locator: StorageLocator, for keyPath: AnyKeyPath) {
        // A key path made anew at each call (in generic code) replaces its equal instead of pushing others out.
        let index = locators.firstIndex { $0.keyPath == keyPath } ?? (locators.count == 16 ? 0 : nil)
        if let index { locators.remove(at: index) }
        locators.append((keyPath, locator))
    }
}

/// One `@Observed` read made while a key path was evaluated: the storage, the object and property it belongs to, and
/// how many writes the storage had seen.
@usableFromInline
struct TrackedRead {
    @usableFromInline let storage: any LinkableStorage
    @usableFromInline let object: AnyObject
    @usableFromInline let keyPath: AnyKeyPath
    @usableFromInline let writes: UInt64
    /// How to find this storage in another object of the same class, when a registration asked and the wrapper's
    /// accessor could say.
    @usableFromInline let locator: StorageLocator?

    @usableFromInline
    init(
        storage: any LinkableStorage, object: AnyObject, keyPath: AnyKeyPath, writes: UInt64,
        locator: StorageLocator?
    ) {
        self.storage = storage
        self.object = object
        self.keyPath = keyPath
        self.writes = writes
        self.locator = locator
    }
}

/// The key whose slot holds each thread's `ThreadContext`.
private let contextKey: pthread_key_t = {
    var key = pthread_key_t()
    let status = pthread_key_create(&key) { releaseContext($0) }
    precondition(status == 0, "Observing: pthread_key_create failed (\(status))")
    return key
}()

/// The key's destructor: releases the exiting thread's context.
private func releaseContext(_ slot: UnsafeMutableRawPointer?) {
    // Why `Unmanaged` is safe: called once per thread at its exit with the reference `current` retained.
    if let slot { Unmanaged<ThreadContext>.fromOpaque(slot).release() }
}

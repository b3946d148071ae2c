import Foundation
import Locking
import Synchronization

/// A storage seen without its value type, for chained key paths.
@usableFromInline
protocol TrackableStorage: AnyObject, Sendable {
    /// Registers `link` to be told of every change (prior ones too if `wantsPrior`), and returns the
    /// subscription id and whether the storage changed since `version`.
    func addLink(_ link: any ChainLinkTarget, wantsPrior: Bool, since version: UInt64) -> (id: UInt64, changed: Bool)
    /// Registers `delivery`, a subscriber of this storage's own `Delivery` type (made where the value type is concrete,
    /// `KeyPathObservation.makeLeafLink`), as the chain link `id`: told of every change but the prior ones, equal writes
    /// included. Returns whether the storage changed since `version`.
    func addLink(_ delivery: AnyDelivery, id: UInt64, since version: UInt64) -> Bool
    /// Removes a subscription; unknown ids are ignored (see `PropertyStorage.removeSubscriber`). Returns
    /// whether it was found.
    @discardableResult
    func removeSubscriber(_ id: UInt64, waitingForCalls: Bool) -> Bool
    /// Removes a direct observation's subscription and closes it (a call of it that has not started will not start),
    /// and hands its `Delivery` to the caller (nil if there is none), which must do what `Hazards.release` does: wait
    /// for its calls on other threads, and keep it while this thread delivers (`KeyPathObservation.endDirect()`).
    func takeSubscriber(_ id: UInt64) -> AnyDelivery?
    /// How many writes the storage has stored so far (moves with every write, equal or not).
    var currentVersion: UInt64 { get }
    /// The stored value if it is a class instance, else nil (diagnostics: naming a path of stored properties).
    var valueObject: AnyObject? { get }
    /// Registers a direct observation whose `delivery` is this storage's own `Delivery` type (made where the
    /// value type is concrete); returns its id. With `initialPending`, changes delivered by other threads wait
    /// for `finishInitial(_:)` before calling it (O11: the initial call comes first). `delivery` is moved into the
    /// subscriber list (handed over, not retained again).
    func subscribe(_ delivery: consuming AnyDelivery, wantsPrior: Bool, initialPending: Bool) -> UInt64
    /// Marks `delivery`'s `.initial` call as made: changes waiting for it may call it now.
    func finishInitial(_ delivery: AnyDelivery)
}

/// A storage that can name its property, for diagnostics.
@usableFromInline
protocol PropertyNaming: AnyObject {
    /// The name of the property of `object` that this storage backs (`title`).
    func propertyName(in object: AnyObject) -> String
}

/// One read made by an `@Observed` getter inside `ThreadContext.track(_:)`.
@usableFromInline
struct TrackedRead {
    @usableFromInline let object: AnyObject
    let storage: any TrackableStorage
    /// The user-facing key path of the property (`\Doc.title`).
    ///
    /// The getter hands over only this key path, not the wrapper's storage key path (`\Doc._title`):
    /// each key path a getter uses is built on every read (a `swift_getKeyPath` call, a retain and a
    /// release), and a storage key path that escapes also costs every read a dynamic exclusivity
    /// check. Diagnostics name the property by reflection instead (`propertyName(ofStorage:in:)`).
    let keyPath: AnyKeyPath
    let version: UInt64

    @usableFromInline
    init(object: AnyObject, storage: any TrackableStorage, keyPath: AnyKeyPath, version: UInt64) {
        self.object = object
        self.storage = storage
        self.keyPath = keyPath
        self.version = version
    }
}

/// The reads of one tracking scope, in order. The first is kept inline, so that evaluating a key path that reads
/// one property (a direct observation's) records it without allocating.
struct TrackedReads {
    private(set) var first: TrackedRead?
    private var more: [TrackedRead] = []

    var count: Int {
        first == nil ? 0 : 1 + more.count
    }

    /// All the reads, in order.
    var all: [TrackedRead] {
        guard let first else { return [] }
        return [first] + more
    }

    mutating func append(_ read: consuming TrackedRead) {
        if first == nil {
            first = read
        } else {
            more.append(read)
        }
    }
}

/// The name of the property of `object` whose wrapper owns the storage `storage` (`title` for the
/// wrapper `_title`), found by reflection; `<property>` if there is none. Diagnostics only.
func propertyName(ofStorage storage: ObjectIdentifier, in object: AnyObject) -> String {
    var mirror: Mirror? = Mirror(reflecting: object)
    while let current = mirror {
        for child in current.children {
            if let wrapper = child.value as? any StorageHolding, wrapper.storageIdentifier == storage,
                let label = child.label
            {
                return label.hasPrefix("_") ? String(label.dropFirst()) : label
            }
        }
        mirror = current.superclassMirror
    }
    return "<property>"
}

/// A property wrapper that owns a `PropertyStorage` (for naming it by reflection).
protocol StorageHolding {
    /// The identity of the wrapper's storage.
    var storageIdentifier: ObjectIdentifier { get }
}

/// What `PropertyStorage.update` does once the lock is released.
enum UpdatePlan<Value, Turn> {
    /// Nobody to notify; the changes are carried out so that removed elements die after the lock.
    case done([ObservedChange<Value>])
    /// Notify the changes (already stored) in the turn.
    case notify([ObservedChange<Value>], Bool, Turn)
    /// Announce the changes (not stored yet) in the turn, if any, then store and notify.
    case announce([ObservedChange<Value>], Bool, Turn?)
}

/// What every subscriber's `PropertyStorage.Delivery` has whatever its value type: whether it was removed, and
/// who still owes its `.initial` call. Not generic, so that the code that adds and removes subscribers (which is
/// not specialized for the value type) touches no generic type, whose metadata would be looked up in the
/// runtime's cache on each use.
///
/// Why `@unchecked Sendable` is safe: both stored properties are atomic and never reassigned.
@usableFromInline
class AnyDelivery: @unchecked Sendable {
    /// Set when the subscriber is removed from the storage; a call that has not started yet is skipped.
    @usableFromInline let closed = Atomic<Bool>(false)
    /// While the observation's `.initial` call has not been made: the address of the hazard slot of the
    /// registering thread (which makes it); 0 otherwise. A change delivered by another thread waits for it
    /// to become 0 before calling this subscriber, so the initial call comes first (O11).
    let initialOwner = Atomic<UInt>(0)

    @usableFromInline
    init() {}

    /// The address that names this delivery in a hazard slot.
    @inlinable
    final var address: UInt {
        UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque())
    }

    /// Returns once this subscriber's `.initial` call has been made (or it was removed), unless the calling
    /// thread is the one making it (its own changes are queued behind it; see `KeyValueObservable.register`).
    final func awaitInitial(on context: ThreadContext) {
        let own = UInt(bitPattern: Unmanaged.passUnretained(context.hazard).toOpaque())
        var attempt = 0
        while true {
            let owner = initialOwner.load(ordering: .acquiring)
            if owner == 0 || owner == own || closed.load(ordering: .acquiring) {
                return
            }
            Hazards.backOff(attempt)
            attempt += 1
        }
    }
}

/// One observation of a `PropertyStorage`. The same type for every value type (see `AnyDelivery`); its
/// `delivery` is always the storage's own `PropertyStorage<Value>.Delivery` (`PropertyStorage.typed(_:)`).
@usableFromInline
struct StorageSubscriber {
    @usableFromInline let id: UInt64
    @usableFromInline let wantsPrior: Bool
    /// Chain links are told of equal writes too (an equal but different object still re-targets).
    @usableFromInline let notifiesEqualWrites: Bool
    /// Holds the function called with the change, the object and the delivering thread's context.
    @usableFromInline let delivery: AnyDelivery
}

/// Whether a tracking scope may be open on some thread (see `activeTrackers`).
@inlinable
var isTracking: Bool {
    activeTrackerCount() != 0
}

@usableFromInline
func activeTrackerCount() -> Int {
    activeTrackers.load(ordering: .relaxed)
}

/// A process-wide source of chain-link subscription ids, all even (never reused). A storage's direct subscribers take
/// odd ids from the storage's own count under its lock (`State.nextSubscriberID`: no atomic instruction), so the
/// two never meet; an id is only ever looked for in the storage that gave it.
let nextSubscriptionID = Atomic<UInt64>(2)

/// The storage behind one `@Observed` or `@ObservedArray` property of one object: the value, and the
/// observations registered on it, behind one lock.
///
/// Handlers are never called while the lock is held: the setter stores, takes a snapshot of the
/// subscribers, unlocks, then delivers through the thread's `ThreadContext`.
///
/// Why `@unchecked Sendable` is safe: `state` is only read or written inside `withState`, which holds
/// `mutex`, so no two threads ever touch it at once (the ThreadSanitizer run of `Tools/sanitize.sh --thread`
/// checks this). The lock is a `Mutex<Void>` rather than a `Mutex<State>` because the values stored here have
/// any type: a `Mutex<State>` only accepts values it can prove disconnected (`sending`), which a
/// setter's `newValue` is not. Values reach another thread through this storage only if the model
/// object itself is shared, which Swift allows only for a model declared `Sendable`.
///
/// The package's one lock that is not a `LockedValue`: it is taken on every read and write of every `@Observed`
/// property, whose setter's lock section was tuned instruction by instruction (see Docs/Observing.md, "Where a
/// delivered change's instructions go"), and it announces its sections to ThreadSanitizer only when a flag copied at
/// creation (`sanitized`) says the sanitizer is there. Moving it into a `LockedValue<State>` (whose annotation check
/// now costs the same as that flag) is possible, but was not measured this round.
@usableFromInline
final class PropertyStorage<Value>: @unchecked Sendable {
    /// One observation of this storage (the same type for every `Value`: see `StorageSubscriber`).
    @usableFromInline
    typealias Subscriber = StorageSubscriber

    /// A subscriber's function in an object, so that the setter can call it through an unretained
    /// reference, and so that its address names it in the threads' hazard slots (see `Hazards`). Built
    /// where the observation's types are concrete, so the delivery path is specialized.
    ///
    /// Why `@unchecked Sendable` is safe: `call` is immutable; the base class's state is atomic.
    @usableFromInline
    final class Delivery: AnyDelivery, @unchecked Sendable {
        @usableFromInline let call: (ObservedChange<Value>, AnyObject, ThreadContext) -> Void

        @usableFromInline
        init(_ call: @escaping (ObservedChange<Value>, AnyObject, ThreadContext) -> Void) {
            self.call = call
        }

        /// Calls the subscriber unless it was removed, publishing the call in `context`'s hazard slot
        /// first (the path for everything but the setter's single-subscriber case).
        @inlinable
        func guardedCall(_ change: ObservedChange<Value>, _ object: AnyObject, on context: ThreadContext) {
            let slot = context.hazard
            // Both sequentially consistent, like the remover's store of `closed` and its reads of the
            // slots: at least one of the two threads sees the other's store (see `Hazards`).
            let previous = slot.delivery.exchange(address, ordering: .sequentiallyConsistent)
            if !closed.load(ordering: .sequentiallyConsistent) {
                call(change, object, context)
            }
            slot.delivery.store(previous, ordering: .releasing)
        }
    }

    /// The `Delivery` a subscriber of this storage holds. Why the unchecked cast is safe: a storage's
    /// subscribers are only ever made with its own `Delivery` type (`subscribe` is reached either through
    /// `PropertyStorage<Value>` itself or with the delivery of an observation whose key path was found to
    /// read exactly this storage, whose value type is then `Value`; `addLink` makes its own, or is handed a leaf link
    /// made for a path whose last property is this storage's, whose value type is then the path's).
    @inlinable
    @inline(__always)
    static func typed(_ delivery: AnyDelivery) -> Delivery {
        unsafeDowncast(delivery, to: Delivery.self)
    }

    /// Everything but `value` comes first and has a fixed size, so that the code that handles subscribers, which
    /// is not specialized for `Value`, reaches those fields at constant offsets (a field after `value` would need
    /// `State`'s metadata, a look-up in the runtime's cache, on every access).
    @usableFromInline
    struct State {
        @usableFromInline var version: UInt64 = 0
        @usableFromInline var subscribers: [Subscriber] = []
        @usableFromInline var priorSubscribers = 0
        /// Subscribers whose `.initial` call has not been made yet (`Delivery.initialOwner`).
        @usableFromInline var pendingInitials = 0
        /// `priorSubscribers + pendingInitials`: when not zero, a write takes the general path (one test in
        /// the setter's fast path).
        @usableFromInline var unusualSubscribers = 0
        /// The ticket the next notified write takes (see `turn`).
        @usableFromInline var nextTicket: UInt64 = 0
        /// The id the next direct subscriber takes (odd, see `nextSubscriptionID`).
        var nextSubscriberID: UInt64 = 1
        @usableFromInline var value: Value

        init(value: Value) {
            self.value = value
        }
    }

    @usableFromInline let mutex = Mutex<Void>(())
    /// Store order for deliveries (O11): each write that has subscribers takes the next ticket under the lock
    /// (`State.nextTicket`), in store order; its delivery runs only once `turn` equals its ticket, and ends by
    /// setting `turn` to the next one (a releasing store: the next delivery sees everything this one did). The
    /// setter reads `turn` under the lock: when it already equals the new ticket (no delivery of this property
    /// in progress, the common case) it delivers at once; otherwise it waits for its turn after the lock.
    /// Two rules keep this free of deadlocks: a thread never waits for a turn while it holds one (a delivery
    /// ends its turn before it delivers what its handlers queued), and a change made inside a handler is queued
    /// (O8), so a thread never waits for a ticket that it holds itself.
    @usableFromInline let turn = Atomic<UInt64>(0)
    /// Exclusive access is guaranteed by `mutex`, so the run-time exclusivity check is skipped.
    @usableFromInline @exclusivity(unchecked) var state: State
    /// `==` for `Equatable` values (a write of an equal value does not notify direct observations),
    /// `nil` otherwise. It captures nothing, so calling it from any thread is safe.
    @usableFromInline let isEqual: ((Value, Value) -> Bool)?
    /// Whether the process runs under ThreadSanitizer (copied here so the lock path reads no global).
    @usableFromInline let sanitized = ThreadSanitizer.isActive
    /// The Swift Observation registrar of this property, created by its first read (see `ObservationBridge`).
    @usableFromInline let observation = ObservationSlot()
    /// The address of the key path this storage was last read through by a tracked getter (0: never), which
    /// `ThreadContext.directProperty(_:of:)` compares with the key path it looks up. Relaxed: it is only compared,
    /// never followed, and the key path it names is kept alive by the entry that compares it.
    @usableFromInline let lastTrackedKeyPath = Atomic<UInt>(0)

    @usableFromInline
    init(_ value: Value, isEqual: ((Value, Value) -> Bool)?) {
        self.state = State(value: value)
        self.isEqual = isEqual
    }

    deinit {
        // A storage normally goes away with its object, never during one of its own deliveries (the
        // setter's caller keeps the object alive). The exception is a handler that assigns the property
        // wrapper itself (`_title = Observed(...)`) while this thread delivers a change of it: the setter
        // up the stack may still call a subscriber through an unretained reference, so the subscribers
        // are kept until that delivery ends. (Another thread cannot be in such a delivery: it would be
        // reading the wrapper while this thread assigns it, a data race in the model itself.)
        if !state.subscribers.isEmpty, let context = ThreadContext.existing, context.isDelivering {
            context.retire(state.subscribers as AnyObject)
            // The setter up the stack must not end its turn in this storage (`endTurn(_:on:)`).
            context.noteFreedStorage(UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque()))
        }
    }

    /// Runs `body` with the state, holding the lock.
    @inlinable
    @inline(__always)
    func withState<Result>(_ body: (inout State) -> Result) -> Result {
        var result: Result?
        mutex.withLock { _ in
            if _slowPath(sanitized) {
                ThreadSanitizer.acquire(self)
            }
            result = body(&state)
            if _slowPath(sanitized) {
                ThreadSanitizer.release(self)
            }
        }
        // The closure above always runs exactly once.
        return result.unsafelyUnwrapped
    }

    // MARK: Reading

    @inlinable
    func value(of object: AnyObject, keyPath: AnyKeyPath) -> Value {
        if isTracking {
            return trackedValue(of: object, keyPath: keyPath)
        }
        return withState { $0.value }
    }

    /// Inlinable (so specialized where `Value` is concrete): in code not specialized for `Value`, the tuple read
    /// under the lock is two metadata look-ups.
    ///
    /// Also notes `keyPath` as the key path this storage was last read through (`lastTrackedKeyPath`).
    @inlinable
    func trackedValue(of object: AnyObject, keyPath: AnyKeyPath) -> Value {
        let (value, version) = withState { ($0.value, $0.version) }
        lastTrackedKeyPath.store(UInt(bitPattern: Unmanaged.passUnretained(keyPath).toOpaque()), ordering: .relaxed)
        ThreadContext.current.recordRead(
            TrackedRead(
                object: object, storage: self, keyPath: keyPath, version: version))
        return value
    }

    /// The value, without recording the read.
    @inlinable
    var untrackedValue: Value {
        withState { $0.value }
    }

    /// What the lock section of `setValue` leaves for after the lock. An enum rather than a tuple of optionals, so
    /// that the single-subscriber path knows it holds no subscriber list (with an optional list, it released a `nil`
    /// one: a call into the runtime on every delivered change).
    @usableFromInline
    enum StoreOutcome {
        /// Nothing to notify now. With the replaced value: stored, nobody observes. With `nil`: nothing was stored,
        /// since a subscriber wants prior notifications or waits for its `.initial` call; `generalSet` does it all.
        /// (One case for both, not two: with four cases the optimizer dispatched through a jump table.)
        case unnotified(replaced: Value?)
        /// Stored; one subscriber, read unretained and published in the calling thread's hazard slot, its
        /// `notifiesEqualWrites`, and the thread's context (unretained); the write holds its turn.
        case single(Value, Unmanaged<Delivery>, notifiesEqual: Bool, context: Unmanaged<ThreadContext>)
        /// Stored; the subscribers to call (several, or a write made inside a handler, or another delivery in
        /// progress), retained; the write's ticket is in the context (`ThreadContext.heldTicket`).
        case many(Value, [Subscriber], context: Unmanaged<ThreadContext>)
    }

    // MARK: Writing

    /// Stores `newValue` and notifies; `isEqual` tells an equal write (not notified to direct observations).
    ///
    /// The common case (no prior observer, no `.initial` call pending, not inside a handler, no other delivery
    /// of this property in progress) is inlined into the model's setter, where `Value` is concrete: one lock to
    /// store the value, take the write's ticket (see `turn`) and read the subscribers, then the handlers are
    /// called after the lock with no allocation. With one subscriber, not even a reference count is touched:
    /// its `Delivery` is read unretained and published in this thread's hazard slot under the lock (see
    /// `Hazards`), which keeps whoever removes it from releasing it while it is called. With several, or when
    /// another delivery of this property is in progress (this one then waits for its turn), the list (a
    /// copy-on-write array) is retained once and each call is published in the slot first (see
    /// `Delivery.guardedCall`). The rare cases (prior observers, pending initial calls, a write made inside a
    /// handler) go through out-of-line paths.
    ///
    /// `self` is not used once the first handler has been called, except to end the turn, which checks first
    /// that no handler freed this storage: a handler could, in principle, free it (by assigning the property
    /// wrapper itself), and `deinit` then hands the subscriber list to this thread's context (see `deinit`).
    @inlinable
    func setValue(_ newValue: Value, of object: AnyObject) {
        // The calling thread's context is not retained: the thread-local slot holds it until this thread exits,
        // which cannot happen during this call. The lock section is a local function marked `@inline(__always)`,
        // not a closure: the optimizer would call a closure this size out of line (a second stack frame, the
        // results passed back through memory: 17 instructions per write, measured with callgrind).
        @inline(__always)
        func store(_ state: inout State) -> StoreOutcome {
            if state.unusualSubscribers != 0 {
                return .unnotified(replaced: nil)
            }
            var old = newValue
            swap(&old, &state.value)
            state.version &+= 1
            if state.subscribers.isEmpty {
                return .unnotified(replaced: old)
            }
            // Read under the lock, so that a write nobody observes does not look it up.
            let current = Unmanaged<ThreadContext>.fromOpaque(ThreadContext.currentPointer())
            let ticket = state.nextTicket
            state.nextTicket = ticket &+ 1
            if state.subscribers.count == 1 && !current._withUnsafeGuaranteedRef({ $0.isDelivering })
                && turn.load(ordering: .acquiring) == ticket
            {
                // Read without retaining: the hazard published below keeps a remover from releasing
                // it (a removal takes this lock first, and then finds the slot). The read is a load of
                // the reference's bits as an `Unmanaged` (same layout, trivial, no retain).
                let (delivery, notifiesEqual) = state.subscribers.withUnsafeBufferPointer { buffer in
                    let base = UnsafeRawPointer(buffer.baseAddress.unsafelyUnwrapped)
                    return (
                        base.load(
                            fromByteOffset: MemoryLayout<Subscriber>.offset(of: \Subscriber.delivery)!,
                            as: Unmanaged<Delivery>.self),
                        buffer[0].notifiesEqualWrites
                    )
                }
                // Releasing (a plain store on x86): a remover that reads this address must also see
                // the end of this thread's previous call (a later relaxed store would not carry the
                // release of the earlier clear to it).
                current._withUnsafeGuaranteedRef {
                    $0.hazard.delivery.store(
                        UInt(bitPattern: delivery.toOpaque()), ordering: .releasing)
                    $0.isDelivering = true
                }
                return .single(old, delivery, notifiesEqual: notifiesEqual, context: current)
            }
            current._withUnsafeGuaranteedRef { $0.heldTicket = ticket }
            return .many(old, state.subscribers, context: current)
        }
        let outcome = withState(store)
        // `consume`: the payloads move out of `outcome` instead of being copied (a second retain of the list).
        switch consume outcome {
        case .unnotified(let replaced):
            if case .none = replaced {
                generalSet(newValue, of: object)
            }
        // Otherwise nobody to notify. The replaced value is released here, after the lock: its deinit may use this
        // storage.
        case .single(let old, let single, let singleNotifiesEqual, let context):
            let isEqualWrite = isEqual?(old, newValue) ?? false
            // The change holds the replaced value, which must outlive the delivery: it is released only after the
            // turn and the delivery have ended (`withExtendedLifetime` below), since its deinit may write this
            // property. Released earlier, as the optimizer may do after the change's last use, a write from that
            // deinit could land after `endTurnAndDelivery` looked for queued work and before it ended the delivery:
            // queued and never run, its turn would never end.
            let change = ObservedChange(kind: .setting, oldValue: consume old, newValue: newValue)
            // `closed` is checked for a subscriber removed by this thread since the lock, which only user
            // code run in between can do (a custom `==` ending the observation); other threads' removals
            // wait for the slot instead (see `Hazards`).
            if (!isEqualWrite || singleNotifiesEqual)
                && !single._withUnsafeGuaranteedRef({ $0.closed.load(ordering: .relaxed) })
            {
                single._withUnsafeGuaranteedRef { delivery in
                    context._withUnsafeGuaranteedRef { delivery.call(change, object, $0) }
                }
            }
            context._withUnsafeGuaranteedRef { $0.hazard.delivery.store(0, ordering: .releasing) }
            // Ends the turn after the handlers: through an unretained reference, since a handler may have freed this
            // storage, and a debug build retains `self` for every use.
            Self.endTurnAndDelivery(of: Unmanaged.passUnretained(self), on: context)
            withExtendedLifetime(change) {}
        case .many(let old, let subscribers, let context):
            // Several subscribers, a write made inside a handler, or another delivery in progress.
            let isEqualWrite = isEqual?(old, newValue) ?? false
            // Released after the turn and the delivery have ended, as in the single-subscriber case.
            let change = ObservedChange(kind: .setting, oldValue: consume old, newValue: newValue)
            let ticket = context._withUnsafeGuaranteedRef { $0.heldTicket }
            if _slowPath(context._withUnsafeGuaranteedRef { $0.isDelivering }) {
                // A write made by a handler: stored above, delivered after the current handler (O8).
                context._withUnsafeGuaranteedRef {
                    enqueueSend(
                        change, isEqualWrite: isEqualWrite, to: subscribers, object: object, ticket: ticket, on: $0)
                }
                return
            }
            let unretained = Unmanaged.passUnretained(self)
            context._withUnsafeGuaranteedRef { $0.isDelivering = true }
            if _slowPath(turn.load(ordering: .acquiring) != ticket) {
                waitForTurn(ticket)
            }
            // Each `Delivery` is called through an unretained reference read from the array's buffer. Why that
            // is safe: `subscribers` holds a reference to that buffer until this function returns, and the
            // buffer is never mutated meanwhile (the storage's own array shares it, so any change there copies
            // it first), so every `Delivery` in it stays alive.
            subscribers.withUnsafeBufferPointer { buffer in
                let base = UnsafeRawPointer(buffer.baseAddress.unsafelyUnwrapped)
                let offset = MemoryLayout<Subscriber>.offset(of: \Subscriber.delivery)!
                for index in buffer.indices where !isEqualWrite || buffer[index].notifiesEqualWrites {
                    let delivery = (base + index * MemoryLayout<Subscriber>.stride + offset)
                        .load(as: Unmanaged<Delivery>.self)
                    delivery._withUnsafeGuaranteedRef { delivery in
                        context._withUnsafeGuaranteedRef { delivery.guardedCall(change, object, on: $0) }
                    }
                }
            }
            Self.endTurnAndDelivery(of: unretained, on: context)
            // The replaced value, and the subscribers removed meanwhile (whose handlers' captures may write this
            // property as they go), die after the turn and the delivery have ended.
            withExtendedLifetime((change, subscribers)) {}
        }
    }

    /// Ends the turn the caller holds in `storage` (only the turn's holder moves `turn`: it adds one), letting the
    /// next write's delivery run, then ends the delivery on this thread (`ThreadContext.endDelivery()`). In that
    /// order: what the handlers queued may be later writes of this storage, which wait for this turn to end.
    /// Nothing queued (the common case) is two stores; otherwise `endQueuedDelivery` runs.
    @inlinable
    @inline(__always)
    static func endTurnAndDelivery(of storage: Unmanaged<PropertyStorage>, on context: Unmanaged<ThreadContext>) {
        if _fastPath(!context._withUnsafeGuaranteedRef { $0.hasQueued }) {
            storage._withUnsafeGuaranteedRef {
                $0.turn.store($0.turn.load(ordering: .relaxed) &+ 1, ordering: .releasing)
            }
            context._withUnsafeGuaranteedRef { $0.isDelivering = false }
            return
        }
        endQueuedDelivery(of: storage, on: context)
    }

    /// `endTurnAndDelivery` when the handlers queued something: the turn is not ended if a handler freed the storage
    /// (then no other thread can be waiting for it: a waiting writer keeps it alive).
    @usableFromInline
    @inline(never)
    static func endQueuedDelivery(of storage: Unmanaged<PropertyStorage>, on context: Unmanaged<ThreadContext>) {
        let context = context.takeUnretainedValue()
        if !context.wasFreedDuringDelivery(UInt(bitPattern: storage.toOpaque())) {
            storage._withUnsafeGuaranteedRef {
                $0.turn.store($0.turn.load(ordering: .relaxed) &+ 1, ordering: .releasing)
            }
        }
        context.endDelivery()
    }

    /// Waits until the deliveries of all earlier tickets have ended (another thread is delivering).
    @usableFromInline
    @inline(never)
    func waitForTurn(_ ticket: UInt64) {
        var attempt = 0
        while turn.load(ordering: .acquiring) != ticket {
            Hazards.backOff(attempt)
            attempt += 1
        }
    }

    /// `setValue` when a subscriber wants prior notifications or still waits for its `.initial` call.
    @usableFromInline
    @inline(never)
    func generalSet(_ newValue: Value, of object: AnyObject) {
        // The setter reached this storage unretained, and `update` stores after the prior notifications, whose
        // handlers may drop every other reference to it (one that replaces the wrapper and ends its observation).
        let retained = Unmanaged.passRetained(self)
        defer { retained.release() }
        let isEqual = self.isEqual
        update(of: object) { value in
            let old = value
            value = newValue
            let equal = isEqual?(old, newValue) ?? false
            return ([ObservedChange(kind: .setting, oldValue: old, newValue: newValue)], equal)
        }
    }

    /// Queues the delivery of a change made inside a handler (O8). Its turn comes when it is delivered; a
    /// delivery dropped as part of an unsettled cycle still waits for its turn and ends it.
    @usableFromInline
    @inline(never)
    func enqueueSend(
        _ change: ObservedChange<Value>, isEqualWrite: Bool, to subscribers: [Subscriber], object: AnyObject,
        ticket: UInt64, on context: ThreadContext
    ) {
        context.enqueue(
            object: object, storage: self,
            { context in
                self.waitForTurn(ticket)
                Self.send(change, isEqualWrite: isEqualWrite, to: subscribers, object: object, on: context)
                self.turn.store(ticket &+ 1, ordering: .releasing)
            },
            dropped: { _ in
                self.waitForTurn(ticket)
                self.turn.store(ticket &+ 1, ordering: .releasing)
            })
    }

    @inlinable
    @inline(__always)
    static func send(
        _ change: ObservedChange<Value>, isEqualWrite: Bool, to subscribers: [Subscriber], object: AnyObject,
        on context: ThreadContext
    ) {
        for subscriber in subscribers where !isEqualWrite || subscriber.notifiesEqualWrites {
            typed(subscriber.delivery).guardedCall(change, object, on: context)
        }
    }

    /// Applies `mutation` under the lock and notifies the changes it returns, in order.
    ///
    /// With prior observers outside any handler, `mutation` first runs on a copy to learn the changes,
    /// their prior notifications are delivered (in their own turn), then it runs again on the stored value.
    @usableFromInline
    func update(
        of object: AnyObject,
        _ mutation: (inout Value) -> (changes: [ObservedChange<Value>], isEqualWrite: Bool)
    ) {
        typealias Plan = UpdatePlan<Value, Turn>
        let context = ThreadContext.current
        let plan: Plan = withState { state in
            if state.priorSubscribers > 0 && !context.isDelivering {
                var copy = state.value
                let (changes, equal) = mutation(&copy)
                if changes.isEmpty || state.subscribers.isEmpty {
                    return .announce(changes, equal, nil)
                }
                return .announce(changes, equal, takeTurn(&state))
            }
            let (changes, equal) = mutation(&state.value)
            state.version &+= 1
            if state.subscribers.isEmpty || changes.isEmpty {
                return .done(changes)
            }
            return .notify(changes, equal, takeTurn(&state))
        }
        switch plan {
        case .done:
            // The changes (holding removed elements) are released here, after the lock.
            return
        case .notify(let changes, let equal, let turn):
            deliver(changes, isEqualWrite: equal, turn: turn, object: object, priors: true)
        case .announce(let announced, let equal, let priorTurn):
            if let priorTurn {
                deliver(
                    announced.map { $0.prior }, isEqualWrite: equal, turn: priorTurn, object: object, priors: false)
            }
            let (changes, isEqualWrite, turn): ([ObservedChange<Value>], Bool, Turn?) =
                withState { state in
                    let (changes, equal) = mutation(&state.value)
                    state.version &+= 1
                    if state.subscribers.isEmpty || changes.isEmpty {
                        return (changes, equal, nil)
                    }
                    return (changes, equal, takeTurn(&state))
                }
            if let turn {
                deliver(changes, isEqualWrite: isEqualWrite, turn: turn, object: object, priors: false)
            }
        }
    }

    /// A delivery's ticket with what it delivers to (taken under the lock, see `turn`).
    struct Turn {
        let ticket: UInt64
        let subscribers: [Subscriber]
        /// Whether a subscriber's `.initial` call was pending when the ticket was taken.
        let awaitsInitials: Bool
    }

    private func takeTurn(_ state: inout State) -> Turn {
        let ticket = state.nextTicket
        state.nextTicket = ticket &+ 1
        return Turn(ticket: ticket, subscribers: state.subscribers, awaitsInitials: state.pendingInitials != 0)
    }

    /// Delivers `changes` in `turn`; with `priors`, each change is preceded by its prior notification for the
    /// subscribers that want one (the re-entrant case: the store already happened).
    private func deliver(
        _ changes: [ObservedChange<Value>],
        isEqualWrite: Bool,
        turn: Turn,
        object: AnyObject,
        priors: Bool
    ) {
        let subscribers = turn.subscribers
        let work = { (context: ThreadContext) in
            self.waitForTurn(turn.ticket)
            if turn.awaitsInitials {
                for subscriber in subscribers {
                    subscriber.delivery.awaitInitial(on: context)
                }
            }
            for change in changes {
                if priors {
                    let prior = change.prior
                    for subscriber in subscribers
                    where subscriber.wantsPrior && (!isEqualWrite || subscriber.notifiesEqualWrites) {
                        Self.typed(subscriber.delivery).guardedCall(prior, object, on: context)
                    }
                }
                for subscriber in subscribers
                where (!change.isPrior || subscriber.wantsPrior) && (!isEqualWrite || subscriber.notifiesEqualWrites) {
                    Self.typed(subscriber.delivery).guardedCall(change, object, on: context)
                }
            }
            self.turn.store(turn.ticket &+ 1, ordering: .releasing)
        }
        let context = ThreadContext.current
        if context.isDelivering {
            context.enqueue(
                object: object, storage: self, work,
                dropped: { _ in
                    self.waitForTurn(turn.ticket)
                    self.turn.store(turn.ticket &+ 1, ordering: .releasing)
                })
            return
        }
        context.beginDelivery()
        work(context)
        context.endDelivery()
    }

    // MARK: Subscribing

    /// Registers a direct observation calling `deliver`; returns its id, its `Delivery` (what
    /// `Hazards.waitUntilNotCalled` waits for) and the value at the time of registration (see
    /// `subscribe(_:wantsPrior:initialPending:)`).
    func subscribe(
        wantsPrior: Bool, initialPending: Bool = false,
        _ deliver: @escaping (ObservedChange<Value>, AnyObject, ThreadContext) -> Void
    ) -> (id: UInt64, delivery: Delivery, value: Value) {
        let delivery = Delivery(deliver)
        let (id, value) = subscribeReadingValue(delivery, wantsPrior: wantsPrior, initialPending: initialPending)
        return (id, delivery, value)
    }

    /// `subscribe(_:wantsPrior:initialPending:)`, also returning the value stored when the subscription was
    /// added (the `.initial` call's value: every change after it is delivered to the new subscriber).
    func subscribeReadingValue(_ delivery: AnyDelivery, wantsPrior: Bool, initialPending: Bool) -> (UInt64, Value) {
        var value: Value?
        let id = addSubscriber(delivery, wantsPrior: wantsPrior, initialPending: initialPending) { value = $0 }
        // `addSubscriber` calls the closure exactly once, under the lock.
        return (id, value.unsafelyUnwrapped)
    }

    @usableFromInline
    func subscribe(_ delivery: consuming AnyDelivery, wantsPrior: Bool, initialPending: Bool) -> UInt64 {
        addSubscriber(delivery, wantsPrior: wantsPrior, initialPending: initialPending, reading: nil)
    }

    /// Adds a subscriber (see `subscribe`), calling `reading` (if any) with the value under the same lock.
    /// Touches no generic type but `Value` itself, and that only through `reading`: this code is not
    /// specialized for `Value`.
    private func addSubscriber(
        _ delivery: consuming AnyDelivery, wantsPrior: Bool, initialPending: Bool, reading: ((Value) -> Void)?
    ) -> UInt64 {
        if initialPending {
            let own = UInt(bitPattern: Unmanaged.passUnretained(ThreadContext.current.hazard).toOpaque())
            delivery.initialOwner.store(own, ordering: .relaxed)
        }
        // Moved into the list through an optional the lock section takes it from (a consumed argument cannot be
        // captured, and a captured copy is a retain and a release).
        var handedOver: AnyDelivery? = consume delivery
        return withState { state in
            let id = state.nextSubscriberID
            state.nextSubscriberID &+= 2
            // Made here, not before the lock: a subscriber made outside is copied in (a retain and a release).
            state.subscribers.append(
                Subscriber(
                    id: id, wantsPrior: wantsPrior, notifiesEqualWrites: false,
                    delivery: handedOver.take().unsafelyUnwrapped))
            if wantsPrior {
                state.priorSubscribers += 1
                state.unusualSubscribers += 1
            }
            if initialPending {
                state.pendingInitials += 1
                state.unusualSubscribers += 1
            }
            reading?(state.value)
            return id
        }
    }

    /// Marks `delivery`'s `.initial` call as made: changes waiting for it may call it now.
    @usableFromInline
    func finishInitial(_ delivery: AnyDelivery) {
        withState { state in
            Self.clearInitial(of: delivery, in: &state)
        }
    }

    private static func clearInitial(of delivery: AnyDelivery, in state: inout State) {
        guard delivery.initialOwner.load(ordering: .relaxed) != 0 else { return }
        delivery.initialOwner.store(0, ordering: .releasing)
        state.pendingInitials -= 1
        state.unusualSubscribers -= 1
    }

    /// Removes a subscription; unknown ids are ignored. The removed subscriber is closed (a call of it
    /// that has not started will not start) and released once no thread is calling it; with
    /// `waitingForCalls`, this returns only then (see `Hazards.release`). Returns whether it was found.
    @usableFromInline
    @discardableResult
    func removeSubscriber(_ id: UInt64, waitingForCalls: Bool) -> Bool {
        guard let removed = remove(id) else { return false }
        Hazards.release(removed, waitingForCalls: waitingForCalls)
        return true
    }

    @usableFromInline
    func takeSubscriber(_ id: UInt64) -> AnyDelivery? {
        remove(id)
    }

    /// Takes the subscription `id` out of the list and closes its `Delivery` (nil if there is none).
    private func remove(_ id: UInt64) -> AnyDelivery? {
        withState { state in
            var index = 0
            let count = state.subscribers.count
            while index < count && state.subscribers[index].id != id {
                index += 1
            }
            guard index < count else { return nil }
            if state.subscribers[index].wantsPrior {
                state.priorSubscribers -= 1
                state.unusualSubscribers -= 1
            }
            // The last one (the common case: one subscriber) without `remove(at:)`, which moves the elements after it.
            let delivery =
                index == count - 1
                ? state.subscribers.removeLast().delivery : state.subscribers.remove(at: index).delivery
            Self.clearInitial(of: delivery, in: &state)
            delivery.closed.store(true, ordering: .sequentiallyConsistent)
            return delivery
        }
    }
}

extension PropertyStorage: PropertyNaming {
    /// Found by reflection: the stored wrapper (`_title`) whose storage is this one. Diagnostics only.
    @usableFromInline
    func propertyName(in object: AnyObject) -> String {
        Observing.propertyName(ofStorage: ObjectIdentifier(self), in: object)
    }
}

extension PropertyStorage: TrackableStorage {
    @usableFromInline
    var currentVersion: UInt64 {
        withState { $0.version }
    }

    @usableFromInline
    var valueObject: AnyObject? {
        let value: Any = untrackedValue
        return type(of: value) is AnyClass ? value as AnyObject : nil
    }

    @usableFromInline
    func addLink(_ link: any ChainLinkTarget, wantsPrior: Bool, since version: UInt64) -> (id: UInt64, changed: Bool) {
        let id = nextSubscriptionID.add(2, ordering: .relaxed).oldValue
        // `link` is held strongly: a weak reference would give the observation a side table, and cost every change a
        // weak load and two reference counts through it. A link removed while another thread calls it is released
        // later (see `Hazards.release`) and keeps its observation until then; by then the observation has either been
        // re-targeted (it lives on anyway) or invalidated, which released its handler and its values, so only the
        // observation's own object waits for that release.
        let delivery = Delivery { change, _, _ in
            if !change.isPrior {
                link.linkDidChange()
            }
        }
        let subscriber = Subscriber(id: id, wantsPrior: wantsPrior, notifiesEqualWrites: true, delivery: delivery)
        return withState { state in
            state.subscribers.append(subscriber)
            if wantsPrior {
                state.priorSubscribers += 1
                state.unusualSubscribers += 1
            }
            return (id, state.version != version)
        }
    }

    @usableFromInline
    func addLink(_ delivery: AnyDelivery, id: UInt64, since version: UInt64) -> Bool {
        let subscriber = Subscriber(id: id, wantsPrior: false, notifiesEqualWrites: true, delivery: delivery)
        return withState { state in
            state.subscribers.append(subscriber)
            return state.version != version
        }
    }
}

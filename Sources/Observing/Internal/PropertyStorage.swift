import Foundation
import Locking
import Synchronization

/// A storage seen without its value type, for chained key paths.
protocol TrackableStorage: AnyObject, Sendable {
    /// Registers `link` to be told of every change (prior ones too if `wantsPrior`), and returns the
    /// subscription id and whether the storage changed since `version`.
    func addLink(_ link: any ChainLinkTarget, wantsPrior: Bool, since version: UInt64) -> (id: UInt64, changed: Bool)
    /// Removes a subscription; unknown ids are ignored (see `PropertyStorage.removeSubscriber`). Returns
    /// whether it was found.
    @discardableResult
    func removeSubscriber(_ id: UInt64, waitingForCalls: Bool) -> Bool
}

/// A storage that can name its property, for diagnostics.
@usableFromInline
protocol PropertyNaming: AnyObject {
    /// The name of the property of `object` that this storage backs (`title`).
    func propertyName(in object: AnyObject) -> String
}

/// One read made by an `@Observed` getter inside `ThreadContext.track(_:)`.
struct TrackedRead {
    let object: AnyObject
    let storage: any TrackableStorage
    /// The user-facing key path of the property (`\Doc.title`).
    ///
    /// The getter hands over only this key path, not the wrapper's storage key path (`\Doc._title`):
    /// each key path a getter uses is built on every read (a `swift_getKeyPath` call, a retain and a
    /// release), and a storage key path that escapes also costs every read a dynamic exclusivity
    /// check. Diagnostics name the property by reflection instead (`propertyName(ofStorage:in:)`).
    let keyPath: AnyKeyPath
    let version: UInt64
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
enum UpdatePlan<Value, Subscriber> {
    /// Nobody to notify; the changes are carried out so that removed elements die after the lock.
    case done([ObservedChange<Value>])
    case notify([ObservedChange<Value>], Bool, [Subscriber])
    case announce([ObservedChange<Value>], Bool, [Subscriber])
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

/// A process-wide source of subscription ids (ids are never reused).
let nextSubscriptionID = Atomic<UInt64>(1)

/// The storage behind one `@Observed` or `@ObservedArray` property of one object: the value, and the
/// observations registered on it, behind one lock.
///
/// Handlers are never called while the lock is held: the setter stores, takes a snapshot of the
/// subscribers, unlocks, then delivers through the thread's `ThreadContext`.
///
/// Why `@unchecked Sendable` is safe: `state` is only read or written inside `withState`, which holds
/// `mutex`, so no two threads ever touch it at once (the ThreadSanitizer run in `Tools/tsan.sh` checks
/// this). The lock is a `Mutex<Void>` rather than a `Mutex<State>` because the values stored here have
/// any type: a `Mutex<State>` only accepts values it can prove disconnected (`sending`), which a
/// setter's `newValue` is not. Values reach another thread through this storage only if the model
/// object itself is shared, which Swift allows only for a model declared `Sendable`.
@usableFromInline
final class PropertyStorage<Value>: @unchecked Sendable {
    /// One observation of this storage. `deliver` is called with each change and the object; it is
    /// built where the observation's types are concrete, so the delivery path is specialized.
    @usableFromInline
    struct Subscriber {
        @usableFromInline let id: UInt64
        @usableFromInline let wantsPrior: Bool
        /// Chain links are told of equal writes too (an equal but different object still re-targets).
        @usableFromInline let notifiesEqualWrites: Bool
        /// Holds the function called with the change, the object and the delivering thread's context.
        @usableFromInline let delivery: Delivery

        init(
            id: UInt64, wantsPrior: Bool, notifiesEqualWrites: Bool,
            deliver: @escaping (ObservedChange<Value>, AnyObject, ThreadContext) -> Void
        ) {
            self.id = id
            self.wantsPrior = wantsPrior
            self.notifiesEqualWrites = notifiesEqualWrites
            self.delivery = Delivery(deliver)
        }
    }

    /// A subscriber's function in an object, so that the setter can call it through an unretained
    /// reference, and so that its address names it in the threads' hazard slots (see `Hazards`).
    ///
    /// Why `@unchecked Sendable` is safe: `call` is immutable; `closed` is atomic.
    @usableFromInline
    final class Delivery: @unchecked Sendable {
        @usableFromInline let call: (ObservedChange<Value>, AnyObject, ThreadContext) -> Void
        /// Set when the subscriber is removed from the storage; a call that has not started yet is skipped.
        @usableFromInline let closed = Atomic<Bool>(false)

        init(_ call: @escaping (ObservedChange<Value>, AnyObject, ThreadContext) -> Void) {
            self.call = call
        }

        /// The address that names this delivery in a hazard slot.
        @inlinable
        var address: UInt {
            UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque())
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

    @usableFromInline
    struct State {
        @usableFromInline var value: Value
        @usableFromInline var version: UInt64 = 0
        @usableFromInline var subscribers: [Subscriber] = []
        @usableFromInline var priorSubscribers = 0

        init(value: Value) {
            self.value = value
        }
    }

    @usableFromInline let mutex = Mutex<Void>(())
    /// Exclusive access is guaranteed by `mutex`, so the run-time exclusivity check is skipped.
    @usableFromInline @exclusivity(unchecked) var state: State
    /// `==` for `Equatable` values (a write of an equal value does not notify direct observations),
    /// `nil` otherwise. It captures nothing, so calling it from any thread is safe.
    @usableFromInline let isEqual: ((Value, Value) -> Bool)?
    /// Whether the process runs under ThreadSanitizer (copied here so the lock path reads no global).
    @usableFromInline let sanitized = ThreadSanitizer.isActive
    /// The Swift Observation registrar of this property, created by its first read (see `ObservationBridge`).
    @usableFromInline let observation = ObservationSlot()

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

    @usableFromInline
    func trackedValue(of object: AnyObject, keyPath: AnyKeyPath) -> Value {
        let (value, version) = withState { ($0.value, $0.version) }
        ThreadContext.current.recordRead(
            TrackedRead(
                object: object, storage: self, keyPath: keyPath, version: version))
        return value
    }

    /// The value, without recording the read.
    var untrackedValue: Value {
        withState { $0.value }
    }

    // MARK: Writing

    /// Stores `newValue` and notifies; `isEqual` tells an equal write (not notified to direct observations).
    ///
    /// The common case (no prior observer, not inside a handler) is inlined into the model's setter, where
    /// `Value` is concrete: one lock to store the value and read the subscribers, then the handlers are
    /// called after the lock with no allocation. With one subscriber, not even a reference count is
    /// touched: its `Delivery` is read unretained and published in this thread's hazard slot under the lock
    /// (see `Hazards`), which keeps whoever removes it from releasing it while it is called. With several,
    /// the list (a copy-on-write array) is retained once and each call is published in the slot first (see
    /// `Delivery.guardedCall`). The rare cases (prior observers, a write made inside a handler) go through
    /// out-of-line paths.
    ///
    /// `self` is not used once the first handler has been called: a handler could, in principle, free this
    /// storage (by assigning the property wrapper itself), and `deinit` then hands the subscriber list to
    /// this thread's context (see `deinit`).
    @inlinable
    func setValue(_ newValue: Value, of object: AnyObject) {
        // The calling thread's context, not retained: the thread-local slot holds it until this thread
        // exits, which cannot happen during this call. Each use below is a small closure that the
        // compiler inlines (one large closure would not be, and would retain what it captures).
        var context: Unmanaged<ThreadContext>?
        // `many` is `nil` unless there are several subscribers (or this is a write made inside a handler),
        // so that the common cases do not retain and release the array.
        let stored: (old: Value, single: Unmanaged<Delivery>?, singleNotifiesEqual: Bool, many: [Subscriber]?)? =
            withState { state in
                if state.priorSubscribers != 0 {
                    return nil
                }
                var old = newValue
                swap(&old, &state.value)
                state.version &+= 1
                if state.subscribers.isEmpty {
                    return (old, nil, false, nil)
                }
                // Read under the lock, so that a write nobody observes does not look it up.
                let current = Unmanaged<ThreadContext>.fromOpaque(ThreadContext.currentPointer())
                context = current
                if state.subscribers.count == 1 && !current._withUnsafeGuaranteedRef({ $0.isDelivering }) {
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
                    return (old, delivery, notifiesEqual, nil)
                }
                return (old, nil, false, state.subscribers)
            }
        // `consume`: the array moves out of `stored` instead of being retained a second time.
        guard let (old, single, singleNotifiesEqual, manyIfAny) = consume stored else {
            announceAndSet(newValue, of: object)
            return
        }
        guard let context else {
            // Nobody to notify. `old` is released here, after the lock: its deinit may use this storage.
            return
        }
        let isEqualWrite = isEqual?(old, newValue) ?? false
        if let single {
            // `closed` is checked for a subscriber removed by this thread since the lock, which only user
            // code run in between can do (a custom `==` ending the observation); other threads' removals
            // wait for the slot instead (see `Hazards`).
            if (!isEqualWrite || singleNotifiesEqual)
                && !single._withUnsafeGuaranteedRef({ $0.closed.load(ordering: .relaxed) })
            {
                let change = ObservedChange(kind: .setting, oldValue: old, newValue: newValue)
                single._withUnsafeGuaranteedRef { delivery in
                    context._withUnsafeGuaranteedRef { delivery.call(change, object, $0) }
                }
            }
            context._withUnsafeGuaranteedRef {
                $0.hazard.delivery.store(0, ordering: .releasing)
                $0.endDelivery()
            }
            return
        }
        // Several subscribers, or a write made inside a handler.
        let subscribers = (consume manyIfAny).unsafelyUnwrapped
        let change = ObservedChange(kind: .setting, oldValue: old, newValue: newValue)
        if _slowPath(context._withUnsafeGuaranteedRef { $0.isDelivering }) {
            // A write made by a handler: stored above, delivered after the current handler (O8).
            context._withUnsafeGuaranteedRef {
                enqueueSend(change, isEqualWrite: isEqualWrite, to: subscribers, object: object, on: $0)
            }
            return
        }
        context._withUnsafeGuaranteedRef { $0.isDelivering = true }
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
        context._withUnsafeGuaranteedRef { $0.endDelivery() }
    }

    /// `setValue` with prior observers: their prior notification comes before the store.
    @usableFromInline
    @inline(never)
    func announceAndSet(_ newValue: Value, of object: AnyObject) {
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

    /// Queues the delivery of a change made inside a handler (O8).
    @usableFromInline
    @inline(never)
    func enqueueSend(
        _ change: ObservedChange<Value>, isEqualWrite: Bool, to subscribers: [Subscriber], object: AnyObject,
        on context: ThreadContext
    ) {
        context.enqueue(object: object, storage: self) { context in
            Self.send(change, isEqualWrite: isEqualWrite, to: subscribers, object: object, on: context)
        }
    }

    @inlinable
    @inline(__always)
    static func send(
        _ change: ObservedChange<Value>, isEqualWrite: Bool, to subscribers: [Subscriber], object: AnyObject,
        on context: ThreadContext
    ) {
        for subscriber in subscribers where !isEqualWrite || subscriber.notifiesEqualWrites {
            subscriber.delivery.guardedCall(change, object, on: context)
        }
    }

    /// Applies `mutation` under the lock and notifies the changes it returns, in order.
    ///
    /// With prior observers outside any handler, `mutation` first runs on a copy to learn the changes,
    /// their prior notifications are delivered, then it runs again on the stored value.
    @usableFromInline
    func update(
        of object: AnyObject,
        _ mutation: (inout Value) -> (changes: [ObservedChange<Value>], isEqualWrite: Bool)
    ) {
        typealias Plan = UpdatePlan<Value, Subscriber>
        let context = ThreadContext.current
        let plan: Plan = withState { state in
            if state.priorSubscribers > 0 && !context.isDelivering {
                var copy = state.value
                let (changes, equal) = mutation(&copy)
                return .announce(changes, equal, state.subscribers)
            }
            let (changes, equal) = mutation(&state.value)
            state.version &+= 1
            if state.subscribers.isEmpty || changes.isEmpty {
                return .done(changes)
            }
            return .notify(changes, equal, state.subscribers)
        }
        switch plan {
        case .done:
            // The changes (holding removed elements) are released here, after the lock.
            return
        case .notify(let changes, let equal, let subscribers):
            deliver(changes, isEqualWrite: equal, to: subscribers, object: object, priors: true)
        case .announce(let announced, let equal, let subscribers):
            if !announced.isEmpty {
                deliver(
                    announced.map { $0.prior }, isEqualWrite: equal, to: subscribers, object: object,
                    priors: false)
            }
            let (changes, isEqualWrite, current): ([ObservedChange<Value>], Bool, [Subscriber]) =
                withState { state in
                    let (changes, equal) = mutation(&state.value)
                    state.version &+= 1
                    return (changes, equal, state.subscribers)
                }
            if !current.isEmpty && !changes.isEmpty {
                deliver(
                    changes, isEqualWrite: isEqualWrite, to: current, object: object, priors: false)
            }
        }
    }

    /// Delivers `changes` to `subscribers`; with `priors`, each change is preceded by its prior
    /// notification for the subscribers that want one (the re-entrant case: the store already happened).
    private func deliver(
        _ changes: [ObservedChange<Value>],
        isEqualWrite: Bool,
        to subscribers: [Subscriber],
        object: AnyObject,
        priors: Bool
    ) {
        let work = { (context: ThreadContext) in
            for change in changes {
                if priors {
                    let prior = change.prior
                    for subscriber in subscribers
                    where subscriber.wantsPrior && (!isEqualWrite || subscriber.notifiesEqualWrites) {
                        subscriber.delivery.guardedCall(prior, object, on: context)
                    }
                }
                for subscriber in subscribers
                where (!change.isPrior || subscriber.wantsPrior) && (!isEqualWrite || subscriber.notifiesEqualWrites) {
                    subscriber.delivery.guardedCall(change, object, on: context)
                }
            }
        }
        let context = ThreadContext.current
        if context.isDelivering {
            context.enqueue(object: object, storage: self, work)
            return
        }
        context.beginDelivery()
        work(context)
        context.endDelivery()
    }

    // MARK: Subscribing

    /// Registers a direct observation; returns its id, its `Delivery` (what `Hazards.waitUntilNotCalled`
    /// waits for) and the value at the time of registration.
    func subscribe(
        wantsPrior: Bool, _ deliver: @escaping (ObservedChange<Value>, AnyObject, ThreadContext) -> Void
    ) -> (id: UInt64, delivery: Delivery, value: Value) {
        let id = nextSubscriptionID.add(1, ordering: .relaxed).oldValue
        let subscriber = Subscriber(id: id, wantsPrior: wantsPrior, notifiesEqualWrites: false, deliver: deliver)
        return withState { state in
            state.subscribers.append(subscriber)
            if wantsPrior {
                state.priorSubscribers += 1
            }
            return (id, subscriber.delivery, state.value)
        }
    }

    /// Removes a subscription; unknown ids are ignored. The removed subscriber is closed (a call of it
    /// that has not started will not start) and released once no thread is calling it; with
    /// `waitingForCalls`, this returns only then (see `Hazards.release`). Returns whether it was found.
    @discardableResult
    func removeSubscriber(_ id: UInt64, waitingForCalls: Bool) -> Bool {
        let removed: Delivery? = withState { state in
            guard let index = state.subscribers.firstIndex(where: { $0.id == id }) else { return nil }
            if state.subscribers[index].wantsPrior {
                state.priorSubscribers -= 1
            }
            let delivery = state.subscribers.remove(at: index).delivery
            delivery.closed.store(true, ordering: .sequentiallyConsistent)
            return delivery
        }
        guard let removed else { return false }
        Hazards.release(removed, waitingForCalls: waitingForCalls)
        return true
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
    func addLink(_ link: any ChainLinkTarget, wantsPrior: Bool, since version: UInt64) -> (id: UInt64, changed: Bool) {
        let id = nextSubscriptionID.add(1, ordering: .relaxed).oldValue
        // `link` is held weakly: a link removed while another thread calls it is released later (see
        // `Hazards.release`), and must not keep its observation alive until then.
        let subscriber = Subscriber(id: id, wantsPrior: wantsPrior, notifiesEqualWrites: true) {
            [weak link] change, _, _ in
            if !change.isPrior {
                link?.linkDidChange()
            }
        }
        return withState { state in
            state.subscribers.append(subscriber)
            if wantsPrior {
                state.priorSubscribers += 1
            }
            return (id, state.version != version)
        }
    }
}

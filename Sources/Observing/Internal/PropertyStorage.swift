import Foundation
import Synchronization
import ThreadSanitizerSupport

/// A storage seen without its value type, for chained key paths.
protocol TrackableStorage: AnyObject, Sendable {
    /// Registers `link` to be told of every change (prior ones too if `wantsPrior`), and returns the
    /// subscription id and whether the storage changed since `version`.
    func addLink(_ link: any ChainLinkTarget, wantsPrior: Bool, since version: UInt64) -> (id: UInt64, changed: Bool)
    /// Removes a subscription; unknown ids are ignored.
    func removeSubscriber(_ id: UInt64)
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

        /// Called with the change, the object and the delivering thread's context.
        @inlinable
        var deliver: (ObservedChange<Value>, AnyObject, ThreadContext) -> Void {
            delivery.call
        }

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
    /// reference (see `setValue`).
    @usableFromInline
    final class Delivery {
        @usableFromInline let call: (ObservedChange<Value>, AnyObject, ThreadContext) -> Void

        init(_ call: @escaping (ObservedChange<Value>, AnyObject, ThreadContext) -> Void) {
            self.call = call
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

    @usableFromInline
    init(_ value: Value, isEqual: ((Value, Value) -> Bool)?) {
        self.state = State(value: value)
        self.isEqual = isEqual
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
    /// The common case (no prior observer) is inlined into the model's setter, where `Value` is
    /// concrete: one lock to store the value and take the subscriber list (a copy-on-write array, so
    /// taking it is one retain), then the handlers are called after the lock with no allocation. The
    /// rare cases (prior observers, a write made inside a handler) go through out-of-line paths.
    @inlinable
    func setValue(_ newValue: Value, of object: AnyObject) {
        // `subscribers` is `nil` when there are none, so that a write nobody observes does not retain
        // and release the (empty) array.
        let stored: (old: Value, subscribers: [Subscriber]?)? = withState { state in
            if state.priorSubscribers != 0 {
                return nil
            }
            var old = newValue
            swap(&old, &state.value)
            state.version &+= 1
            return (old, state.subscribers.isEmpty ? nil : state.subscribers)
        }
        // `consume`: the array moves out of `stored` instead of being retained a second time.
        guard let (old, subscribersIfAny) = consume stored else {
            announceAndSet(newValue, of: object)
            return
        }
        guard let subscribers = consume subscribersIfAny else {
            // `old` is released here, after the lock: its deinit may use this storage.
            return
        }
        let isEqualWrite = isEqual?(old, newValue) ?? false
        let change = ObservedChange(kind: .setting, oldValue: old, newValue: newValue)
        // The calling thread's context, not retained: the thread-local slot holds it until this thread
        // exits, which cannot happen during this call. Each use below is a small closure that the
        // compiler inlines (one large closure would not be, and would retain what it captures).
        let context = Unmanaged<ThreadContext>.fromOpaque(ThreadContext.currentPointer())
        if _slowPath(context._withUnsafeGuaranteedRef { $0.isDelivering }) {
            // A write made by a handler: stored above, delivered after the current handler (O8).
            context._withUnsafeGuaranteedRef {
                enqueueSend(change, isEqualWrite: isEqualWrite, to: subscribers, object: object, on: $0)
            }
            return
        }
        context._withUnsafeGuaranteedRef { $0.isDelivering = true }
        // Each subscriber's `Delivery` is called through an unretained reference, read from the array's
        // buffer. Why that is safe: `subscribers` holds a reference to that buffer until this function
        // returns, and the buffer is never mutated meanwhile (the storage's own array shares it, so any
        // change there copies it first), so every `Delivery` in it stays alive. The read itself is
        // a load of the reference's bits as an `Unmanaged` (same layout, trivial, no retain).
        let deliveryOffset = MemoryLayout<Subscriber>.offset(of: \Subscriber.delivery)!
        subscribers.withUnsafeBufferPointer { buffer in
            guard let first = buffer.baseAddress else { return }
            let base = UnsafeRawPointer(first)
            for index in buffer.indices where !isEqualWrite || buffer[index].notifiesEqualWrites {
                let delivery = (base + index * MemoryLayout<Subscriber>.stride + deliveryOffset)
                    .load(as: Unmanaged<Delivery>.self)
                delivery._withUnsafeGuaranteedRef { delivery in
                    context._withUnsafeGuaranteedRef { delivery.call(change, object, $0) }
                }
            }
        }
        context._withUnsafeGuaranteedRef { $0.endDelivery() }
    }

    /// `setValue` with prior observers: their prior notification comes before the store.
    @usableFromInline
    @inline(never)
    func announceAndSet(_ newValue: Value, of object: AnyObject) {
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
            subscriber.deliver(change, object, context)
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
                        subscriber.deliver(prior, object, context)
                    }
                }
                for subscriber in subscribers
                where (!change.isPrior || subscriber.wantsPrior) && (!isEqualWrite || subscriber.notifiesEqualWrites) {
                    subscriber.deliver(change, object, context)
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

    /// Registers a direct observation; returns its id and the value at the time of registration.
    func subscribe(
        wantsPrior: Bool, _ deliver: @escaping (ObservedChange<Value>, AnyObject, ThreadContext) -> Void
    ) -> (id: UInt64, value: Value) {
        let id = nextSubscriptionID.add(1, ordering: .relaxed).oldValue
        let subscriber = Subscriber(id: id, wantsPrior: wantsPrior, notifiesEqualWrites: false, deliver: deliver)
        return withState { state in
            state.subscribers.append(subscriber)
            if wantsPrior {
                state.priorSubscribers += 1
            }
            return (id, state.value)
        }
    }

    func removeSubscriber(_ id: UInt64) {
        withState { state in
            guard let index = state.subscribers.firstIndex(where: { $0.id == id }) else { return }
            if state.subscribers[index].wantsPrior {
                state.priorSubscribers -= 1
            }
            state.subscribers.remove(at: index)
        }
    }

    /// The number of registered subscribers (diagnostics and tests).
    var subscriberCount: Int {
        withState { $0.subscribers.count }
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
        let subscriber = Subscriber(id: id, wantsPrior: wantsPrior, notifiesEqualWrites: true) { change, _, _ in
            if !change.isPrior {
                link.linkDidChange()
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

import Locking
import Observation
import Synchronization

/// The changes one write made: usually one, several for a diffed array assignment. Never copied (nor its
/// notification): specialized generic code would copy them through their type's metadata.
@usableFromInline
enum Changes<Value>: ~Copyable {
    case none
    case one(ObservedChange<Value>)
    /// Any number of changes (a diff's).
    case many([ObservedChange<Value>])

    /// The change of `.one` (nil otherwise), and whether there is none.
    @inlinable
    var single: (change: ObservedChange<Value>?, isEmpty: Bool) {
        switch self {
        case .none: (nil, true)
        case .one(let change): (change, false)
        case .many(let changes): (nil, changes.isEmpty)
        }
    }

    @inlinable
    func each(_ body: (ObservedChange<Value>) -> Void) {
        switch self {
        case .none: break
        case .one(let change): body(change)
        case .many(let changes): for change in changes { body(change) }
        }
    }
}

/// What one write notifies its direct observers of, in one turn (`version`): its changes, each preceded by its prior
/// notification when `priors` says so, or the prior notifications alone (sent before the store).
@usableFromInline
struct Notification<Value>: ~Copyable {
    @usableFromInline
    enum Priors { case none, interleaved, only }

    @usableFromInline let version: UInt64
    @usableFromInline let changes: Changes<Value>
    @usableFromInline let priors: Priors

    @inlinable
    init(version: UInt64, changes: consuming Changes<Value>, priors: Priors) {
        self.version = version
        self.changes = changes
        self.priors = priors
    }

    /// Always inlined: called out of line, its closure retains the delivering observation on every change.
    @inlinable @inline(__always)
    func each(_ body: (ObservedChange<Value>) -> Void) {
        changes.each { change in
            if priors != .none { body(change.prior) }
            if priors != .only { body(change) }
        }
    }
}

/// An observation of one property, told of each of its changes by version (see `CallGate`).
@usableFromInline
protocol DirectSubscriber<Value>: AnyObject, Sendable {
    associatedtype Value
    var wantsPrior: Bool { get }
    func receive(_ note: borrowing Notification<Value>, from object: AnyObject, _ context: ThreadContext, skip: Bool)
    /// The storage (and so its object) went away.
    func storageWentAway()
}

/// A chained observation, told that a storage on its path was written (see `ChainObservation`).
@usableFromInline
protocol ChainTarget: AnyObject, Sendable {
    func linkChanged(_ context: ThreadContext, skip: Bool)
    func linkWentAway()
}

/// A storage a chain can follow.
@usableFromInline
protocol LinkableStorage: AnyObject, Sendable {
    /// Adds `target`; false when the storage was written since its `writes`-th write (the read is stale).
    func addLink(_ target: any ChainTarget, since writes: UInt64) -> Bool
    func removeLink(_ target: any ChainTarget)
}

/// The storage of one `@Observed` / `@ObservedArray` property: its value and its observers behind one lock.
///
/// A write stores under the lock, takes a version for each notification, copies the observer lists, and calls
/// them after the lock (a handler may read or write the property). The Swift Observation side (O12) is a real
/// `ObservationRegistrar`: a read outside key path evaluation is an `access`; a write that changed the value tells
/// it (`willSet`, `didSet`, after the store and the key-value handlers) once the property was ever read through its
/// getter (no tracking can hold a property never read, so those writes skip it).
@usableFromInline
final class PropertyStorage<Value>: LinkableStorage, Sendable {
    /// How a write of a whole value becomes changes (a class: a write takes it out of the lock as one reference).
    @usableFromInline
    final class Rules {
        /// `==` when `Value` is `Equatable`: an equal write then does not notify.
        @usableFromInline let isEqual: ((Value, Value) -> Bool)?
        /// How a whole assignment is diffed into collection changes (`@ObservedArray` of `Identifiable` elements).
        @usableFromInline let diff: ((Value, Value) -> [ObservedChange<Value>])?

        @usableFromInline
        init(isEqual: ((Value, Value) -> Bool)?, diff: ((Value, Value) -> [ObservedChange<Value>])?) {
            (self.isEqual, self.diff) = (isEqual, diff)
        }

        /// The changes a whole assignment (`raw`, one `.setting`) really makes.
        @inlinable
        func refine(_ raw: consuming Changes<Value>) -> Changes<Value> {
            guard let change = raw.single.change, let old = change.oldValue, let new = change.newValue
            else { return raw }
            if let diff { return .many(diff(old, new)) }
            if let isEqual, isEqual(old, new) { return .none }
            return raw
        }
    }

    @usableFromInline
    struct State {
        @usableFromInline var value: Value
        @usableFromInline let rules: Rules
        /// The last version taken by a notification (direct observers' turns).
        @usableFromInline var version: UInt64 = 0
        /// How many writes were made (chains check their reads against it).
        @usableFromInline var writes: UInt64 = 0
        @usableFromInline var directs: [any DirectSubscriber<Value>] = []
        @usableFromInline var priorObservers = 0
        @usableFromInline var links: [any ChainTarget] = []
        /// The object the storage belongs to, set by its first direct observation (a storage belongs to one object).
        @usableFromInline weak var object: AnyObject?
        @usableFromInline var knowsObject = false
        /// Tells the registrar of a change; made by the first read through the getter (a tracking can only hold a
        /// property read that way), with the property's own key path.
        @usableFromInline var notifyObservation: (@Sendable (ObservationRegistrar, AnyObject) -> Void)?
    }

    // Unchecked sections (`withLockUnchecked`): `Value` may be non-`Sendable`. Such a storage is only reached from
    // the threads that reach its object (`Observed` is `Sendable` only where its value is), and each copy of the
    // value leaves the lock as a copy, as a read of a plain stored property would.
    @usableFromInline let state: LockedValue<State>
    @usableFromInline let registrar = ObservationRegistrar()

    @usableFromInline
    init(
        _ value: Value, isEqual: ((Value, Value) -> Bool)?, diff: ((Value, Value) -> [ObservedChange<Value>])? = nil
    ) {
        state = LockedValue(unchecked: State(value: value, rules: Rules(isEqual: isEqual, diff: diff)))
    }

    deinit {
        let (directs, links) = state.withLockUnchecked { ($0.directs, $0.links) }
        for direct in directs { direct.storageWentAway() }
        for link in links { link.linkWentAway() }
    }

    // MARK: Reads

    /// The value, read through the property's getter: recorded when a key path is being evaluated on this thread,
    /// otherwise a Swift Observation access.
    @inlinable
    func read<Instance: KeyValueObservable>(
        _ instance: Instance, _ keyPath: KeyPath<Instance, Value>,
        _ locator: @autoclosure () -> StorageLocator? = nil
    ) -> Value {
        if ThreadContext.recordingThreads.load(ordering: .relaxed) > 0, let context = ThreadContext.existing,
            !context.recordings.isEmpty
        {
            let (value, writes) = state.withLockUnchecked { ($0.value, $0.writes) }
            context.recordings[context.recordings.count - 1].append(
                TrackedRead(
                    storage: self, object: instance, keyPath: keyPath, writes: writes,
                    locator: context.isLocating && context.recordings[context.recordings.count - 1].isEmpty
                        ? locator() : nil))
            return value
        }
        // The access first, then the value: a write after this read tells the registrar, which holds the tracking.
        registrar.access(instance, keyPath: keyPath)
        return state.withLockUnchecked { state in
            if state.notifyObservation == nil {
                let keyPath = SharedKeyPath(keyPath: keyPath)
                state.notifyObservation = { registrar, object in
                    guard let subject = object as? Instance, let keyPath = keyPath.keyPath as? KeyPath<Instance, Value>
                    else { return }
                    registrar.willSet(subject, keyPath: keyPath)
                    registrar.didSet(subject, keyPath: keyPath)
                }
            }
            return state.value
        }
    }

    /// The value, not recorded and not an access.
    @inlinable
    var untrackedValue: Value {
        state.withLockUnchecked { $0.value }
    }

    // MARK: Writes

    /// Stores `newValue`: notifies unless `Value` is `Equatable` and the value is equal.
    ///
    /// Usually no observer wants prior notifications: one section then checks that, stores and takes whom to tell;
    /// the change is made, and the thread's context looked up, only when someone is told.
    @inlinable
    func set(_ newValue: Value, of instance: some KeyValueObservable, _ keyPath: AnyKeyPath) {
        let taken = state.withLockUnchecked { state -> (old: Value, audience: Audience?)? in
            guard state.priorObservers == 0 else { return nil }
            let old = state.value
            state.value = newValue
            return (old, Self.take(&state, priors: false))
        }
        guard let taken else {
            return write(instance, keyPath, whole: true) { value in
                let old = value
                value = newValue
                return .one(ObservedChange(kind: .setting, oldValue: old, newValue: newValue))
            }
        }
        guard let audience = taken.audience else { return }
        let change = ObservedChange(kind: .setting, oldValue: taken.old, newValue: newValue)
        finish(.one(change), audience, instance, keyPath, whole: true, nil)
    }

    /// Applies `body` to the value and notifies the changes it returns (O5, O6, O8, O11, O12).
    ///
    /// `body` only mutates (it runs under the lock); user code (`==`, an `Identifiable` diff) runs after the lock,
    /// when `whole` says the change is a whole assignment to compare. Each write that has direct observers takes one
    /// version, their turn for it. A prior notification comes before the store when the write is made outside any
    /// handler; a write made inside a handler is stored at once, and its prior notifications come after it.
    @inlinable
    func write(
        _ instance: AnyObject, _ keyPath: AnyKeyPath, whole: Bool = false, _ body: (inout Value) -> Changes<Value>
    ) {
        let context = ThreadContext.existing
        let reentrant = (context?.depth ?? 0) > 0
        if !reentrant { sendPriors(instance, keyPath, whole: whole, body, context) }
        var raw = Changes<Value>.none
        let audience = state.withLockUnchecked { state in
            raw = body(&state.value)
            return Self.take(&state, priors: reentrant && state.priorObservers > 0)
        }
        if let audience { finish(raw, audience, instance, keyPath, whole: whole, context) }
    }

    /// Whom a write tells, taken under the lock: its version (its direct observers' turn), the observers, whether its
    /// prior notifications come after the store, how its changes are refined, and the registrar's call.
    @usableFromInline
    typealias Audience = (
        version: UInt64, directs: [any DirectSubscriber<Value>], links: [any ChainTarget], rules: Rules, priors: Bool,
        notify: (@Sendable (ObservationRegistrar, AnyObject) -> Void)?
    )

    /// Counts a write made under the lock and takes its audience: nil when nobody is told.
    @inlinable
    static func take(_ state: inout State, priors: Bool) -> Audience? {
        state.writes &+= 1
        if state.directs.isEmpty && state.links.isEmpty && state.notifyObservation == nil { return nil }
        let version = state.directs.isEmpty ? 0 : state.version &+ 1
        state.version = max(state.version, version)
        return (version, state.directs, state.links, state.rules, priors, state.notifyObservation)
    }

    /// Refines the changes of a write and tells its audience, after the lock.
    @inlinable
    func finish(
        _ raw: consuming Changes<Value>, _ audience: Audience, _ instance: AnyObject, _ keyPath: AnyKeyPath,
        whole: Bool, _ context: ThreadContext?
    ) {
        let notification = Notification(
            version: audience.version, changes: whole ? audience.rules.refine(raw) : raw,
            priors: audience.priors ? .interleaved : .none)
        if !audience.directs.isEmpty || !audience.links.isEmpty {
            deliver(notification, audience.directs, audience.links, instance, keyPath, context)
        }
        if !notification.changes.single.isEmpty { audience.notify?(registrar, instance) }
    }

    /// Sends the prior notifications of a write about to be made, when some observer wants them: computes the
    /// changes on a copy of the value, takes a version for them and delivers them.
    @inlinable
    func sendPriors(
        _ instance: AnyObject, _ keyPath: AnyKeyPath, whole: Bool, _ body: (inout Value) -> Changes<Value>,
        _ context: ThreadContext?
    ) {
        guard
            let (version, copy, directs, rules) = state.withLockUnchecked({
                state -> (UInt64, Value, [any DirectSubscriber<Value>], Rules)? in
                guard state.priorObservers > 0 else { return nil }
                state.version &+= 1
                return (state.version, state.value, state.directs, state.rules)
            })
        else { return }
        var value = copy
        let raw = body(&value)
        let notification = Notification(version: version, changes: whole ? rules.refine(raw) : raw, priors: .only)
        deliver(notification, directs, [], instance, keyPath, context)
    }

    /// Delivers `notification` to `directs` (each in its turn) and tells the chains following this storage: at once,
    /// or after the running handler when called inside one (O8).
    @inlinable
    func deliver(
        _ notification: borrowing Notification<Value>, _ directs: [any DirectSubscriber<Value>],
        _ links: [any ChainTarget], _ instance: AnyObject, _ keyPath: AnyKeyPath, _ context: ThreadContext?
    ) {
        let context = context ?? ThreadContext.current
        if context.depth > 0 {
            // Queued for later, so taken out of the notification (which is never copied) as an array.
            var changes: [ObservedChange<Value>] = []
            notification.changes.each { changes.append($0) }
            let (version, priors) = (notification.version, notification.priors)
            context.enqueue(object: instance, storage: self) { skip in
                let notification = Notification(version: version, changes: .many(changes), priors: priors)
                Self.deliver(notification, directs, links, instance, context, skip: skip)
            }
            return
        }
        context.frame { Self.deliver(notification, directs, links, instance, context, skip: false) }
    }

    @inlinable
    static func deliver(
        _ notification: borrowing Notification<Value>, _ directs: [any DirectSubscriber<Value>],
        _ links: [any ChainTarget], _ object: AnyObject, _ context: ThreadContext, skip: Bool
    ) {
        for direct in directs {
            direct.receive(notification, from: object, context, skip: skip)
        }
        for link in links {
            link.linkChanged(context, skip: skip)
        }
    }

    // MARK: Subscribers

    /// Adds a direct observer; returns the version of its first turn and, when `initial`, the value its initial call
    /// carries (the value at that version).
    @inlinable
    func addDirect(_ subscriber: any DirectSubscriber<Value>, of object: AnyObject, initial: Bool)
        -> (turn: UInt64, value: Value?)
    {
        state.withLockUnchecked { state in
            state.directs.append(subscriber)
            if !state.knowsObject { (state.object, state.knowsObject) = (object, true) }
            if subscriber.wantsPrior { state.priorObservers += 1 }
            // The initial call takes the current version as its turn; changes take the next ones.
            return initial ? (state.version, state.value) : (state.version &+ 1, nil)
        }
    }

    /// The object the storage belongs to, while it exists (known once the storage was observed directly).
    @usableFromInline
    var object: AnyObject? {
        state.withLockUnchecked { $0.object }
    }

    @inlinable
    func removeDirect(_ subscriber: any DirectSubscriber<Value>) {
        state.withLockUnchecked { state in
            guard let index = state.directs.firstIndex(where: { $0 === subscriber }) else { return }
            state.directs.remove(at: index)
            if subscriber.wantsPrior { state.priorObservers -= 1 }
        }
    }

    @usableFromInline
    func addLink(_ target: any ChainTarget, since writes: UInt64) -> Bool {
        state.withLockUnchecked { state in
            state.links.append(target)
            return state.writes == writes
        }
    }

    @usableFromInline
    func removeLink(_ target: any ChainTarget) {
        state.withLockUnchecked { state in
            if let index = state.links.firstIndex(where: { $0 === target }) {
                state.links.remove(at: index)
            }
        }
    }
}

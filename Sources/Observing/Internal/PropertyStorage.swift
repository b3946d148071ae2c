import Observation

/// What one write notifies its direct observers of, in one turn (`version`): its changes, each preceded by its prior
/// notification when `priors` says so, or the prior notifications alone (sent before the store).
@usableFromInline struct Notification<Value> {
    @usableFromInline enum Priors { case none, interleaved, only }

    let version: UInt64
    let changes: [ObservedChange<Value>]
    let priors: Priors

    @usableFromInline init(version: UInt64, changes: [ObservedChange<Value>], priors: Priors) {
        (self.version, self.changes, self.priors) = (version, changes, priors)
    }
}

/// An observation of one property, told of each of its changes by version (see `CallGate`). Not generic over the
/// value, so that a storage's list of them is one concrete type: adding and removing one, in code not compiled for the
/// property's type, then looks no type up at run time.
@usableFromInline protocol DirectSubscriber: AnyObject, Sendable {
    var wantsPrior: Bool { get }
    /// `note` is of the observed property's value type, the subscriber's own (a storage holds only its own observers).
    func receive<Value>(_ note: Notification<Value>, from object: AnyObject, _ context: ThreadContext, skip: Bool)
    /// The storage (and so its object) went away.
    func storageWentAway()
}

/// A chained observation, told that a storage on its path was written (see `ChainObservation`).
@usableFromInline protocol ChainTarget: AnyObject, Sendable {
    func linkChanged(_ context: ThreadContext, skip: Bool)
    func linkWentAway()
}

/// A storage a chain can follow.
@usableFromInline protocol LinkableStorage: AnyObject, Sendable {
    /// Adds `target`; false when the storage was written since its `writes`-th write (the read is stale).
    func addLink(_ target: any ChainTarget, since writes: UInt64) -> Bool
    func removeLink(_ target: any ChainTarget)
}

/// Who is told of one property's writes, and the counts they are told by. Not generic (it holds no value), so adding
/// and removing an observer runs code compiled once, which looks no type up at run time.
@usableFromInline struct StorageBook {
    /// The last version taken by a notification (direct observers' turns).
    @usableFromInline var version: UInt64 = 0
    /// How many writes were made (chains check their reads against it).
    @usableFromInline var writes: UInt64 = 0
    @usableFromInline var directs: [any DirectSubscriber] = []
    @usableFromInline var priorObservers = 0
    @usableFromInline var links: [any ChainTarget] = []
    /// The object the storage belongs to, set by its first direct observation.
    weak var object: AnyObject?

    /// Adds a direct observer; returns the current version.
    mutating func add(_ subscriber: any DirectSubscriber, of object: AnyObject) -> UInt64 {
        directs.append(subscriber)
        if self.object == nil { self.object = object }
        if subscriber.wantsPrior { priorObservers += 1 }
        return version
    }
}

/// The storage of one `@Observed` / `@ObservedArray` property: its value behind one lock, its observers (its book)
/// behind another. Whoever holds both takes the value's lock first.
///
/// A write stores under the value's lock and, in the same section, takes a version for its direct observers (their
/// turn) and copies the observer lists from the book; it calls them after the locks. Swift Observation (O12): a read
/// outside key path evaluation is the registrar's `access`; a write that changed the value calls `willSet` and `didSet`
/// once the property was read through its getter (no tracking holds a property never read). Reads and writes are
/// `@inlinable`: compiled for the property's type where it is declared, a write looks up no generic metadata
/// (unspecialized, it cost 6x as much).
@usableFromInline final class PropertyStorage<Value>: LinkableStorage, Sendable {
    /// How a whole assignment becomes changes: `isEqual` (`==` when `Value` is `Equatable`: an equal assignment does
    /// not notify) and `diff` (into collection changes, for `@ObservedArray` of `Identifiable` elements).
    @usableFromInline struct Rules {
        @usableFromInline let isEqual: ((Value, Value) -> Bool)?
        @usableFromInline let diff: ((Value, Value) -> [ObservedChange<Value>])?

        /// The changes a whole assignment (one `.setting`) really makes.
        @inlinable func refine(_ changes: [ObservedChange<Value>]) -> [ObservedChange<Value>] {
            guard changes.count == 1, let old = changes[0].oldValue, let new = changes[0].newValue else {
                return changes
            }
            if let diff { return diff(old, new) }
            if let isEqual, isEqual(old, new) { return [] }
            return changes
        }
    }

    @usableFromInline struct State {
        @usableFromInline var value: Value
        @usableFromInline let rules: Rules
        /// The key path of the first read through the getter: what the registrar is told of writes with.
        @usableFromInline var readKeyPath: AnyKeyPath?
    }

    /// Whom a write tells, taken under the lock; `priors`: its prior notifications come after the store (a write made
    /// inside a handler).
    @usableFromInline typealias Audience = (
        version: UInt64, directs: [any DirectSubscriber], links: [any ChainTarget], rules: Rules, priors: Bool,
        readKeyPath: AnyKeyPath?
    )

    @usableFromInline let state: Guarded<State>
    @usableFromInline let book = Guarded(StorageBook())
    @usableFromInline let registrar = ObservationRegistrar()

    @usableFromInline init(
        _ value: Value, isEqual: ((Value, Value) -> Bool)?, diff: ((Value, Value) -> [ObservedChange<Value>])? = nil
    ) {
        state = Guarded(State(value: value, rules: Rules(isEqual: isEqual, diff: diff)))
    }

    deinit {
        let (directs, links) = book.with { ($0.directs, $0.links) }
        for direct in directs { direct.storageWentAway() }
        for link in links { link.linkWentAway() }
    }

    // MARK: Reads

    /// The value, read through the property's getter: recorded when a key path is being evaluated on this thread,
    /// otherwise a Swift Observation access. `shared`: `instance` is known to be `Sendable`.
    @inlinable func read<Instance: KeyValueObservable>(
        _ instance: Instance, _ keyPath: KeyPath<Instance, Value>, shared: Bool = false
    ) -> Value {
        if let context = ThreadContext.evaluating {
            let (value, writes) = state.with { state in (state.value, book.with { $0.writes }) }
            context.add(self, instance, keyPath, writes: writes, shared: shared)
            return value
        }
        // The access first, then the value: a write after this read tells the registrar, which holds the tracking.
        registrar.access(instance, keyPath: keyPath)
        return state.with { state in
            if state.readKeyPath == nil { state.readKeyPath = keyPath }
            return state.value
        }
    }

    /// The value, not recorded and not an access.
    var untrackedValue: Value { state.with { $0.value } }

    // MARK: Writes

    /// Stores `newValue`: notifies unless `Value` is `Equatable` and the value is equal.
    ///
    /// When no observer wants prior notifications (the usual case) it is one lock section, which keeps a write nobody
    /// observes as cheap as an `@Observable` one; the change is made only when someone is told.
    @inlinable func set<Instance: KeyValueObservable>(_ newValue: Value, of instance: Instance) {
        var audience: Audience?
        let old = state.with { state -> Value? in
            let stored = book.with { book in
                guard book.priorObservers == 0 else { return false }
                audience = Self.take(&book, &state, priors: false)
                return true
            }
            guard stored else { return nil }
            defer { state.value = newValue }
            return state.value
        }
        guard let old else {
            return write(instance, whole: true) { value in
                let old = value
                value = newValue
                return [ObservedChange(kind: .setting, oldValue: old, newValue: newValue)]
            }
        }
        guard let audience else { return }
        notify(
            audience.rules.refine([ObservedChange(kind: .setting, oldValue: old, newValue: newValue)]), audience,
            instance)
    }

    /// Applies `body` to the value and notifies the changes it returns (O5, O6, O8, O11, O12).
    ///
    /// `body` only mutates (it runs under the lock); user code (`==`, an `Identifiable` diff) runs after the lock, when
    /// `whole` says the change is a whole assignment to compare. A prior notification comes before the store when the
    /// write is made outside any handler; a write made inside one is stored at once, its priors after it.
    @usableFromInline func write<Instance: KeyValueObservable>(
        _ instance: Instance, whole: Bool = false, _ body: (inout Value) -> [ObservedChange<Value>]
    ) {
        let context = ThreadContext.existing
        let reentrant = (context?.depth ?? 0) > 0
        if !reentrant { sendPriors(instance, whole: whole, body, context) }
        var changes: [ObservedChange<Value>] = []
        let audience = state.with { state in
            changes = body(&state.value)
            return book.with { Self.take(&$0, &state, priors: reentrant && $0.priorObservers > 0) }
        }
        guard let audience else { return }
        notify(whole ? audience.rules.refine(changes) : changes, audience, instance, context)
    }

    /// Counts a write made holding both locks and takes its audience: nil when nobody is told.
    @inlinable static func take(_ book: inout StorageBook, _ state: inout State, priors: Bool) -> Audience? {
        book.writes &+= 1
        if book.directs.isEmpty && book.links.isEmpty && state.readKeyPath == nil { return nil }
        if !book.directs.isEmpty { book.version &+= 1 }
        return (book.version, book.directs, book.links, state.rules, priors, state.readKeyPath)
    }

    /// Tells the audience of a write its `changes`, after the lock; then Swift Observation.
    @inlinable func notify<Instance: KeyValueObservable>(
        _ changes: [ObservedChange<Value>], _ audience: Audience, _ instance: Instance, _ context: ThreadContext? = nil
    ) {
        if !audience.directs.isEmpty || !audience.links.isEmpty {
            let note = Notification(
                version: audience.version, changes: changes, priors: audience.priors ? .interleaved : .none)
            deliver(instance, context, Self.sending(note, audience.directs, audience.links, instance))
        }
        if !changes.isEmpty, let readKeyPath = audience.readKeyPath,
            let keyPath = readKeyPath as? KeyPath<Instance, Value>
        {
            registrar.willSet(instance, keyPath: keyPath)
            registrar.didSet(instance, keyPath: keyPath)
        }
    }

    /// Sends the prior notifications of a write about to be made, when some observer wants them: computes the changes
    /// on a copy of the value, takes a version for them and delivers them.
    private func sendPriors(
        _ instance: AnyObject, whole: Bool, _ body: (inout Value) -> [ObservedChange<Value>], _ context: ThreadContext?
    ) {
        let taken = state.with { state -> (UInt64, Value, [any DirectSubscriber], Rules)? in
            book.with { book in
                guard book.priorObservers > 0 else { return nil }
                book.version &+= 1
                return (book.version, state.value, book.directs, state.rules)
            }
        }
        guard let (version, copy, directs, rules) = taken else { return }
        var value = copy
        let changes = body(&value)
        let note = Notification(version: version, changes: whole ? rules.refine(changes) : changes, priors: .only)
        deliver(instance, context, Self.sending(note, directs, [], instance))
    }

    /// Runs `send` (made by `sending`): at once, or after the running handler when called inside one (O8).
    @usableFromInline func deliver(
        _ instance: AnyObject, _ context: ThreadContext?, _ send: @escaping (ThreadContext, _ skip: Bool) -> Void
    ) {
        let context = context ?? ThreadContext.current
        if context.depth > 0 {
            context.enqueue(object: instance, storage: self) { skip in send(context, skip) }
        } else {
            context.frame { send(context, false) }
        }
    }

    /// What delivers `note` to `directs` (each in its turn) and tells the chains following this storage. Made where
    /// the write is compiled for the property's type: looping over `directs` in code not compiled for it looks up the
    /// array's type at run time.
    @inlinable static func sending(
        _ note: Notification<Value>, _ directs: [any DirectSubscriber], _ links: [any ChainTarget],
        _ instance: AnyObject
    ) -> (ThreadContext, _ skip: Bool) -> Void {
        { context, skip in
            for direct in directs { direct.receive(note, from: instance, context, skip: skip) }
            for link in links { link.linkChanged(context, skip: skip) }
        }
    }

    // MARK: Subscribers

    /// Adds a direct observer; returns the version of its first turn and, when `initial`, sets `value` to the value its
    /// initial call carries (the value at that version).
    func addDirect(_ subscriber: any DirectSubscriber, of object: AnyObject, initial: Bool, value: inout Value?)
        -> UInt64
    {
        // The initial call takes the current version as its turn, with the value at it; changes take the next ones.
        guard initial else { return book.with { $0.add(subscriber, of: object) } &+ 1 }
        return state.with { state in
            value = state.value
            return book.with { $0.add(subscriber, of: object) }
        }
    }

    /// The object the storage belongs to, while it exists (known once the storage was observed directly).
    var object: AnyObject? { book.with { $0.object } }

    func removeDirect(_ subscriber: any DirectSubscriber) {
        book.with { book in
            guard let index = book.directs.firstIndex(where: { $0 === subscriber }) else { return }
            book.directs.remove(at: index)
            if subscriber.wantsPrior { book.priorObservers -= 1 }
        }
    }

    @usableFromInline func addLink(_ target: any ChainTarget, since writes: UInt64) -> Bool {
        book.with { book in
            book.links.append(target)
            return book.writes == writes
        }
    }

    @usableFromInline func removeLink(_ target: any ChainTarget) {
        book.with { book in
            if let index = book.links.firstIndex(where: { $0 === target }) { book.links.remove(at: index) }
        }
    }
}

/// An owner-scoped observer: the role of FBKVOController (guarantee O2).
///
/// ```swift
/// @MainActor final class CellViewModel {
///     private(set) var highlighted = false
///     private lazy var observer = KeyValueObserver(owner: self)
///
///     func willDisplay(_ canvas: Canvas) {    // a `Sendable` model (see `Observed`'s subscripts)
///         observer.observeOnMainActor(canvas, \.isSelected, options: [.initial, .new]) {
///             (viewModel: CellViewModel, canvas, change) in viewModel.highlighted = change.newValue!
///         }
///     }
/// }
/// ```
///
/// - Each (object, key path) is observed at most once: a second `observe` of the same pair is ignored while the first
///   is active. A pair is keyed by the key path itself (equal key paths are one pair): a computed property and the
///   stored one it reads are two pairs, and so are `\Square.radius` and `\Circle.radius`, since the subclass may
///   override the property.
/// - `unobserve` and `unobserveAll()` are idempotent; unobserving something never observed does nothing.
/// - Everything ends when the observer is released, and handlers stop being called once the owner is gone, each on its
///   own. Neither the owner nor the observed objects are retained; the pairs are entries of the one registry of live
///   observations that ``ObservationDiagnostics`` lists.
/// - Creating or using it for the first time inside a `deinit` (a `lazy var` touched first there) is safe: with its
///   owner already going away it observes nothing.
///
/// Handlers are `@Sendable` because they run on the thread that writes the property. A handler that takes the owner as
/// its first parameter gets it for the call (held weakly in between), so it captures nothing; such an owner is
/// `Sendable` (a `@MainActor` view-model is), since the call hands it to the writing thread or the main actor.
public final class KeyValueObserver: Sendable, CustomDebugStringConvertible {
    private let owner: OwnerDescription?

    /// Creates an observer whose observations end when it or `owner` goes away.
    ///
    /// - Parameter owner: the object the observations belong to (not retained); `nil` for an observer scoped only by
    ///   its own lifetime.
    public init(owner: AnyObject? = nil) {
        self.owner = owner.map {
            OwnerDescription(
                typeName: String(reflecting: type(of: $0)), identifier: ObjectIdentifier($0), link: WeakReference($0))
        }
    }

    deinit {
        unobserveAll()
    }

    /// Observes `keyPath` of `object` on the mutating thread, unless that pair is already observed.
    ///
    /// The observation is registered before the `.initial` call, so that call may `unobserve` it.
    /// - Returns: `true` if a new observation started; `false` if the pair was already observed or the owner is gone.
    @discardableResult
    public func observe<Object: KeyValueObservable, Value>(
        _ object: Object,
        _ keyPath: KeyPath<Object, Value> & Sendable,
        options: ObservationOptions = [.old, .new],
        _ handler: @escaping @Sendable (Object, ObservedChange<Value>) -> Void
    ) -> Bool {
        let link = owner?.link
        return start(object, keyPath, options: options, delivery: .mutatingThread, shared: false) {
            Caller { object, change in if link == nil || link?.object != nil { handler(object, change) } }
        }
    }

    /// Observes `keyPath` of `object` on the mutating thread with a handler that receives the owner (held weakly,
    /// passed in for the call), unless that pair is already observed.
    ///
    /// - Precondition: the observer was made with an owner of type `Owner`.
    /// - Returns: `true` if a new observation started.
    @discardableResult
    public func observe<Owner: AnyObject & Sendable, Object: KeyValueObservable, Value>(
        _ object: Object,
        _ keyPath: KeyPath<Object, Value> & Sendable,
        options: ObservationOptions = [.old, .new],
        _ handler: @escaping @Sendable (Owner, Object, ObservedChange<Value>) -> Void
    ) -> Bool {
        guard let link = ownerLink(Owner.self) else { return false }
        return start(object, keyPath, options: options, delivery: .mutatingThread, shared: false) {
            Caller { object, change in
                if let owner = link.object as? Owner { handler(owner, object, change) }
            }
        }
    }

    /// Observes `keyPath` of `object` with the chosen delivery (O9), unless that pair is already observed.
    /// - Returns: `true` if a new observation started.
    @discardableResult
    public func observe<Object: KeyValueObservable & Sendable, Value: Sendable>(
        _ object: Object,
        _ keyPath: KeyPath<Object, Value> & Sendable,
        options: ObservationOptions = [.old, .new],
        delivery: ObservationDelivery,
        _ handler: @escaping @Sendable (Object, ObservedChange<Value>) -> Void
    ) -> Bool {
        let link = owner?.link
        return start(object, keyPath, options: options, delivery: delivery, shared: true) {
            Caller(delivery) { object, change in if link == nil || link?.object != nil { handler(object, change) } }
        }
    }

    /// Observes `keyPath` of `object` with a main-actor handler that receives the owner (a `@MainActor` view-model,
    /// held weakly, passed in for the call): called at once for changes made on the main actor, otherwise on the main
    /// queue, in order.
    ///
    /// - Precondition: the observer was made with an owner of type `Owner`.
    /// - Returns: `true` if a new observation started.
    @discardableResult
    public func observeOnMainActor<Owner: AnyObject & Sendable, Object: KeyValueObservable & Sendable, Value: Sendable>(
        _ object: Object,
        _ keyPath: KeyPath<Object, Value> & Sendable,
        options: ObservationOptions = [.old, .new],
        _ handler: @escaping @MainActor (Owner, Object, ObservedChange<Value>) -> Void
    ) -> Bool {
        guard let link = ownerLink(Owner.self) else { return false }
        let call = mainActorHandler { (object: Object, change: ObservedChange<Value>) in
            if let owner = link.object as? Owner { handler(owner, object, change) }
        }
        return start(object, keyPath, options: options, delivery: .mainActor, shared: true) { Caller(.mainActor, call) }
    }

    /// The owner's weak link, checked to be an `Owner`; nil (nothing observed) when the owner is gone.
    private func ownerLink<Owner>(_: Owner.Type) -> WeakReference? {
        guard let owner else { preconditionFailure("KeyValueObserver: a handler taking the owner needs an owner") }
        guard let object = owner.link.object else { return nil }
        precondition(object is Owner, "KeyValueObserver: the owner is a \(type(of: object)), not a \(Owner.self)")
        return owner.link
    }

    /// Registers the observation unless the pair is observed already, filing it under its pair before the initial call
    /// (`shared` as `register` takes it).
    private func start<Object: KeyValueObservable, Value>(
        _ object: Object, _ keyPath: KeyPath<Object, Value> & Sendable, options: ObservationOptions,
        delivery: ObservationDelivery, shared: Bool, caller: () -> Caller<Object, Value>
    ) -> Bool {
        if let owner, owner.link.object == nil {
            unobserveAll()
            return false
        }
        // A pair already observed is refused before its key path is evaluated (which runs getters). A storage found
        // without evaluating is observed and then refused by the filing, which costs less than asking first.
        let registered = object.register(
            keyPath, options: options, delivery: delivery, shared: shared, caller: caller(), owner: owner,
            mayEvaluate: { !isObserving(object, keyPath) },
            file: { Registry.insert($0, pair: pair(ObjectIdentifier(object), keyPath)) })
        return registered != nil
    }

    private func pair(_ object: ObjectIdentifier, _ keyPath: AnyKeyPath & Sendable) -> Registry.Pair {
        Registry.Pair(observer: ObjectIdentifier(self), object: object, keyPath: keyPath)
    }

    /// Ends the observation of `keyPath` of `object`; does nothing if there is none.
    ///
    /// Returns whether an active observation ended (one that ``isObserving(_:_:)`` would have reported): false when the
    /// pair was not observed, or its observation had already ended (its object or owner went away).
    @discardableResult
    public func unobserve<Object: KeyValueObservable, Value>(
        _ object: Object, _ keyPath: KeyPath<Object, Value> & Sendable
    ) -> Bool {
        guard let observation = Registry.removeObservation(for: pair(ObjectIdentifier(object), keyPath)) else {
            return false
        }
        let wasActive = observation.isActive
        observation.end(filed: false)
        return wasActive
    }

    /// Ends every observation of `object`; does nothing if there is none.
    public func unobserve(_ object: AnyObject) {
        for observation in Registry.removeObservations(of: ObjectIdentifier(self), object: ObjectIdentifier(object)) {
            observation.end(filed: false)
        }
    }

    /// Ends every observation; idempotent.
    public func unobserveAll() {
        for observation in Registry.removeObservations(of: ObjectIdentifier(self)) {
            observation.end(filed: false)
        }
    }

    /// Whether `keyPath` of `object` is observed (active: not ended, object and owner alive).
    public func isObserving<Object: KeyValueObservable, Value>(
        _ object: Object, _ keyPath: KeyPath<Object, Value> & Sendable
    ) -> Bool {
        Registry.observation(for: pair(ObjectIdentifier(object), keyPath))?.isActive == true
    }

    /// The number of active observations.
    public var observationCount: Int {
        Registry.observations(of: [ObjectIdentifier(self)], object: nil).count { $0.isActive }
    }

    /// The observer, its owner and its active observations, one per line.
    public var debugDescription: String {
        var first = "KeyValueObserver \(ObjectIdentifier(self))"
        if let owner {
            let state = owner.link.object == nil ? " (gone)" : ""
            first += " owned by \(owner.typeName) \(owner.identifier)\(state)"
        }
        let records = ObservationDiagnostics.liveObservations(registeredBy: self).map {
            "  \($0.objectType) \($0.objectIdentifier) \($0.keyPath)"
        }
        return ([first] + records.sorted()).joined(separator: "\n")
    }
}

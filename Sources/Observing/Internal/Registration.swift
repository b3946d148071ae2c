extension KeyValueObservable {
    /// Registers an observation of `keyPath` and starts it: evaluates the key path once, recording what it reads;
    /// a key path that is one property of this object becomes a `DirectObservation`, any other a
    /// `ChainObservation`. `file` lists it (in the registry) before the `.initial` call, and may refuse it: then it
    /// ends and nil is returned. Notifications of writes made meanwhile on this thread (by a deinit the evaluation
    /// ran, or by the initial handler) are delivered after the initial call. `mayEvaluate` is asked before the key
    /// path is evaluated (not when its storage is found without): false refuses the observation there.
    @inlinable
    func register<Value>(
        _ keyPath: KeyPath<Self, Value>,
        options: ObservationOptions,
        delivery: ObservationDelivery,
        caller: Caller<Self, Value>,
        owner: OwnerDescription? = nil,
        onGone: (@Sendable () -> Void)? = nil,
        mayEvaluate: () -> Bool = { true },
        file: (any AnyObservation) -> Bool = fileUnpaired
    ) -> (any AnyObservation)? {
        let context = ThreadContext.current
        return context.frame {
            // A key path already found to be one property of this very class: its storage is found without
            // evaluating the key path (see `ThreadContext.remember`).
            let located = type(of: self) == Self.self ? context.locateStorage(of: keyPath, in: self) : nil
            if let storage = located as? PropertyStorage<Value> {
                let info = ObservationInfo(self, keyPath, options, delivery, owner)
                return registerDirect(info, keyPath, caller, storage, onGone, file, context)
            }
            guard mayEvaluate() else { return nil }
            return register(keyPath, options, delivery, caller, owner, onGone, file, context)
        }
    }

    /// Registers and starts a `DirectObservation` of `property`, whose storage is `storage` (see `register`).
    @inlinable
    func registerDirect<Value>(
        _ info: consuming ObservationInfo, _ property: AnyKeyPath, _ caller: consuming Caller<Self, Value>,
        _ storage: PropertyStorage<Value>, _ onGone: (@Sendable () -> Void)?, _ file: (any AnyObservation) -> Bool,
        _ context: ThreadContext
    ) -> (any AnyObservation)? {
        let observation = DirectObservation(
            info: info, property: SharedKeyPath(keyPath: property), caller: caller, storage: storage, onGone: onGone)
        return observation.start(root: self, context, file: { file(observation) }) ? observation : nil
    }

    @inlinable
    func register<Value>(
        _ keyPath: KeyPath<Self, Value>, _ options: ObservationOptions, _ delivery: ObservationDelivery,
        _ caller: Caller<Self, Value>, _ owner: OwnerDescription?, _ onGone: (@Sendable () -> Void)?,
        _ file: (any AnyObservation) -> Bool, _ context: ThreadContext
    ) -> (any AnyObservation)? {
        let (value, reads) = context.record(locating: true) { self[keyPath: keyPath] }
        let info = ObservationInfo(self, keyPath, options, delivery, owner)
        if let property = Self.property(keyPath, of: self, value: value, reads: reads),
            let storage = reads[0].storage as? PropertyStorage<Value>
        {
            if property == keyPath, type(of: self) == Self.self, let locator = reads[0].locator {
                context.remember(locator, for: keyPath)
            }
            return registerDirect(info, property, caller, storage, onGone, file, context)
        }
        return registerChain(keyPath, info, caller, onGone, value, reads, file, context)
    }

    /// Registers and starts a `ChainObservation` (see `register`).
    @usableFromInline
    func registerChain<Value>(
        _ keyPath: KeyPath<Self, Value>, _ info: ObservationInfo, _ caller: Caller<Self, Value>,
        _ onGone: (@Sendable () -> Void)?, _ value: Value, _ reads: [TrackedRead],
        _ file: (any AnyObservation) -> Bool, _ context: ThreadContext
    ) -> (any AnyObservation)? {
        if reads.isEmpty {
            ObservationDiagnostics.report(
                .unobservableKeyPath(objectType: String(reflecting: Self.self), keyPath: "\(keyPath)"))
        }
        let observation = ChainObservation(info: info, caller: caller, root: self, onGone: onGone)
        let started = observation.start(
            root: self, value: value, reads: reads, context, file: { file(observation) })
        return started ? observation : nil
    }

    /// The key path of the one `@Observed` property `keyPath` is, when it is one: the key path itself, or, for a
    /// subclass key path to an inherited property (`\Disc.radius` for `\Circle.radius`), the property's own. Nil for
    /// anything else (a chain, a computed property).
    @inlinable
    static func property<Value>(_ keyPath: KeyPath<Self, Value>, of root: Self, value: Value, reads: [TrackedRead])
        -> AnyKeyPath?
    {
        guard reads.count == 1, reads[0].object === root, reads[0].storage is PropertyStorage<Value> else { return nil }
        let property = reads[0].keyPath
        // The caller's own key path object when equal: a pair filed under it is found again by identity.
        if property == keyPath { return keyPath }
        // Another key path to the same value: the same property only if it is settable like one and reads the
        // stored value itself (a computed `radius * 2` is not `radius`).
        guard keyPath is ReferenceWritableKeyPath<Self, Value>,
            let stored = (reads[0].storage as? PropertyStorage<Value>)?.untrackedValue,
            areEqual(stored, value) == true
        else { return nil }
        return property
    }

    /// The pair key `KeyValueObserver` files `keyPath` under: its property's key path, or the key path itself.
    func pairKeyPath<Value>(_ keyPath: KeyPath<Self, Value>) -> AnyKeyPath {
        let (value, reads) = ThreadContext.current.record { self[keyPath: keyPath] }
        return Self.property(keyPath, of: self, value: value, reads: reads) ?? keyPath
    }
}

/// Lists an observation with no pair in the registry (`register`'s default).
@usableFromInline
func fileUnpaired(_ observation: any AnyObservation) -> Bool {
    Registry.insert(observation, pair: nil)
}

/// Takes an ended observation off the registry.
@usableFromInline
func unfile(_ observation: any AnyObservation) {
    Registry.remove(observation)
}

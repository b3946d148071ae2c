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
                return registerDirect(info, caller, storage, onGone, file, context)
            }
            guard mayEvaluate() else { return nil }
            return register(keyPath, options, delivery, caller, owner, onGone, file, context)
        }
    }

    /// Registers and starts a `DirectObservation` of the property whose storage is `storage` (see `register`).
    @inlinable
    func registerDirect<Value>(
        _ info: consuming ObservationInfo, _ caller: consuming Caller<Self, Value>,
        _ storage: PropertyStorage<Value>, _ onGone: (@Sendable () -> Void)?, _ file: (any AnyObservation) -> Bool,
        _ context: ThreadContext
    ) -> (any AnyObservation)? {
        let observation = DirectObservation(info: info, caller: caller, storage: storage, onGone: onGone)
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
        if let storage = Self.storage(of: keyPath, in: self, reads: reads) as PropertyStorage<Value>? {
            if let locator = reads[0].locator { context.remember(locator, for: keyPath) }
            return registerDirect(info, caller, storage, onGone, file, context)
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

    /// The storage of the one `@Observed` property `keyPath` is, when it is one: its evaluation read exactly that
    /// property of `root`, through this very key path, and `root` is of the key path's own class (a subclass may
    /// override the property). Anything else (a chain, a computed property, an override) is observed through what it
    /// reads. A key path is never matched by comparing values read through it.
    @inlinable
    static func storage<Value>(of keyPath: KeyPath<Self, Value>, in root: Self, reads: [TrackedRead])
        -> PropertyStorage<Value>?
    {
        guard reads.count == 1, reads[0].object === root, type(of: root) == Self.self, reads[0].keyPath == keyPath
        else { return nil }
        return reads[0].storage as? PropertyStorage<Value>
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

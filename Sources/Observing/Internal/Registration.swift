extension KeyValueObservable {
    /// Registers an observation of `keyPath` and starts it: evaluates the key path once, recording what it reads; a key
    /// path that is one property of this object becomes a `DirectObservation`, any other a `ChainObservation`. `file`
    /// lists it (in the registry) before the `.initial` call, and may refuse it: then it ends and nil is returned.
    /// `mayEvaluate` is asked first: false refuses the observation without running any getter. Writes made meanwhile on
    /// this thread (by a deinit the evaluation ran, or by the initial handler) are delivered after the initial call.
    /// `shared`: the caller requires `Self: Sendable` (a chain then follows other `Sendable` objects).
    func register<Value>(
        _ keyPath: KeyPath<Self, Value> & Sendable, options: ObservationOptions, delivery: ObservationDelivery,
        shared: Bool, caller: Caller<Self, Value>, owner: OwnerDescription? = nil,
        onGone: (@Sendable () -> Void)? = nil,
        mayEvaluate: () -> Bool = { true }, file: (any AnyObservation) -> Bool = { Registry.insert($0, pair: nil) }
    ) -> (any AnyObservation)? {
        guard mayEvaluate() else { return nil }
        let context = ThreadContext.current
        return context.frame {
            var reads: [TrackedRead] = []
            let value = context.record(&reads) { self[keyPath: keyPath] }
            let info = ObservationInfo(
                objectIdentifier: ObjectIdentifier(self), keyPath: keyPath, options: options, delivery: delivery,
                owner: owner)
            if let storage = Self.storage(of: keyPath, in: self, reads: reads) as PropertyStorage<Value>? {
                let observation = DirectObservation(info: info, caller: caller, storage: storage, onGone: onGone)
                return observation.start(root: self, storage, context, file: { file(observation) }) ? observation : nil
            }
            if reads.isEmpty {
                let objectType = String(reflecting: Self.self)
                ObservationDiagnostics.report(.unobservableKeyPath(objectType: objectType, keyPath: "\(keyPath)"))
            }
            let observation = ChainObservation(
                info: info, keyPath: keyPath, caller: caller, root: self, value: value, rootIsSendable: shared,
                onGone: onGone)
            let started = observation.start(root: self, value: value, reads: reads, context) { file(observation) }
            return started ? observation : nil
        }
    }

    /// The storage of the one `@Observed` property `keyPath` is, when it is one: its evaluation read exactly that
    /// property of `root`, through this very key path, and `root` is of the key path's own class (a subclass may
    /// override the property). Anything else (a chain, a computed property, an override) is observed through what it
    /// reads. A key path is never matched by comparing values read through it.
    private static func storage<Value>(of keyPath: KeyPath<Self, Value>, in root: Self, reads: [TrackedRead])
        -> PropertyStorage<Value>?
    {
        guard reads.count == 1, reads[0].object === root, type(of: root) == Self.self, reads[0].keyPath == keyPath
        else { return nil }
        return reads[0].storage as? PropertyStorage<Value>
    }
}

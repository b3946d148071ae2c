import Locking

/// The one registry of live observations: what diagnostics list (O10), what a `KeyValueObserver` looks its pairs up in
/// (O2), and what CanvasKit's lifecycle audit reads. It holds each observation until it ends (or its object goes away),
/// so a `KeyValueObserver` keeps no list of its own.
enum Registry {
    /// A `KeyValueObserver`'s pair: the observer, the object and the observed key path.
    struct Pair: Hashable, Sendable {
        let observer: ObjectIdentifier
        let object: ObjectIdentifier
        let keyPath: AnyKeyPath & Sendable

        /// The key path is compared, not hashed: hashing one walks its components, and an observer observes few key
        /// paths of one object.
        func hash(into hasher: inout Hasher) {
            hasher.combine(observer)
            hasher.combine(object)
        }
    }

    private struct Entry {
        let observation: any AnyObservation
        let pair: Pair?
    }

    private struct State {
        var entries: [ObjectIdentifier: Entry] = [:]
        var pairs: [Pair: any AnyObservation] = [:]

        mutating func add(_ observation: any AnyObservation, pair: Pair?) {
            entries[observation.id] = Entry(observation: observation, pair: pair)
            if let pair { pairs[pair] = observation }
        }

        mutating func remove(_ observation: any AnyObservation) -> (any AnyObservation)? {
            guard let entry = entries.removeValue(forKey: observation.id) else { return nil }
            // One lookup of the pair: an index, then a removal at it.
            if let pair = entry.pair, let index = pairs.index(forKey: pair), pairs[index].value === observation {
                pairs.remove(at: index)
            }
            return entry.observation
        }
    }

    private static let state = LockedValue(State())

    /// Lists `observation`, under `pair` if given. Refused (false) when the pair already has an active observation; an
    /// ended one is replaced (and ended outside the lock).
    static func insert(_ observation: any AnyObservation, pair: Pair?) -> Bool {
        while true {
            let existing = state.withLock { state -> (any AnyObservation)? in
                if let pair, let existing = state.pairs[pair] { return existing }
                state.add(observation, pair: pair)
                return nil
            }
            guard let existing, let pair else { return true }
            // Asked outside the lock: it takes a strong reference to the owner, and if another thread drops the
            // owner's last one meanwhile, the owner's deinit runs when this reference goes (and takes this lock).
            let existingIsActive = existing.isActive
            let outcome = state.withLock { state -> (inserted: Bool, replaced: (any AnyObservation)?)? in
                // The pair changed since it was asked about: ask again.
                guard state.pairs[pair] === existing else { return nil }
                if existingIsActive { return (false, nil) }
                let replaced = state.remove(existing)
                state.add(observation, pair: pair)
                return (true, replaced)
            }
            guard let outcome else { continue }
            outcome.replaced?.end(filed: false)
            return outcome.inserted
        }
    }

    static func remove(_ observation: any AnyObservation) {
        let removed = state.withLock { $0.remove(observation) }
        withExtendedLifetime(removed) {}
    }

    /// Every listed observation (active or not).
    static var all: [any AnyObservation] {
        state.withLock { state in state.entries.values.map(\.observation) }
    }

    /// The records of the active observations that `include` accepts (it runs under the registry's lock: keep it a
    /// comparison), each naming the `KeyValueObserver` that filed it.
    static func records(where include: (any AnyObservation) -> Bool = { _ in true }) -> [ObservationRecord] {
        let listed = state.withLock { state in
            state.entries.values.filter { include($0.observation) }.map { ($0.observation, $0.pair?.observer) }
        }
        return listed.compactMap { observation, observer in observation.record(observer: observer) }
    }

    /// The observation of `pair`, if listed.
    static func observation(for pair: Pair) -> (any AnyObservation)? { state.withLock { state in state.pairs[pair] } }

    /// Takes the observation of `pair` off the list (the caller ends it).
    static func removeObservation(for pair: Pair) -> (any AnyObservation)? {
        state.withLock { state in
            guard let index = state.pairs.index(forKey: pair) else { return nil }
            let observation = state.pairs.remove(at: index).value
            return state.entries.removeValue(forKey: observation.id)?.observation
        }
    }

    /// Takes the observations of `observer` (of `object` only, if given) off the list (the caller ends them).
    static func removeObservations(of observer: ObjectIdentifier, object: ObjectIdentifier? = nil)
        -> [any AnyObservation]
    {
        state.withLock { state in
            filed(by: [observer], object: object, in: state).compactMap { state.remove($0) }
        }
    }

    /// The observations filed by the observers in `observers`, of `object` only when given.
    static func observations(of observers: Set<ObjectIdentifier>, object: ObjectIdentifier?) -> [any AnyObservation] {
        state.withLock { state in filed(by: observers, object: object, in: state) }
    }

    private static func filed(by observers: Set<ObjectIdentifier>, object: ObjectIdentifier?, in state: State)
        -> [any AnyObservation]
    {
        state.entries.values.compactMap { entry in
            guard let pair = entry.pair, observers.contains(pair.observer), object == nil || pair.object == object
            else { return nil }
            return entry.observation
        }
    }
}

import Locking
import Synchronization

/// The one registry of live observations: what diagnostics list (O10), what a `KeyValueObserver` looks its pairs up
/// in (O2), and what CanvasKit's lifecycle audit reads. It holds each observation until it ends (or its object goes
/// away), so a `KeyValueObserver` keeps no list of its own.
enum Registry {
    /// A `KeyValueObserver`'s pair: the observer, the object and the observed property (or key path).
    struct Pair: Hashable {
        let observer: ObjectIdentifier
        let object: ObjectIdentifier
        let keyPath: SharedKeyPath

        /// The three identities mixed into one word, hashed once (a pair is hashed on every observe and unobserve;
        /// a collision costs a comparison, never a wrong answer). The key path by its type, as `SharedKeyPath`.
        func hash(into hasher: inout Hasher) {
            let type = ObjectIdentifier(Swift.type(of: keyPath.keyPath))
            hasher.combine(
                UInt(bitPattern: observer) &* UInt(truncatingIfNeeded: 0x9E37_79B9_7F4A_7C15 as UInt64)
                    ^ UInt(bitPattern: object) &* UInt(truncatingIfNeeded: 0xC2B2_AE3D_27D4_EB4F as UInt64)
                    ^ UInt(bitPattern: type))
        }
    }

    private typealias Entry = (observation: any AnyObservation, pair: Pair?)

    private struct State {
        /// The listed observations, in no order. Each knows its place (`CallGate.registryIndex`, set only here), so
        /// filing and unfiling one with no pair (a token's, on every observe and invalidate) hashes nothing.
        var entries: [Entry] = []
        var pairs: [Pair: any AnyObservation] = [:]
        /// The observations of each observer, by identity.
        var byObserver: [ObjectIdentifier: [ObjectIdentifier: any AnyObservation]] = [:]

        mutating func add(_ observation: any AnyObservation, pair: Pair?, pairFiled: Bool = false) {
            assert(index(of: observation) == nil, "an observation is listed once")
            observation.withGate { $0.registryIndex.store(entries.count, ordering: .relaxed) }
            entries.append((observation, pair))
            if let pair {
                if !pairFiled { pairs[pair] = observation }
                byObserver[pair.observer, default: [:]][observation.id] = observation
            }
        }

        /// The place of `observation` in `entries`, if listed.
        func index(of observation: any AnyObservation) -> Int? {
            let index = observation.withGate { $0.registryIndex.load(ordering: .relaxed) }
            return entries.indices.contains(index) && entries[index].observation === observation ? index : nil
        }

        func pairObject(of observation: any AnyObservation) -> ObjectIdentifier? {
            index(of: observation).flatMap { entries[$0].pair?.object }
        }

        mutating func remove(_ observation: any AnyObservation, pairRemoved: Bool = false) -> (any AnyObservation)? {
            guard let index = index(of: observation) else { return nil }
            observation.withGate { $0.registryIndex.store(-1, ordering: .relaxed) }
            // The last entry takes the removed one's place.
            entries.swapAt(index, entries.count - 1)
            let entry = entries.removeLast()
            if index < entries.count {
                entries[index].observation.withGate { $0.registryIndex.store(index, ordering: .relaxed) }
            }
            if let pair = entry.pair {
                if !pairRemoved { pairs[pair] = nil }
                // Kept when empty (a cell rebinding would make a new one each time): `removeObservations` drops it.
                byObserver[pair.observer]?[observation.id] = nil
            }
            return entry.observation
        }
    }

    private static let state = LockedValue(State())

    /// Lists `observation`, under `pair` if given. Refused (false) when the pair already has an active observation;
    /// an ended one is replaced (and returned to be ended outside the lock).
    static func insert(_ observation: any AnyObservation, pair: Pair?) -> Bool {
        while true {
            // One section when the pair has no observation (the usual case): listed at once.
            let existing = state.withLock { state -> (any AnyObservation)? in
                // The pair looked up and, when free, taken in one hashing.
                let current = pair.flatMap { pair in
                    { (slot: inout any AnyObservation) in slot === observation ? nil : slot }(
                        &state.pairs[pair, default: observation])
                }
                if let current { return current }
                state.add(observation, pair: pair, pairFiled: pair != nil)
                return nil
            }
            guard let existing, let pair else { return true }
            // Whether the pair's observation is active is asked outside the lock: the question takes a strong
            // reference to its owner, and if another thread drops the owner's last one meanwhile, the owner's deinit
            // runs when this reference goes, ending observations (which takes this lock again).
            let existingIsActive = existing.isActive
            let outcome = state.withLock { state -> (inserted: Bool, replaced: (any AnyObservation)?)? in
                // The pair changed since it was asked about: ask again.
                guard let current = state.pairs[pair], current === existing else { return nil }
                if existingIsActive { return (false, nil) }
                let replaced = state.remove(current)
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
        state.withLock { state in state.entries.map(\.observation) }
    }

    /// The records of the active observations that `include` accepts (it runs under the registry's lock: keep it a
    /// comparison), each naming the `KeyValueObserver` that filed it.
    static func records(where include: (any AnyObservation) -> Bool = { _ in true }) -> [ObservationRecord] {
        let listed = state.withLock { state in
            state.entries.filter { include($0.observation) }.map { ($0.observation, $0.pair?.observer) }
        }
        return listed.compactMap { observation, observer in observation.record(observer: observer) }
    }

    /// The observation of `pair`, if listed.
    static func observation(for pair: Pair) -> (any AnyObservation)? {
        state.withLock { state in state.pairs[pair] }
    }

    /// Takes the observation of `pair` off the list (the caller ends it).
    static func removeObservation(for pair: Pair) -> (any AnyObservation)? {
        state.withLock { state in state.pairs.removeValue(forKey: pair).flatMap { state.remove($0, pairRemoved: true) }
        }
    }

    /// Takes the observations of `observer` (of `object` only, if given) off the list (the caller ends them).
    static func removeObservations(of observer: ObjectIdentifier, object: ObjectIdentifier? = nil)
        -> [any AnyObservation]
    {
        state.withLock { state in
            let listed = state.byObserver[observer]?.values ?? [:].values
            let removed = listed.compactMap { observation -> (any AnyObservation)? in
                if let object, state.pairObject(of: observation) != object { return nil }
                return state.remove(observation)
            }
            if state.byObserver[observer]?.isEmpty == true { state.byObserver[observer] = nil }
            return removed
        }
    }

    /// The observations filed by the observers in `observers`, of `object` only when given: one observer's pairs
    /// are walked; for several, the list is, each entry compared (object first) with no look-up per observer.
    static func observations(of observers: Set<ObjectIdentifier>, object: ObjectIdentifier?) -> [any AnyObservation] {
        state.withLock { state in
            if observers.count == 1, let only = observers.first {
                return (state.byObserver[only]?.values ?? [:].values).filter { observation in
                    object == nil || state.pairObject(of: observation) == object
                }
            }
            var found: [any AnyObservation] = []
            for index in state.entries.indices {
                guard let observer = state.entries[index].pair?.observer,
                    object == nil || state.entries[index].pair?.object == object, observers.contains(observer)
                else { continue }
                found.append(state.entries[index].observation)
            }
            return found
        }
    }
}

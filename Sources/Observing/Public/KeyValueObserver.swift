import Locking
import Synchronization

/// An owner-scoped observer: the role of FBKVOController (guarantee O2).
///
/// ```swift
/// final class CellViewModel {
///     private lazy var observer = KeyValueObserver(owner: self)
///
///     func willDisplay(_ canvas: Canvas) {
///         observer.observe(canvas, \.isSelected, options: [.initial, .new]) { canvas, change in
///             // update the cell
///         }
///     }
///     func didEndDisplaying(_ canvas: Canvas) {
///         observer.unobserve(canvas, \.isSelected)
///     }
/// }
/// ```
///
/// - Each (object, key path) is observed at most once: a second `observe` of the same pair is ignored
///   while the first is active. Pairs are keyed by the property, as FBKVOController keys them by name: a
///   subclass key path to an inherited property (`\Square.radius`) and the superclass's (`\Circle.radius`) are
///   the same pair, observed once, ended by `unobserve` with either.
/// - `unobserve` and `unobserveAll()` are idempotent; unobserving something never observed does nothing.
/// - Everything ends when the observer is released, and handlers stop being called once the owner is
///   gone, each on its own: the observer keeps only a weak reference to its owner.
/// - Creating or using it for the first time inside a `deinit` (a `lazy var` touched first there) is
///   safe: with its owner already going away it observes nothing.
///
/// Neither the owner nor the observed objects are retained. Handlers are `@Sendable`; to avoid a cycle
/// through the owner, capture it weakly.
public final class KeyValueObserver: Sendable, CustomDebugStringConvertible {
    /// An observed pair. Hashed by the object and the key path's type only: hashing a key path walks all its
    /// components (about 275 instructions for a one-property path), and an object has few observed key paths of the
    /// same type, which `==` tells apart.
    fileprivate struct Key: Hashable {
        let object: ObjectIdentifier
        let keyPath: AnyKeyPath

        func hash(into hasher: inout Hasher) {
            hasher.combine(object)
            hasher.combine(ObjectIdentifier(type(of: keyPath)))
        }

        /// The same pair: the same object and an equal key path (the same key path object, the common case, is
        /// found without comparing components).
        static func == (lhs: Key, rhs: Key) -> Bool {
            lhs.matches(rhs.object, rhs.keyPath)
        }

        /// `self == Key(object: object, keyPath: keyPath)`, without making that key (a retain and a release).
        func matches(_ object: ObjectIdentifier, _ keyPath: AnyKeyPath) -> Bool {
            self.object == object
                && (self.keyPath === keyPath
                    || (type(of: self.keyPath) == type(of: keyPath) && self.keyPath == keyPath))
        }
    }

    /// The observations by (object, key path). Unchecked (`LockedValue.withLockUnchecked`) only because a `Key` holds
    /// an `AnyKeyPath`: the key path of an observed property, immutable once made and capturing nothing (no subscript
    /// arguments), so `Sendable` in all but name; the observations are `Sendable`.
    private let entries = LockedValue<Pairs>(Pairs())
    /// The pairs' `filterMask`, stored (relaxed) by every change of the pairs under their lock: a pair whose bit is not
    /// in it is not filed, so `observe` of a new pair needs no lock section to learn that. Only the calling thread's
    /// own changes, and those that happen before its call, are sure to be seen, which is all the look-up promised
    /// (two threads observing one pair at the same time both register, and the filing keeps one).
    private let filedPairs = Atomic<UInt>(0)
    @usableFromInline let ownerDescription: OwnerDescription?

    @usableFromInline
    var ownerLink: OwnerLink? {
        ownerDescription?.link
    }

    /// Creates an observer whose observations end when it or `owner` goes away.
    ///
    /// - Parameter owner: the object the observations belong to (not retained); `nil` for an observer
    ///   scoped only by its own lifetime.
    public init(owner: AnyObject? = nil) {
        if let owner {
            ownerDescription = OwnerDescription(
                typeName: String(reflecting: type(of: owner)), identifier: ObjectIdentifier(owner),
                link: OwnerLink(owner))
        } else {
            ownerDescription = nil
        }
    }

    deinit {
        unobserveAll()
    }

    /// Observes `keyPath` of `object` on the mutating thread, unless that pair is already observed.
    ///
    /// The observation is registered before the `.initial` call, so that call may `unobserve` it.
    /// - Returns: `true` if a new observation started; `false` if the pair was already observed or the
    ///   owner is gone.
    @inlinable
    @discardableResult
    public func observe<Object: KeyValueObservable, Value>(
        _ object: Object,
        _ keyPath: KeyPath<Object, Value>,
        options: ObservationOptions = [.old, .new],
        _ handler: @escaping @Sendable (Object, ObservedChange<Value>) -> Void
    ) -> Bool {
        // Guarded by the storage like the token's direct path (see `KeyValueObservable.observe`). Without an owner the
        // closure captures no owner link: with a handler that captures nothing, it then captures nothing at all, and
        // costs no allocation.
        let direct: @Sendable (ObservedChange<Value>, AnyObject, ThreadContext) -> Void
        if let ownerLink {
            direct = { change, object, _ in
                guard ownerLink.isAlive else { return }
                handler(unsafeDowncast(object, to: Object.self), change.filtered(by: options))
            }
        } else {
            direct = { change, object, _ in
                handler(unsafeDowncast(object, to: Object.self), change.filtered(by: options))
            }
        }
        // No `send`: the observation calls `handler` itself, unless the owner is gone.
        return start(
            object, keyPath, options: options, delivery: .mutatingThread, handler: handler, send: nil, direct: direct)
    }

    /// Observes `keyPath` of `object` with the chosen delivery (O9), unless that pair is already observed.
    /// - Returns: `true` if a new observation started.
    @inlinable
    @discardableResult
    public func observe<Object: KeyValueObservable & Sendable, Value: Sendable>(
        _ object: Object,
        _ keyPath: KeyPath<Object, Value>,
        options: ObservationOptions = [.old, .new],
        delivery: ObservationDelivery,
        _ handler: @escaping @Sendable (Object, ObservedChange<Value>) -> Void
    ) -> Bool {
        let ownerLink = self.ownerLink
        return start(
            object, keyPath, options: options, delivery: delivery,
            handler: { object, change in
                if ownerLink?.isAlive != false {
                    handler(object, change)
                }
            },
            send: makeSend(delivery: delivery, for: Object.self, Value.self), direct: nil)
    }

    /// Registers the observation unless the pair is observed already. Inlinable, so that the observation is made
    /// where `Object` and `Value` are concrete (see `KeyValueObservable.register`); what it does with the pairs
    /// is not generic.
    @inlinable
    func start<Object: KeyValueObservable, Value>(
        _ object: Object,
        _ keyPath: KeyPath<Object, Value>,
        options: ObservationOptions,
        delivery: ObservationDelivery,
        handler: @escaping @Sendable (Object, ObservedChange<Value>) -> Void,
        send: (@Sendable (KeyPathObservation<Object, Value>, Object, ObservedChange<Value>) -> Void)?,
        direct: (@Sendable (ObservedChange<Value>, AnyObject, ThreadContext) -> Void)?
    ) -> Bool {
        if let ownerLink, !ownerLink.isAlive {
            unobserveAll()
            return false
        }
        let id = ObjectIdentifier(object)
        if isObservingActively(id, keyPath) {
            return false
        }
        // The observer keeps no reference to its observations: the list of live observations takes over the
        // registration's and holds each for the observer (`ListedObservation.heldUnretained`, set when it is listed,
        // or before it is filed if that comes first) until the observer takes it out of its pairs and gives it back
        // (`release(held:)`).
        if options.contains(.initial) {
            // Filed before the initial call, which may unobserve it (the registration holds it until it is listed).
            var inserted = false
            let (core, _, _) = object.register(
                keyPath, options: options, delivery: delivery, handler: handler, owner: ownerDescription,
                beforeInitial: { core, isDirect in
                    core.heldUnretained.store(true, ordering: .relaxed)
                    inserted = self.file(
                        Unmanaged<ListedObservation>.passUnretained(core), object: id, keyPath: keyPath,
                        property: isDirect ? nil : core.propertyKeyPath)
                },
                send: send, direct: direct)
            _ = LiveObservations.insert(held: core)
            return inserted
        }
        // Without an initial call, no handler of this observation runs on this thread before it is filed, so it is
        // filed after the registration. A change another thread makes meanwhile may call the handler already, as it
        // could right after the filing.
        let (core, _, isDirect) = object.register(
            keyPath, options: options, delivery: delivery, handler: handler, owner: ownerDescription,
            send: send, direct: direct)
        // Keyed by the property observed: a subclass key path to an inherited property is the same pair (nil: the key
        // path is known to be the property's).
        let property = isDirect ? nil : core.propertyKeyPath
        return file(LiveObservations.insert(held: core), object: id, keyPath: keyPath, property: property)
    }

    /// Changes the pairs under their lock, and then stores their `filterMask` in `filedPairs`.
    private func changingPairs<Result>(_ body: (inout Pairs) -> Result) -> Result {
        entries.withLockUnchecked { entries in
            let result = body(&entries)
            filedPairs.store(entries.filterMask, ordering: .relaxed)
            return result
        }
    }

    /// Whether the pair (keyed as given, not by its property) has an active observation.
    @usableFromInline
    func isObservingActively(_ object: ObjectIdentifier, _ keyPath: AnyKeyPath) -> Bool {
        // Asked under the lock (the observation's `isActive` takes no lock of the observer's): taking the
        // observation out to ask it after is a retain and a release.
        if filedPairs.load(ordering: .relaxed) & Pairs.filterBit(object, keyPath) == 0 {
            return false
        }
        return entries.withLockUnchecked { $0.isActive(object, keyPath) } == true
    }

    /// Files a just-registered observation, held unretained (see `start`), under its pair: (`object`, `property`), or
    /// (`object`, `keyPath`) when `property` is nil; unless the pair has an active one (then `held` is ended and given
    /// back). Returns whether it was filed.
    @usableFromInline
    func file(
        _ held: Unmanaged<ListedObservation>, object: ObjectIdentifier, keyPath: AnyKeyPath, property: AnyKeyPath?
    ) -> Bool {
        // `ended`: the ended observation `held` replaced, or `held` itself when the pair has an active one.
        let (inserted, ended): (Bool, Unmanaged<ListedObservation>?) = changingPairs { entries in
            // One look-up in the common case (no entry, or an ended one, to replace).
            guard let previous = entries.updateToken(held, object, property ?? keyPath) else { return (true, nil) }
            if previous._withUnsafeGuaranteedRef({ $0.isActive }) {
                return (false, entries.updateToken(previous, object, property ?? keyPath))
            }
            return (true, previous)
        }
        if let ended {
            ListedObservation.release(held: ended)
        }
        return inserted
    }

    /// Ends the observation of `keyPath` of `object`; does nothing if there is none. A subclass key path to an
    /// inherited property and the superclass's key path name the same observation (see ``observe(_:_:options:_:)``).
    ///
    /// Returns whether an active observation ended (one that ``isObserving(_:_:)`` would have reported): false when
    /// the pair was not observed, or its observation had already ended (its object went away). So "stop observing,
    /// and tell whether that stopped something" is one call, not ``isObserving(_:_:)`` and then this.
    @discardableResult
    public func unobserve<Object: KeyValueObservable, Value>(_ object: Object, _ keyPath: KeyPath<Object, Value>)
        -> Bool
    {
        let id = ObjectIdentifier(object)
        var token = changingPairs { $0.removeToken(id, keyPath) }
        if token == nil, let property = Self.propertyKey(object, keyPath) {
            token = changingPairs { $0.removeToken(property.object, property.keyPath) }
        }
        guard let token else { return false }
        // Still held for this observer (`heldUnretained`) until `release(held:)`.
        let wasActive = token._withUnsafeGuaranteedRef { $0.isActive }
        ListedObservation.release(held: token)
        return wasActive
    }

    /// The key of the property `keyPath` observes when it differs from `keyPath` itself (a subclass key path to an
    /// inherited property), found by evaluating it as `observe` does; `nil` otherwise.
    private static func propertyKey<Object: KeyValueObservable, Value>(
        _ object: Object, _ keyPath: KeyPath<Object, Value>
    ) -> Key? {
        let (value, reads) = ThreadContext.current.track { object[keyPath: keyPath] }
        let property = KeyPathObservation<Object, Value>.propertyKeyPath(
            keyPath, of: object, value: value, reads: reads)
        guard property != keyPath else { return nil }
        return Key(object: ObjectIdentifier(object), keyPath: property)
    }

    /// Ends every observation of `object`; does nothing if there is none.
    public func unobserve(_ object: AnyObject) {
        let id = ObjectIdentifier(object)
        let tokens = changingPairs { $0.removeTokens(of: id) }
        for token in tokens {
            ListedObservation.release(held: token)
        }
    }

    /// Ends every observation; idempotent.
    public func unobserveAll() {
        let tokens = changingPairs { $0.removeAll() }
        for token in tokens {
            ListedObservation.release(held: token)
        }
    }

    /// Whether `keyPath` of `object` is observed (active: not ended, object alive).
    public func isObserving<Object: KeyValueObservable, Value>(_ object: Object, _ keyPath: KeyPath<Object, Value>)
        -> Bool
    {
        let id = ObjectIdentifier(object)
        if let active = entries.withLockUnchecked({ $0.isActive(id, keyPath) }) {
            return active
        }
        guard let property = Self.propertyKey(object, keyPath) else { return false }
        return entries.withLockUnchecked { $0.isActive(property.object, property.keyPath) } == true
    }

    /// The number of active observations.
    public var observationCount: Int {
        entries.withLockUnchecked { $0.tokens.count { $0._withUnsafeGuaranteedRef { $0.isActive } } }
    }

    /// The observer, its owner and its active observations, one per line.
    public var debugDescription: String {
        var lines = ["KeyValueObserver \(ObjectIdentifier(self))"]
        if let ownerDescription {
            let state = ownerDescription.link.isAlive ? "" : " (gone)"
            lines[0] += " owned by \(ownerDescription.typeName) \(ownerDescription.identifier)\(state)"
        }
        // Retained under the lock, while they are still held for this observer.
        let tokens = entries.withLockUnchecked { $0.tokens.map { $0.takeUnretainedValue() } }
        // Every observation an observer files is a `KeyPathObservation`, an `ObservationCore`.
        let records = tokens.compactMap { ($0 as? any ObservationCore)?.record }.map {
            "  \($0.objectType) \($0.objectIdentifier) \($0.keyPath)"
        }
        return (lines + records.sorted()).joined(separator: "\n")
    }
}

/// The pairs of a `KeyValueObserver`, each with its observation unretained (held for the observer by the list of live
/// observations while it is filed, see `KeyValueObserver.start`): an array searched in order while it is small (the common case, a few pairs
/// per observer: each look-up compares object identities, then key path identities, with no hashing), a
/// dictionary once it holds more than `arrayLimit` (a dictionary cost about 200 instructions per look-up, three per
/// observe + unobserve).
private struct Pairs {
    private struct Pair {
        let key: KeyValueObserver.Key
        var token: Unmanaged<ListedObservation>
        /// `filterBit` of the key (kept: reading the key's fields again would copy them, two reference counts).
        let bit: UInt
    }

    private static var arrayLimit: Int { 16 }

    private var array: [Pair] = []
    private var dictionary: [KeyValueObserver.Key: Unmanaged<ListedObservation>]?

    /// One of 64 bits for the pair (`object`, `keyPath`), from the object and the key path's type, which equal key
    /// paths share (different key path objects may be equal, so not from the key path's address).
    static func filterBit(_ object: ObjectIdentifier, _ keyPath: AnyKeyPath) -> UInt {
        let type = UInt(bitPattern: ObjectIdentifier(Swift.type(of: keyPath)))
        let mixed = (UInt(bitPattern: object) ^ (type &* 0x9E37_79B9_7F4A_7C15)) &* 0x9E37_79B9_7F4A_7C15
        return 1 << (mixed >> (UInt(UInt.bitWidth) - 6))
    }

    /// The bits of every filed pair (ended ones too); all bits once the pairs are in the dictionary.
    var filterMask: UInt {
        if dictionary != nil {
            return .max
        }
        var mask: UInt = 0
        var index = 0
        while index < array.count {
            mask |= array[index].bit
            index += 1
        }
        return mask
    }

    // The look-ups take the object and the key path, not a `Key`: making one is a retain and a release of the key
    // path, and only the dictionary (past `arrayLimit` pairs) needs it.

    private func index(of object: ObjectIdentifier, _ keyPath: AnyKeyPath) -> Int? {
        var index = 0
        while index < array.count {
            if array[index].key.matches(object, keyPath) {
                return index
            }
            index += 1
        }
        return nil
    }

    func token(_ object: ObjectIdentifier, _ keyPath: AnyKeyPath) -> Unmanaged<ListedObservation>? {
        if let dictionary {
            return dictionary[KeyValueObserver.Key(object: object, keyPath: keyPath)]
        }
        return index(of: object, keyPath).map { array[$0].token }
    }

    /// Whether the pair's observation is active; nil when the pair is not filed. (Filed, it is still held for the
    /// observer, so it is alive.)
    func isActive(_ object: ObjectIdentifier, _ keyPath: AnyKeyPath) -> Bool? {
        token(object, keyPath).map { $0._withUnsafeGuaranteedRef { $0.isActive } }
    }

    /// Files `token` under the pair (`object`, `keyPath`); returns the token it replaced, if any.
    @discardableResult
    mutating func updateToken(_ token: Unmanaged<ListedObservation>, _ object: ObjectIdentifier, _ keyPath: AnyKeyPath)
        -> Unmanaged<ListedObservation>?
    {
        if dictionary != nil {
            return dictionary?.updateValue(token, forKey: KeyValueObserver.Key(object: object, keyPath: keyPath))
        }
        if let index = index(of: object, keyPath) {
            // Moved out, not copied.
            return replacing(&array[index].token, with: token)
        }
        let key = KeyValueObserver.Key(object: object, keyPath: keyPath)
        if array.count < Self.arrayLimit {
            array.append(Pair(key: key, token: token, bit: Self.filterBit(object, keyPath)))
            return nil
        }
        var large = [KeyValueObserver.Key: Unmanaged<ListedObservation>](minimumCapacity: array.count * 2)
        for pair in array {
            large[pair.key] = pair.token
        }
        large[key] = token
        array = []
        dictionary = large
        return nil
    }

    mutating func removeToken(_ object: ObjectIdentifier, _ keyPath: AnyKeyPath) -> Unmanaged<ListedObservation>? {
        if dictionary != nil {
            return dictionary?.removeValue(forKey: KeyValueObserver.Key(object: object, keyPath: keyPath))
        }
        guard let index = index(of: object, keyPath) else { return nil }
        // The last pair (the common case: one) without `remove(at:)`, which moves the pairs after it.
        return index == array.count - 1 ? array.removeLast().token : array.remove(at: index).token
    }

    /// Removes and returns the tokens of `object`'s pairs.
    mutating func removeTokens(of object: ObjectIdentifier) -> [Unmanaged<ListedObservation>] {
        if var large = dictionary {
            dictionary = nil
            let keys = large.keys.filter { $0.object == object }
            let removed = keys.compactMap { large.removeValue(forKey: $0) }
            dictionary = large
            return removed
        }
        let removed = array.filter { $0.key.object == object }.map(\.token)
        array.removeAll { $0.key.object == object }
        return removed
    }

    /// Removes and returns every token.
    mutating func removeAll() -> [Unmanaged<ListedObservation>] {
        let all = tokens
        array = []
        dictionary = nil
        return all
    }

    var tokens: [Unmanaged<ListedObservation>] {
        dictionary.map { Array($0.values) } ?? array.map(\.token)
    }
}

/// A weak reference to an owner, readable from any thread.
@usableFromInline
final class OwnerLink: Sendable {
    private struct Reference {
        weak var object: AnyObject?
    }

    private let reference: LockedValue<Reference>

    init(_ owner: AnyObject) {
        // Unchecked (`LockedValue.withLockUnchecked`): the owner, of any type, is only read out to test whether it is
        // still alive; what crosses threads is a strong reference, whose retain and release are atomic, and nothing of
        // the owner is touched through it.
        reference = LockedValue(unchecked: Reference(object: owner))
    }

    /// (The owner comes out of the lock so that its last release, if any, happens after it.)
    @usableFromInline
    var isAlive: Bool {
        let owner: AnyObject? = reference.withLockUnchecked { $0.object }
        return owner != nil
    }
}

import Locking

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
    private struct Key: Hashable {
        let object: ObjectIdentifier
        let keyPath: AnyKeyPath
    }

    /// The observations by (object, key path). Unchecked (`LockedValue.withLockUnchecked`) only because a `Key` holds
    /// an `AnyKeyPath`: the key path of an observed property, immutable once made and capturing nothing (no subscript
    /// arguments), so `Sendable` in all but name; the tokens are `Sendable`.
    private let entries = LockedValue<[Key: ObservationToken]>([:])
    private let ownerDescription: OwnerDescription?

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
        let ownerLink = self.ownerLink
        let gated = GatedHandler(handler)
        return start(
            object, keyPath, options: options, delivery: .mutatingThread, handler: gated,
            send: { object, change in
                if ownerLink?.isAlive != false {
                    gated.call(object, change)
                }
            },
            direct: { change, object, _ in
                // Guarded by the storage like the token's direct path (see `KeyValueObservable.observe`).
                guard ownerLink?.isAlive != false else { return }
                handler(unsafeDowncast(object, to: Object.self), change.filtered(by: options))
            })
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
        let gated = GatedHandler { (object: Object, change: ObservedChange<Value>) in
            if ownerLink?.isAlive != false {
                handler(object, change)
            }
        }
        let send = makeSend(delivery: delivery, handler: gated)
        return start(
            object, keyPath, options: options, delivery: delivery, handler: gated, send: send,
            direct: { change, object, _ in send(unsafeDowncast(object, to: Object.self), change.filtered(by: options)) }
        )
    }

    @usableFromInline
    func start<Object: KeyValueObservable, Value>(
        _ object: Object,
        _ keyPath: KeyPath<Object, Value>,
        options: ObservationOptions,
        delivery: ObservationDelivery,
        handler: GatedHandler<Object, Value>,
        send: @escaping @Sendable (Object, ObservedChange<Value>) -> Void,
        direct: @escaping @Sendable (ObservedChange<Value>, AnyObject, ThreadContext) -> Void
    ) -> Bool {
        if let ownerLink, !ownerLink.isAlive {
            unobserveAll()
            return false
        }
        let key = Key(object: ObjectIdentifier(object), keyPath: keyPath)
        if let existing = entries.withLockUnchecked({ $0[key] }), existing.core?.isActive == true {
            return false
        }
        var inserted = false
        _ = object.register(
            keyPath, options: options, delivery: delivery, handler: handler, owner: ownerDescription,
            beforeInitial: { token in
                // Keyed by the property observed: a subclass key path to an inherited property is the same pair.
                var key = key
                if let property = token.core?.propertyKeyPath {
                    key = Key(object: key.object, keyPath: property)
                }
                let replaced: ObservationToken?
                (inserted, replaced) = entries.withLockUnchecked { entries in
                    if let existing = entries[key], existing.core?.isActive == true {
                        return (false, nil)
                    }
                    let replaced = entries[key]
                    entries[key] = token
                    return (true, replaced)
                }
                replaced?.invalidate()
                if !inserted {
                    token.invalidate()
                }
            },
            send: send, direct: direct)
        return inserted
    }

    /// Ends the observation of `keyPath` of `object`; does nothing if there is none. A subclass key path to an
    /// inherited property and the superclass's key path name the same observation (see ``observe(_:_:options:_:)``).
    public func unobserve<Object: KeyValueObservable, Value>(_ object: Object, _ keyPath: KeyPath<Object, Value>) {
        let key = Key(object: ObjectIdentifier(object), keyPath: keyPath)
        var token = entries.withLockUnchecked { $0.removeValue(forKey: key) }
        if token == nil, let property = Self.propertyKey(object, keyPath) {
            token = entries.withLockUnchecked { $0.removeValue(forKey: property) }
        }
        token?.invalidate()
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
        let tokens = entries.withLockUnchecked { entries in
            let keys = entries.keys.filter { $0.object == id }
            return keys.compactMap { entries.removeValue(forKey: $0) }
        }
        for token in tokens {
            token.invalidate()
        }
    }

    /// Ends every observation; idempotent.
    public func unobserveAll() {
        let tokens = entries.withLockUnchecked { entries in
            let tokens = Array(entries.values)
            entries.removeAll()
            return tokens
        }
        for token in tokens {
            token.invalidate()
        }
    }

    /// Whether `keyPath` of `object` is observed (active: not ended, object alive).
    public func isObserving<Object: KeyValueObservable, Value>(_ object: Object, _ keyPath: KeyPath<Object, Value>)
        -> Bool
    {
        let key = Key(object: ObjectIdentifier(object), keyPath: keyPath)
        var token = entries.withLockUnchecked { $0[key] }
        if token == nil, let property = Self.propertyKey(object, keyPath) {
            token = entries.withLockUnchecked { $0[property] }
        }
        return token?.core?.isActive == true
    }

    /// The number of active observations.
    public var observationCount: Int {
        let tokens = entries.withLockUnchecked { Array($0.values) }
        return tokens.count { $0.core?.isActive == true }
    }

    /// The observer, its owner and its active observations, one per line.
    public var debugDescription: String {
        var lines = ["KeyValueObserver \(ObjectIdentifier(self))"]
        if let ownerDescription {
            let state = ownerDescription.link.isAlive ? "" : " (gone)"
            lines[0] += " owned by \(ownerDescription.typeName) \(ownerDescription.identifier)\(state)"
        }
        let tokens = entries.withLockUnchecked { Array($0.values) }
        let records = tokens.compactMap { $0.core?.record }.map {
            "  \($0.objectType) \($0.objectIdentifier) \($0.keyPath)"
        }
        return (lines + records.sorted()).joined(separator: "\n")
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

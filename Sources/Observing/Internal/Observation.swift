import Dispatch
import Foundation
import Locking

/// What every observation offers the registry, tokens and observers, whatever it observes.
@usableFromInline
protocol AnyObservation: AnyObject, Sendable {
    var info: ObservationInfo { get }
    /// The observed object, while it exists.
    var rootObject: AnyObject? { get }
    /// Not ended, its object still there, and its owner (if any) too.
    var isActive: Bool { get }
    /// Ends it: after this returns no handler call starts, and a call running on another thread has returned (O7).
    /// `filed`: it may still be listed in the registry (false when the caller took it off already).
    func end(filed: Bool)
    /// Runs `body` with its call gate (how a call handed to a queue reaches the handler).
    func withGate<Result>(_ body: (borrowing CallGate) -> Result) -> Result
}

extension AnyObservation {
    func end() { end(filed: true) }
    var id: ObjectIdentifier { ObjectIdentifier(self) }

    /// Its diagnostics record, when active (O10); `observer` is the `KeyValueObserver` that filed it, if any.
    func record(observer: ObjectIdentifier? = nil) -> ObservationRecord? {
        guard isActive, let root = rootObject else { return nil }
        return ObservationRecord(
            objectType: typeName(of: root), objectIdentifier: info.objectIdentifier,
            keyPath: describe(info.keyPath.keyPath, of: root), options: info.options, delivery: info.delivery,
            ownerType: info.owner?.typeName, ownerIdentifier: info.owner?.identifier, observerIdentifier: observer)
    }
}

/// What an observation was registered with.
@usableFromInline
struct ObservationInfo: Sendable {
    let objectIdentifier: ObjectIdentifier
    let keyPath: SharedKeyPath
    @usableFromInline let options: ObservationOptions
    let delivery: ObservationDelivery
    let owner: OwnerDescription?

    @usableFromInline
    init(
        _ object: AnyObject, _ keyPath: AnyKeyPath, _ options: ObservationOptions, _ delivery: ObservationDelivery,
        _ owner: OwnerDescription?
    ) {
        objectIdentifier = ObjectIdentifier(object)
        self.keyPath = SharedKeyPath(keyPath: keyPath)
        self.options = options
        self.delivery = delivery
        self.owner = owner
    }
}

/// A key path shared between threads.
///
/// Why `@unchecked Sendable` is safe: a key path object is immutable once made (its components and any captured
/// subscript arguments are never written after creation), and Observing only reads it: it evaluates it, compares
/// it and prints it. Swift leaves key paths non-`Sendable` only because a captured subscript argument might be a
/// reference whose own state changes; evaluating such a path from a writing thread is what delivery on the
/// mutating thread means, as for any handler code.
@usableFromInline
struct SharedKeyPath: @unchecked Sendable, Hashable {
    @usableFromInline let keyPath: AnyKeyPath

    @usableFromInline
    init(keyPath: AnyKeyPath) { self.keyPath = keyPath }

    /// Hashes the key path's type only (equal key paths have equal types): hashing its components walks them, and the
    /// registry hashes a pair on every observe and unobserve. Equality is the key path's own.
    @usableFromInline
    func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(type(of: keyPath)))
    }
}

/// Who registered an observation through a `KeyValueObserver`.
@usableFromInline
struct OwnerDescription: Sendable {
    let typeName: String
    let identifier: ObjectIdentifier
    @usableFromInline let link: WeakReference
}

/// A weak reference readable from any thread.
@usableFromInline
final class WeakReference: Sendable {
    private struct Slot {
        weak var object: AnyObject?
    }

    private let slot: LockedValue<Slot>

    @usableFromInline
    init(_ object: AnyObject) {
        // Unchecked (`LockedValue(unchecked:)`): the slot only holds a weak reference; what leaves the lock is a
        // strong reference, whose retain and release are atomic. What a thread does with the object it gets is
        // the caller's to justify (see `KeyValueObservable.observe`).
        slot = LockedValue(unchecked: Slot(object: object))
    }

    @usableFromInline
    var object: AnyObject? {
        slot.withLockUnchecked { $0.object }
    }
}

/// Calls a handler where its delivery says (O9). `dispatch` (queue and main-actor delivery) hands the call to another
/// thread and returns true, or returns false when the call is to be made at once, here.
///
/// Made where the observation is made (its initializers are inlinable), so that `receive`, a direct observation's
/// delivery, is specialized for the observed types there: the storage calls it for every change, and unspecialized
/// generic code would look up the metadata of its generic types on every call.
@usableFromInline
struct Caller<Root: AnyObject, Value>: Sendable {
    @usableFromInline
    typealias Receive =
        @Sendable (
            DirectObservation<Root, Value>, borrowing Notification<Value>, AnyObject, ThreadContext, Bool
        ) -> Void
    @usableFromInline typealias Dispatch = @Sendable (Root, ObservedChange<Value>, any AnyObservation) -> Bool
    @usableFromInline let handler: @Sendable (Root, ObservedChange<Value>) -> Void
    @usableFromInline let dispatch: Dispatch?
    @usableFromInline typealias End = @Sendable (DirectObservation<Root, Value>, Bool) -> Void
    @usableFromInline let receive: Receive
    @usableFromInline let end: End

    /// Called on the mutating thread, or as `dispatch` says.
    @inlinable
    init(_ handler: @escaping @Sendable (Root, ObservedChange<Value>) -> Void, dispatch: Dispatch? = nil) {
        self.handler = handler
        self.dispatch = dispatch
        receive = { $0.deliver($1, from: $2, $3, skip: $4) }
        end = { $0.finishEnd(filed: $1) }
    }
}

extension Caller where Root: Sendable, Value: Sendable {
    /// Called where `delivery` says. The dispatches of one observation happen in its turn order, so the calls reach
    /// the queue in store order (O11).
    @inlinable
    init(_ delivery: ObservationDelivery, _ handler: @escaping @Sendable (Root, ObservedChange<Value>) -> Void) {
        self.init(handler, dispatch: Self.dispatch(delivery))
    }

    /// How `delivery` hands a call to another thread; nil for the mutating thread. The dispatched calls take the
    /// handler from the gate (none once the observation ended).
    @usableFromInline
    static func dispatch(_ delivery: ObservationDelivery) -> Dispatch? {
        switch delivery {
        case .mutatingThread:
            return nil
        case .queue(let queue):
            return { root, change, observation in
                queue.async { observation.withGate { $0.call(ThreadContext.current) { call(root, change, $0) } } }
                return true
            }
        case .mainActor:
            // At once when already on the main actor and no earlier call of this observation waits on the main
            // queue (it would be overtaken); otherwise on the main queue.
            return { root, change, observation in
                if isOnMainActor && !observation.withGate({ $0.hasCallsQueuedOnMain }) { return false }
                observation.withGate { $0.queuedOnMain(1) }
                DispatchQueue.main.async {
                    observation.withGate { gate in
                        gate.call(ThreadContext.current) { call(root, change, $0) }
                        gate.queuedOnMain(-1)
                    }
                }
                return true
            }
        }
    }

    /// Calls the handler of `caller`.
    private static func call(_ root: Root, _ change: ObservedChange<Value>, _ caller: Caller) {
        caller.handler(root, change)
    }
}

/// Whether the caller runs on the main actor: on the main thread, or on the main queue (which the main actor runs on,
/// and which on Linux is served by another thread once `dispatchMain()` ran). Package-visible so CanvasKit decides
/// the same way when it hops to the main actor.
package var isOnMainActor: Bool {
    Thread.isMainThread || DispatchQueue.getSpecific(key: mainQueueKey) != nil
}

/// Marks the main queue so `isOnMainActor` can recognize it.
private let mainQueueKey: DispatchSpecificKey<Bool> = {
    let key = DispatchSpecificKey<Bool>()
    DispatchQueue.main.setSpecific(key: key, value: true)
    return key
}()

/// `lhs == rhs` when `Value` is `Equatable` (found at run time); nil when it is not.
@usableFromInline
func areEqual<Value>(_ lhs: Value, _ rhs: Value) -> Bool? {
    guard let type = Value.self as? any Equatable.Type else { return nil }
    func compare<E: Equatable>(_: E.Type) -> Bool { (lhs as? E) == (rhs as? E) }
    return compare(type)
}

/// `\Doc.title` for a key path. Key paths to wrapped properties print as `<computed ...>`, so those are named from
/// the properties an evaluation of the path reads (`\Folder.document.title`). A key path that is one property of its
/// root, described once per root type, is remembered: an audit that lists the same observations after every step
/// of a scroll does not reflect on the object each time.
func describe(_ keyPath: AnyKeyPath, of root: AnyObject) -> String {
    let remembered = DescribedKeyPath(
        rootType: ObjectIdentifier(type(of: root)), keyPath: SharedKeyPath(keyPath: keyPath))
    if let text = describedKeyPaths.withLock({ $0[remembered] }) { return text }
    let text = String(describing: keyPath).replacingOccurrences(of: "?", with: "")
    guard text.contains("<computed") else {
        remember(text, for: remembered)
        return text
    }
    let context = ThreadContext.current
    func read<Root: AnyObject>(_ root: Root) -> Any? { root[keyPath: keyPath] }
    let (_, reads) = context.record { read(root) }
    let names = reads.map { propertyName(of: $0.storage, in: $0.object) }
    let described = "\\\(type(of: root)).\(names.joined(separator: "."))"
    // Only a property of the root itself: a chain read partway (a nil link) would be named short.
    if reads.count == 1, reads[0].object === root, reads[0].keyPath == keyPath { remember(described, for: remembered) }
    return described
}

private func remember(_ text: String, for keyPath: DescribedKeyPath) {
    describedKeyPaths.withLock { table in
        if table.count < 4_096 { table[keyPath] = text }
    }
}

/// A key path described for one root type.
private struct DescribedKeyPath: Hashable, Sendable {
    let rootType: ObjectIdentifier
    let keyPath: SharedKeyPath
}

/// The descriptions of the key paths of single properties, by root type (bounded: a program names few of them).
private let describedKeyPaths = LockedValue<[DescribedKeyPath: String]>([:])

/// The property wrappers, whose storage reflection (and a `StorageLocator`) can find.
@usableFromInline
protocol StorageHolding {
    var storageObject: AnyObject { get }
}

/// Finds a property's storage in an object of the class it was made for, without calling the property's getter: the
/// accessor makes it (only while a registration records the read) from the wrapper's key path, a stored property of
/// the class (a wrapper's own, or a `let` its getter names), so that the code that evaluates it is specialized.
@usableFromInline
final class StorageLocator {
    @usableFromInline let storage: (AnyObject) -> AnyObject?

    @inlinable
    init<Instance: AnyObject, Wrapper: StorageHolding>(_ keyPath: KeyPath<Instance, Wrapper>) {
        storage = { object in (object as? Instance)?[keyPath: keyPath].storageObject }
    }

    /// A locator through `keyPath`, a key path the caller named: nil unless it leads to `storage` in `instance`.
    @inlinable
    convenience init?<Instance: AnyObject, Wrapper: StorageHolding>(
        _ keyPath: KeyPath<Instance, Wrapper>, of instance: Instance, _ storage: AnyObject
    ) {
        guard instance[keyPath: keyPath].storageObject === storage else { return nil }
        self.init(keyPath)
    }
}

/// The name of the property of `object` whose storage is `storage`, found by reflection (diagnostics only).
func propertyName(of storage: AnyObject, in object: AnyObject) -> String {
    var mirror: Mirror? = Mirror(reflecting: object)
    while let current = mirror {
        for child in current.children {
            if let holder = child.value as? any StorageHolding, holder.storageObject === storage,
                let label = child.label
            {
                return label.hasPrefix("_") ? String(label.dropFirst()) : label
            }
        }
        mirror = current.superclassMirror
    }
    return "<property>"
}

/// The fully qualified name of `object`'s type, remembered per type (a name never changes, and making it demangles):
/// an audit lists the same observations after every step of a scroll.
func typeName(of object: AnyObject) -> String {
    let type = ObjectIdentifier(Swift.type(of: object))
    if let name = typeNames.withLock({ $0[type] }) { return name }
    let name = String(reflecting: Swift.type(of: object))
    typeNames.withLock { table in
        if table.count < 4_096 { table[type] = name }
    }
    return name
}

/// The names of the types `typeName(of:)` was asked about (bounded: a program observes few types).
private let typeNames = LockedValue<[ObjectIdentifier: String]>([:])

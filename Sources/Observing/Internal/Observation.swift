import Dispatch
import Foundation
import Locking

/// What every observation offers the registry, tokens and observers, whatever it observes.
protocol AnyObservation: AnyObject, Sendable {
    var info: ObservationInfo { get }
    /// Its handler calls' gate (a token keeps it after letting the observation go).
    var gate: CallGate { get }
    /// The observed object, while it exists.
    var rootObject: AnyObject? { get }
    /// Not ended, its object still there, and its owner (if any) too.
    var isActive: Bool { get }
    /// Ends it: after this returns no handler call starts, and a call running on another thread has returned (O7).
    /// `filed`: it may still be listed in the registry (false when the caller took it off already).
    func end(filed: Bool)
}

extension AnyObservation {
    func end() { end(filed: true) }
    var id: ObjectIdentifier { ObjectIdentifier(self) }

    /// Its diagnostics record, when active (O10); `observer` is the `KeyValueObserver` that filed it, if any.
    func record(observer: ObjectIdentifier? = nil) -> ObservationRecord? {
        guard isActive, let root = rootObject else { return nil }
        return ObservationRecord(
            objectType: String(reflecting: type(of: root)), objectIdentifier: info.objectIdentifier,
            keyPath: describe(info.keyPath, of: root), options: info.options, delivery: info.delivery,
            ownerType: info.owner?.typeName, ownerIdentifier: info.owner?.identifier, observerIdentifier: observer)
    }

    /// Whether its owner, if it has one, still exists.
    var ownerIsAlive: Bool { info.owner.map { $0.link.object != nil } != false }
}

/// What an observation was registered with.
struct ObservationInfo: Sendable {
    let objectIdentifier: ObjectIdentifier
    let keyPath: AnyKeyPath & Sendable
    let options: ObservationOptions
    let delivery: ObservationDelivery
    let owner: OwnerDescription?
}

/// Who registered an observation through a `KeyValueObserver`.
struct OwnerDescription: Sendable {
    let typeName: String
    let identifier: ObjectIdentifier
    let link: WeakReference
}

/// A weak reference, kept behind a lock (`Guarded<WeakSlot>`) to be read from any thread.
struct WeakSlot { weak var object: AnyObject? }

/// A weak reference readable from any thread, shared (an owner's, by its observations).
final class WeakReference: Sendable {
    private let slot: Guarded<WeakSlot>
    init(_ object: AnyObject) { slot = Guarded(WeakSlot(object: object)) }
    var object: AnyObject? { slot.with { $0.object } }
}

/// Whether the caller runs on the main actor: on the main thread, or on the main queue (which the main actor runs on,
/// and which on Linux is served by another thread once `dispatchMain()` ran). Package-visible so CanvasKit decides the
/// same way when it hops to the main actor.
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
func areEqual<Value>(_ lhs: Value, _ rhs: Value) -> Bool? {
    guard let type = Value.self as? any Equatable.Type else { return nil }
    func compare<E: Equatable>(_: E.Type) -> Bool { (lhs as? E) == (rhs as? E) }
    return compare(type)
}

/// `\Doc.title` for a key path. Key paths to wrapped properties print as `<computed ...>`, so those are named from the
/// properties an evaluation of the path reads (`\Folder.document.title`). A key path that is one property of its root,
/// described once per root type, is remembered: an audit that lists the same observations after every step of a scroll
/// does not reflect on the object each time.
func describe(_ keyPath: AnyKeyPath & Sendable, of root: AnyObject) -> String {
    let rootType = ObjectIdentifier(type(of: root))
    if let text = describedKeyPaths.withLock({ $0[rootType]?[keyPath] }) { return text }
    var text = String(describing: keyPath).replacingOccurrences(of: "?", with: "")
    var remembered = true
    if text.contains("<computed") {
        func read<Root: AnyObject>(_ root: Root) -> Any? { root[keyPath: keyPath as AnyKeyPath] }
        var reads: [TrackedRead] = []
        _ = ThreadContext.current.record(&reads) { read(root) }
        let names = reads.map { propertyName(of: $0.storage, in: $0.object) }
        text = "\\\(type(of: root)).\(names.joined(separator: "."))"
        // Only a property of the root itself: a chain read partway (a nil link) would be named short.
        remembered = reads.count == 1 && reads[0].object === root && reads[0].keyPath == keyPath
    }
    if remembered {
        describedKeyPaths.withLock { table in
            if table.count < 256 { table[rootType, default: [:]][keyPath] = text }
        }
    }
    return text
}

/// The descriptions of the key paths of single properties, by root type (bounded: a program names few of them).
private let describedKeyPaths = LockedValue<[ObjectIdentifier: [AnyKeyPath: String]]>([:])

/// The property wrappers, whose storage reflection finds (diagnostics name a property by it).
protocol StorageHolding {
    var storageObject: AnyObject { get }
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

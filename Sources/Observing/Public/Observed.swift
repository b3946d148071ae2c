/// Makes a stored property of a ``KeyValueObservable`` class observable.
///
/// ```swift
/// final class Canvas: KeyValueObservable {
///     @Observed var isSelected = false
///     @Observed var videoURL: URL?
/// }
/// ```
///
/// The value lives behind a lock, so reads and writes are safe from any thread. A write stores the value, then notifies
/// the observations of this property of this object (and the chained ones that go through it), on the writing thread
/// unless they chose another delivery. Handlers see the value already stored (O6). A write made inside a handler is
/// stored at once and notified after that handler returns (O8).
///
/// Equal values: when `Value` is `Equatable`, writing a value equal to the stored one stores it but does not notify (so
/// only properties whose values changed notify). Non-`Equatable` values notify on every write.
///
/// Only for properties of classes: the wrapper finds the object through the enclosing-instance subscript, which structs
/// do not have.
@propertyWrapper
public struct Observed<Value> {
    @usableFromInline let storage: PropertyStorage<Value>

    /// Creates the property with its initial value; writes notify on every store.
    @inlinable public init(wrappedValue: Value) {
        storage = PropertyStorage(wrappedValue, isEqual: nil)
    }

    /// Creates the property with its initial value; a write of an equal value does not notify.
    @inlinable public init(wrappedValue: Value) where Value: Equatable {
        storage = PropertyStorage(wrappedValue, isEqual: { $0 == $1 })
    }

    /// Unavailable: `@Observed` needs the enclosing object, so it works on class properties only.
    @available(*, unavailable, message: "@Observed can only be applied to properties of classes")
    public var wrappedValue: Value {
        get { fatalError("unreachable: wrappedValue is unavailable") }
        // swift-format-ignore
        set { fatalError("unreachable: wrappedValue is unavailable") }
    }

    /// The property's value, read and written through the enclosing object.
    @inlinable
    public static subscript<Instance: KeyValueObservable>(
        _enclosingInstance instance: Instance,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Instance, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Instance, Self>
    ) -> Value {
        get { instance[keyPath: storageKeyPath].storage.read(instance, wrappedKeyPath) }
        set { instance[keyPath: storageKeyPath].storage.set(newValue, of: instance) }
    }
}

/// The value lives behind the storage's lock, so the property crosses threads exactly when its value may.
extension Observed: Sendable where Value: Sendable {}

extension Observed: StorageHolding {
    var storageObject: AnyObject { storage }
}

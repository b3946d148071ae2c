/// Makes a stored property of a ``KeyValueObservable`` class observable.
///
/// ```swift
/// final class Canvas: KeyValueObservable {
///     @Observed var isSelected = false
///     @Observed var videoURL: URL?
/// }
/// ```
///
/// The value lives behind a lock, so reads and writes are safe from any thread. A write stores the value,
/// then notifies the observations of this property of this object (and the chained ones that go through
/// it), on the writing thread unless they chose another delivery. Handlers see the value already stored
/// (O6). A write made inside a handler is stored at once and notified after that handler returns (O8).
///
/// Equal values: when `Value` is `Equatable`, writing a value equal to the stored one stores it but does
/// not notify (so only properties whose values changed notify). Non-`Equatable` values notify on every
/// write.
///
/// Only for properties of classes: the wrapper finds the object through the enclosing-instance
/// subscript, which structs do not have.
@propertyWrapper
public struct Observed<Value> {
    @usableFromInline
    let storage: PropertyStorage<Value>

    /// Creates the property with its initial value; writes notify on every store.
    @inlinable
    public init(wrappedValue: Value) {
        storage = PropertyStorage(wrappedValue, isEqual: nil)
    }

    /// Creates the property with its initial value; a write of an equal value does not notify.
    /// (Inlinable so that `==` is specialized for `Value` where the model is compiled.)
    @inlinable
    public init(wrappedValue: Value) where Value: Equatable {
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
    ///
    /// The setter does not use the key paths, so the optimizer drops them. The getter uses only
    /// `wrappedKeyPath`, and only while `observe` evaluates a key path (see `ThreadContext.track`);
    /// still, the compiler builds it on every read. Using `storageKeyPath` there too would cost every
    /// read a second key path and a dynamic exclusivity check (about 170 instructions).
    @inlinable
    public static subscript<Instance: KeyValueObservable>(
        _enclosingInstance instance: Instance,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Instance, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Instance, Self>
    ) -> Value {
        @inline(__always)
        get {
            let storage = Unmanaged.passUnretained(instance[keyPath: storageKeyPath].storage)
            // Swift Observation (O12): a read inside `withObservationTracking` is tracked.
            storage._withUnsafeGuaranteedRef { $0.observationAccess(instance, wrappedKeyPath) }
            if _slowPath(isTracking) {
                return storage._withUnsafeGuaranteedRef { $0.trackedValue(of: instance, keyPath: wrappedKeyPath) }
            }
            return storage._withUnsafeGuaranteedRef { $0.withState { $0.value } }
        }
        @inline(__always)
        set {
            Unmanaged.passUnretained(instance[keyPath: storageKeyPath].storage)._withUnsafeGuaranteedRef {
                // Swift Observation (O12): a property read through its getter also tells its registrar, when a
                // tracking may hold it.
                if _slowPath($0.mayBeTrackedByObservation) {
                    $0.setValueNotifyingObservation(newValue, of: instance)
                } else {
                    $0.setValue(newValue, of: instance)
                }
            }
        }
    }
}

extension Observed: StorageHolding {
    var storageIdentifier: ObjectIdentifier {
        ObjectIdentifier(storage)
    }
}

/// `@Observed` and `@ObservedArray` kept in a `let`, for a model that threads share.
///
/// A property wrapper's storage is a `var`, and a class that is `Sendable` (checked by the compiler) may have no `var`.
/// A `@MainActor` model, or one that stays on one thread, uses the wrappers and needs no `Sendable` conformance. A
/// model that several threads read and write keeps each property's storage in a `let` and forwards a computed property
/// to it: the storage is `Sendable` where its value is, so the class is too, with no `@unchecked`. Reads, writes,
/// observation, chains, diagnostics and Swift Observation behave exactly as with the wrapper.
///
/// ```swift
/// import Observing
///
/// final class Canvas: KeyValueObservable, Sendable {
///     private let _isSelected = Observed(wrappedValue: false)
///     private let _takes = ObservedArray<String>(wrappedValue: [])
///
///     var isSelected: Bool {
///         get { _isSelected[self, \.isSelected] }
///         set { _isSelected[self, \.isSelected] = newValue }
///     }
///     var takes: [String] { _takes[self, \.takes] }
///     func addTake(_ name: String) { _takes.editor(self, \.takes).append(name) }  // .insertion at [n]
/// }
/// ```
///
/// The storage must be stored in the object it is read through, once per property, and the key path must name the
/// property that forwards to it (as the wrapper does for you): a key path to another property would file its
/// notifications under the wrong name. The object must be `Sendable`: a chain through it is then followed only from
/// roots known to be `Sendable` (see `observe(_:options:_:)`).
extension Observed {
    /// The value, read or written as the property `keyPath` of `instance` (what `@Observed`'s accessors do).
    @inlinable
    public subscript<Instance: KeyValueObservable & Sendable>(
        _ instance: Instance, _ keyPath: KeyPath<Instance, Value>
    ) -> Value {
        get { storage.read(instance, keyPath, shared: true) }
        nonmutating set { storage.set(newValue, of: instance) }
    }
}

extension ObservedArray {
    /// The array, read or assigned as the property `keyPath` of `instance` (what `@ObservedArray`'s accessors do).
    @inlinable
    public subscript<Instance: KeyValueObservable & Sendable>(
        _ instance: Instance, _ keyPath: KeyPath<Instance, [Element]>
    ) -> [Element] {
        get { storage.read(instance, keyPath, shared: true) }
        nonmutating set { storage.set(newValue, of: instance) }
    }

    /// The editor of the property `keyPath` of `instance` (what `$property` is with the wrapper): its mutations send
    /// insertions, removals and replacements with their indexes.
    public func editor<Instance: KeyValueObservable>(_ instance: Instance, _ keyPath: KeyPath<Instance, [Element]>)
        -> ObservedArrayEditor<Element>
    {
        let storage = self.storage
        return ObservedArrayEditor(storage: storage) { body in
            storage.write(instance, body)
        }
    }
}

public import Foundation

/// An observable ordered collection property of a ``KeyValueObservable`` class: its changes arrive as insertions,
/// removals and replacements with exact index sets, so a collection view can apply batch updates instead of reloading.
///
/// ```swift
/// final class Board: KeyValueObservable {
///     @ObservedArray var canvases: [Canvas] = []
/// }
///
/// board.$canvases.append(canvas)           // .insertion at [n]
/// board.$canvases.remove(at: 0)            // .removal at [0]
/// board.$canvases[1] = other               // .replacement at [1]
/// board.canvases = reordered               // Identifiable elements: diffed into removal,
///                                          // insertion, replacement (in that order)
/// ```
///
/// Whole assignment (`board.canvases = ...`):
/// - `Identifiable` elements are diffed by `id`: one `.removal` (indexes in the old array), then one `.insertion`
///   (indexes in the new array), then, for `Equatable` elements, one `.replacement` of the elements that kept their
///   `id` but changed (indexes in the new array). Applying them in that order to a copy of the old array gives the new
///   one. Nothing changed, nothing is sent. A moved element is a removal plus an insertion.
/// - Other elements: one `.setting` (not sent if the arrays are `Equatable` and equal).
///
/// The projected value (`$canvases`) is an ``ObservedArrayEditor`` whose mutations send the matching change. Each
/// mutation is applied and notified atomically, like `@Observed` writes.
@propertyWrapper
public struct ObservedArray<Element> {
    @usableFromInline let storage: PropertyStorage<[Element]>

    /// An array whose whole assignment is one `.setting` change.
    public init(wrappedValue: [Element] = []) {
        storage = PropertyStorage(wrappedValue, isEqual: nil)
    }

    /// An array whose whole assignment is one `.setting` change, not sent when equal.
    public init(wrappedValue: [Element] = []) where Element: Equatable {
        storage = PropertyStorage(wrappedValue, isEqual: { $0 == $1 })
    }

    /// An array whose whole assignment is diffed by `id` into removals and insertions.
    public init(wrappedValue: [Element] = []) where Element: Identifiable {
        storage = PropertyStorage(
            wrappedValue, isEqual: nil, diff: { identifiableChanges(from: $0, to: $1, isEqual: nil) })
    }

    /// An array whose whole assignment is diffed by `id` into removals, insertions and replacements.
    public init(wrappedValue: [Element] = []) where Element: Identifiable & Equatable {
        storage = PropertyStorage(
            wrappedValue, isEqual: { $0 == $1 }, diff: { identifiableChanges(from: $0, to: $1, isEqual: { $0 == $1 }) })
    }

    /// Unavailable: `@ObservedArray` needs the enclosing object, so it works on class properties only.
    @available(*, unavailable, message: "@ObservedArray can only be applied to properties of classes")
    public var wrappedValue: [Element] {
        get { fatalError("unreachable: wrappedValue is unavailable") }
        // swift-format-ignore
        set { fatalError("unreachable: wrappedValue is unavailable") }
    }

    /// Unavailable: `$property` is provided through the enclosing object.
    @available(*, unavailable, message: "@ObservedArray can only be applied to properties of classes")
    public var projectedValue: ObservedArrayEditor<Element> {
        fatalError("unreachable: projectedValue is unavailable")
    }

    /// The array, read and assigned through the enclosing object.
    @inlinable
    public static subscript<Instance: KeyValueObservable>(
        _enclosingInstance instance: Instance,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Instance, [Element]>,
        storage storageKeyPath: ReferenceWritableKeyPath<Instance, Self>
    ) -> [Element] {
        get { instance[keyPath: storageKeyPath].storage.read(instance, wrappedKeyPath) }
        set { instance[keyPath: storageKeyPath].storage.set(newValue, of: instance) }
    }

    /// The editor (`$property`) whose mutations send insertions, removals and replacements.
    public static subscript<Instance: KeyValueObservable>(
        _enclosingInstance instance: Instance,
        projected _: KeyPath<Instance, ObservedArrayEditor<Element>>,
        storage storageKeyPath: ReferenceWritableKeyPath<Instance, Self>
    ) -> ObservedArrayEditor<Element> {
        let storage = instance[keyPath: storageKeyPath].storage
        return ObservedArrayEditor(storage: storage) { body in
            storage.write(instance, body)
        }
    }
}

/// Mutates an ``ObservedArray`` property and sends the matching collection change.
///
/// Index preconditions are those of `Array`: an index out of range stops the program, as it would for the array itself.
public struct ObservedArrayEditor<Element> {
    let storage: PropertyStorage<[Element]>
    /// Applies an edit through the storage's write, with the enclosing object.
    let write: ((inout [Element]) -> [ObservedChange<[Element]>]) -> Void

    /// The current elements (not recorded as a read for chained observation).
    public var elements: [Element] { storage.untrackedValue }

    /// The number of elements.
    public var count: Int { storage.untrackedValue.count }

    /// Reads or replaces one element; replacing sends `.replacement` at `[index]`.
    public subscript(index: Int) -> Element {
        get { storage.untrackedValue[index] }
        nonmutating set { replace(at: index, with: newValue) }
    }

    /// Appends `element`: `.insertion` at `[count]`.
    public func append(_ element: Element) { append(contentsOf: CollectionOfOne(element)) }

    /// Appends `elements`: one `.insertion` of their indexes (nothing if empty).
    public func append(contentsOf elements: some Sequence<Element>) {
        let elements = Array(elements)
        guard !elements.isEmpty else { return }
        edit { array in
            let start = array.count
            array.append(contentsOf: elements)
            return ObservedChange(
                kind: .insertion, oldValue: nil, newValue: elements, indexes: IndexSet(integersIn: start..<array.count))
        }
    }

    /// Inserts `element` at `index` (`0...count`): `.insertion` at `[index]`.
    public func insert(_ element: Element, at index: Int) {
        insert(contentsOf: CollectionOfOne(element), at: index)
    }

    /// Inserts `elements` at `index`: one `.insertion` of `index..<index + count` (nothing if empty).
    public func insert(contentsOf elements: some Collection<Element>, at index: Int) {
        let elements = Array(elements)
        guard !elements.isEmpty else { return }
        edit { array in
            array.insert(contentsOf: elements, at: index)
            return ObservedChange(
                kind: .insertion, oldValue: nil, newValue: elements,
                indexes: IndexSet(integersIn: index..<index + elements.count))
        }
    }

    /// Removes and returns the element at `index`: `.removal` at `[index]`.
    @discardableResult
    public func remove(at index: Int) -> Element {
        var removed: Element?
        edit { array in
            removed = array.remove(at: index)
            return ObservedChange(
                kind: .removal, oldValue: [removed!], newValue: nil, indexes: IndexSet(integer: index))
        }
        guard let removed else { preconditionFailure("remove(at:) removed nothing") }
        return removed
    }

    /// Removes the elements at `offsets`: one `.removal` of those indexes (nothing if empty).
    public func remove(atOffsets offsets: IndexSet) {
        guard !offsets.isEmpty else { return }
        edit { array in
            precondition(offsets.last! < array.count, "remove(atOffsets:): index out of range")
            let removed = offsets.map { array[$0] }
            for offset in offsets.reversed() { array.remove(at: offset) }
            return ObservedChange(kind: .removal, oldValue: removed, newValue: nil, indexes: offsets)
        }
    }

    /// Removes every element: one `.removal` of all indexes (nothing if already empty).
    public func removeAll() {
        edit { array in
            guard !array.isEmpty else { return nil }
            let removed = array
            array.removeAll()
            return ObservedChange(
                kind: .removal, oldValue: removed, newValue: nil, indexes: IndexSet(integersIn: 0..<removed.count))
        }
    }

    /// Replaces the element at `index`: `.replacement` at `[index]`.
    public func replace(at index: Int, with element: Element) {
        edit { array in
            let old = array[index]
            array[index] = element
            return ObservedChange(
                kind: .replacement, oldValue: [old], newValue: [element], indexes: IndexSet(integer: index))
        }
    }

    private func edit(_ body: (inout [Element]) -> ObservedChange<[Element]>?) {
        write { array in body(&array).map { [$0] } ?? [] }
    }
}

/// The changes that turn `old` into `new`, matching elements by `id`: removals (old indexes), then insertions (new
/// indexes), then replacements of matched elements that differ (new indexes).
func identifiableChanges<Element: Identifiable>(
    from old: [Element],
    to new: [Element],
    isEqual: ((Element, Element) -> Bool)?
) -> [ObservedChange<[Element]>] {
    let difference = new.difference(from: old) { $0.id == $1.id }
    var removed = IndexSet()
    var inserted = IndexSet()
    for change in difference {
        switch change {
        case .remove(let offset, _, _):
            removed.insert(offset)
        case .insert(let offset, _, _):
            inserted.insert(offset)
        }
    }
    var changes: [ObservedChange<[Element]>] = []
    if !removed.isEmpty {
        changes.append(
            ObservedChange(kind: .removal, oldValue: removed.map { old[$0] }, newValue: nil, indexes: removed))
    }
    if !inserted.isEmpty {
        changes.append(
            ObservedChange(kind: .insertion, oldValue: nil, newValue: inserted.map { new[$0] }, indexes: inserted))
    }
    if let isEqual {
        let keptOld = old.indices.filter { !removed.contains($0) }
        let keptNew = new.indices.filter { !inserted.contains($0) }
        var replaced = IndexSet()
        var before: [Element] = []
        for (oldIndex, newIndex) in zip(keptOld, keptNew) where !isEqual(old[oldIndex], new[newIndex]) {
            replaced.insert(newIndex)
            before.append(old[oldIndex])
        }
        if !replaced.isEmpty {
            changes.append(
                ObservedChange(
                    kind: .replacement, oldValue: before, newValue: replaced.map { new[$0] }, indexes: replaced))
        }
    }
    return changes
}

/// The array lives behind the storage's lock, so the property crosses threads exactly when its elements may.
extension ObservedArray: Sendable where Element: Sendable {}

extension ObservedArray: StorageHolding {
    var storageObject: AnyObject { storage }
}

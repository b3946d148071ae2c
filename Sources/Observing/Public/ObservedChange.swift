public import Foundation

/// The kind of a change, mirroring `NSKeyValueChange`.
public enum ObservedChangeKind: Sendable, Hashable {
    /// The whole value was assigned (or, with `.initial`, reported for the first time).
    case setting
    /// Elements were inserted into an ordered collection at ``ObservedChange/indexes``.
    case insertion
    /// Elements were removed from an ordered collection at ``ObservedChange/indexes``.
    case removal
    /// Elements of an ordered collection at ``ObservedChange/indexes`` were replaced by new values.
    case replacement
}

/// One change delivered to an observation handler.
///
/// For `.setting`, `oldValue` and `newValue` are whole values. For the collection kinds (`.insertion`, `.removal`,
/// `.replacement`) of an ``ObservedArray`` property, `Value` is the array type and `oldValue`/`newValue` hold only the
/// affected elements, in index order: removed or replaced elements in `oldValue`, inserted or replacing elements in
/// `newValue` (Cocoa KVO's convention). Removal indexes refer to the array before the change; insertion and replacement
/// indexes to the array after it.
///
/// `oldValue` is present only when the observation asked for ``ObservationOptions/old``, `newValue` only with
/// ``ObservationOptions/new`` (and never in a prior notification).
public struct ObservedChange<Value> {
    /// What happened.
    public let kind: ObservedChangeKind
    /// The value before the change (requires ``ObservationOptions/old``).
    public let oldValue: Value?
    /// The value after the change (requires ``ObservationOptions/new``; `nil` when `isPrior`).
    public let newValue: Value?
    /// The affected indexes of an ordered collection, or `nil` for `.setting`.
    public let indexes: IndexSet?
    /// `true` for the notification sent before a change (``ObservationOptions/prior``).
    ///
    /// A prior notification normally arrives before the new value is stored. Two documented exceptions arrive after the
    /// store and still carry the old value: a change made inside a handler (re-entrancy, guarantee O8) and a change of
    /// a chained key path (`\.document.title`), whose end value is only known after re-evaluating the chain.
    public let isPrior: Bool

    /// Creates a change; the library builds these, tests and adapters may too.
    @inlinable public init(
        kind: ObservedChangeKind,
        oldValue: Value?,
        newValue: Value?,
        indexes: IndexSet? = nil,
        isPrior: Bool = false
    ) {
        self.kind = kind
        self.oldValue = oldValue
        self.newValue = newValue
        self.indexes = indexes
        self.isPrior = isPrior
    }
}

extension ObservedChange: Sendable where Value: Sendable {}

/// Equal when kind, values, indexes and `isPrior` are equal.
extension ObservedChange: Equatable where Value: Equatable {}

extension ObservedChange {
    /// A change keeping only the values `options` asks for (`old` and `new`; a prior notification has no new value).
    init(
        kind: ObservedChangeKind, oldValue: Value?, newValue: Value?, indexes: IndexSet? = nil, isPrior: Bool = false,
        keeping options: ObservationOptions
    ) {
        self.kind = kind
        self.oldValue = options.contains(.old) ? oldValue : nil
        self.newValue = options.contains(.new) && !isPrior ? newValue : nil
        self.indexes = indexes
        self.isPrior = isPrior
    }

    /// The same change keeping only what `options` asks for.
    func filtered(by options: ObservationOptions) -> ObservedChange {
        ObservedChange(
            kind: kind, oldValue: oldValue, newValue: newValue, indexes: indexes, isPrior: isPrior, keeping: options)
    }

    /// The prior notification that announces this change.
    var prior: ObservedChange {
        ObservedChange(kind: kind, oldValue: oldValue, newValue: nil, indexes: indexes, isPrior: true)
    }
}

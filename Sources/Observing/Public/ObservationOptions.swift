/// What an observation delivers, the way Cocoa KVO's `NSKeyValueObservingOptions` does.
///
/// - `initial`: the handler is called once from `observe`, before it returns, with the current value (`kind ==
///   .setting`, `oldValue == nil`). The observation is registered before that call, so the handler may already end it.
/// - `prior`: before each change the handler is also called with `isPrior == true` and the value as it was (`oldValue`,
///   when `.old` is set). See ``ObservedChange/isPrior`` for when a prior notification comes after the store.
/// - `old`: changes carry `oldValue`.
/// - `new`: changes carry `newValue`.
///
/// Without `.old` or `.new` the matching value of every ``ObservedChange`` is `nil`: the handler learns that something
/// changed and reads the object itself.
public struct ObservationOptions: OptionSet, Sendable, Hashable {
    /// The option bits.
    public let rawValue: UInt8

    /// Creates options from their raw bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Call the handler once from `observe` with the current value.
    public static let initial = ObservationOptions(rawValue: 1 << 0)
    /// Also call the handler before each change, with `isPrior == true`.
    public static let prior = ObservationOptions(rawValue: 1 << 1)
    /// Changes carry the value before the change in `oldValue`.
    public static let old = ObservationOptions(rawValue: 1 << 2)
    /// Changes carry the value after the change in `newValue`.
    public static let new = ObservationOptions(rawValue: 1 << 3)
}

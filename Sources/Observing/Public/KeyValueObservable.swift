public import Observation

/// A class whose `@Observed` and `@ObservedArray` properties can be observed by key path.
///
/// Adopting it takes nothing else: no registry, no base class, no macro.
///
/// ```swift
/// final class Doc: KeyValueObservable {
///     @Observed var title = ""
/// }
///
/// let doc = Doc()
/// let token = doc.observe(\.title, options: [.old, .new]) { doc, change in
///     print(change.oldValue!, "->", change.newValue!)
/// }
/// doc.title = "Draft"   // prints " -> Draft"
/// token.invalidate()
/// ```
///
/// Key paths may chain through observable objects and optionals (`\.document?.isFavorite`); any key path whose value is
/// computed from `@Observed` properties can be observed.
///
/// It refines Swift Observation's `Observable`: reading a property inside `withObservationTracking` (what SwiftUI does
/// in a view's body) tracks it, and `@Bindable` and `.environment(_:)` accept the object (O12; see
/// `Docs/Observing.md`).
public protocol KeyValueObservable: AnyObject, Observation.Observable, SendableMetatype {}

extension KeyValueObservable {
    /// Observes `keyPath` of this object; `handler` runs on the mutating thread.
    ///
    /// The observation is registered before this returns (and before the `.initial` call, which may end it). It lasts
    /// until the token is invalidated or released, or this object goes away; it retains neither this object nor the
    /// objects on the key path.
    ///
    /// Direct properties notify on every store, except that a value equal to the stored one (`Equatable` values) does
    /// not notify. Key paths that go through other objects or computed properties are re-evaluated when anything they
    /// read changes, and notify when their value changed (always, for values that are not `Equatable`). A key path that
    /// reads no `@Observed` property can never notify; this is reported to ``ObservationDiagnostics``.
    ///
    /// The handler is `@Sendable` because it runs on whichever thread writes the property: the type system cannot know
    /// that thread. It receives this object, so it need not capture it. A chain is evaluated again on the thread that
    /// writes one of its links, and reads this object there: so it follows a `Sendable` object (its storage in `let`s)
    /// only from one known to be `Sendable`, observed with a `delivery`, on the main actor, or through its own `let`
    /// storage; otherwise ``ObservationIssue/sharedObjectNotFollowed(objectType:keyPath:)`` is reported.
    ///
    /// - Parameters:
    ///   - keyPath: what to observe, from this object.
    ///   - options: what the changes carry (default: old and new values).
    ///   - handler: called with this object and each change.
    /// - Returns: the token that keeps the observation alive.
    public func observe<Value>(
        _ keyPath: KeyPath<Self, Value> & Sendable,
        options: ObservationOptions = [.old, .new],
        _ handler: @escaping @Sendable (Self, ObservedChange<Value>) -> Void
    ) -> ObservationToken {
        ObservationToken(
            register(keyPath, options: options, delivery: .mutatingThread, shared: false, caller: Caller(handler)))
    }

    /// Observes `keyPath`, delivering on the thread, queue or actor chosen by `delivery` (O9).
    ///
    /// Queue and main-actor delivery hand the object and its values to another thread, so both must be `Sendable`.
    /// Changes are delivered in order; the `.initial` call is delivered the same way. Otherwise identical to
    /// ``observe(_:options:_:)``.
    public func observe<Value: Sendable>(
        _ keyPath: KeyPath<Self, Value> & Sendable,
        options: ObservationOptions = [.old, .new],
        delivery: ObservationDelivery,
        _ handler: @escaping @Sendable (Self, ObservedChange<Value>) -> Void
    ) -> ObservationToken where Self: Sendable {
        let caller = Caller(delivery, handler)
        return ObservationToken(register(keyPath, options: options, delivery: delivery, shared: true, caller: caller))
    }

    /// Observes `keyPath` with a main-actor handler: called synchronously for changes made on the main actor, otherwise
    /// on the main queue, in order. Otherwise identical to ``observe(_:options:_:)``.
    ///
    /// A `@MainActor` model class is `Sendable` by its isolation. Its observed properties are `nonisolated`, forwarding
    /// to storage kept in a `let` (see `Observed`'s subscripts), so that their key paths are `Sendable`.
    public func observeOnMainActor<Value: Sendable>(
        _ keyPath: KeyPath<Self, Value> & Sendable,
        options: ObservationOptions = [.old, .new],
        _ handler: @escaping @MainActor (Self, ObservedChange<Value>) -> Void
    ) -> ObservationToken where Self: Sendable {
        let caller = Caller(.mainActor, mainActorHandler(handler))
        return ObservationToken(register(keyPath, options: options, delivery: .mainActor, shared: true, caller: caller))
    }
}

/// A main-actor handler as one that the delivery calls only on the main actor.
func mainActorHandler<Root: Sendable, Value: Sendable>(
    _ handler: @escaping @MainActor (Root, ObservedChange<Value>) -> Void
) -> @Sendable (Root, ObservedChange<Value>) -> Void {
    { root, change in MainActor.assumeIsolated { handler(root, change) } }
}

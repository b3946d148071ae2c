import Dispatch
import Foundation
public import Observation
import Synchronization

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
/// Key paths may chain through observable objects and optionals (`\.document?.isFavorite`); any key
/// path whose value is computed from `@Observed` properties can be observed.
///
/// It refines Swift Observation's `Observable`: reading a property inside `withObservationTracking`
/// (what SwiftUI does in a view's body) tracks it, and `@Bindable` and `.environment(_:)` accept the
/// object (O12; see `Docs/Observing.md`).
public protocol KeyValueObservable: AnyObject, Observation.Observable, SendableMetatype {}

extension KeyValueObservable {
    /// Observes `keyPath` of this object; `handler` runs on the mutating thread.
    ///
    /// The observation is registered before this returns (and before the `.initial` call, which may end
    /// it). It lasts until the token is invalidated or released, or this object goes away; it retains
    /// neither this object nor the objects on the key path.
    ///
    /// Direct properties notify on every store, except that a value equal to the stored one (`Equatable`
    /// values) does not notify. Key paths that go through other objects or computed properties are
    /// re-evaluated when anything they read changes, and notify when their value changed (always, for
    /// values that are not `Equatable`). A key path that reads no `@Observed` property can never
    /// notify; this is reported to ``ObservationDiagnostics``.
    ///
    /// - Parameters:
    ///   - keyPath: what to observe, from this object.
    ///   - options: what the changes carry (default: old and new values).
    ///   - handler: called with this object and each change.
    /// - Returns: the token that keeps the observation alive.
    @inlinable
    public func observe<Value>(
        _ keyPath: KeyPath<Self, Value>,
        options: ObservationOptions = [.old, .new],
        _ handler: @escaping @Sendable (Self, ObservedChange<Value>) -> Void
    ) -> ObservationToken {
        let core = register(
            keyPath, options: options, delivery: .mutatingThread, handler: handler, owner: nil, send: nil,
            direct: { change, object, _ in
                // The handler is called directly here (not through the observation) so that this path stays
                // specialized. The storage guards this call (`Hazards`: invalidate waits for it and no call
                // starts after), and drops this closure, and with it the handler, on invalidate.
                let root = unsafeDowncast(object, to: Self.self)
                change.withFiltered(by: options) { handler(root, $0) }
            }
        ).core
        return ObservationToken(listing: core)
    }

    /// Observes `keyPath`, delivering on the thread, queue or actor chosen by `delivery` (O9).
    ///
    /// Queue and main-actor delivery hand the object and its values to another thread, so both must be
    /// `Sendable`. Changes are delivered in order; the `.initial` call is delivered the same way.
    /// Otherwise identical to ``observe(_:options:_:)``.
    public func observe<Value: Sendable>(
        _ keyPath: KeyPath<Self, Value>,
        options: ObservationOptions = [.old, .new],
        delivery: ObservationDelivery,
        _ handler: @escaping @Sendable (Self, ObservedChange<Value>) -> Void
    ) -> ObservationToken where Self: Sendable {
        ObservationToken(
            listing: register(
                keyPath, options: options, delivery: delivery, handler: handler, owner: nil,
                send: makeSend(delivery: delivery, for: Self.self, Value.self), direct: nil
            ).core)
    }

    /// Observes `keyPath` with a main-actor handler: called synchronously for changes made on the main
    /// actor, otherwise on the main queue, in order. Otherwise identical to ``observe(_:options:_:)``.
    public func observeOnMainActor<Value: Sendable>(
        _ keyPath: KeyPath<Self, Value>,
        options: ObservationOptions = [.old, .new],
        _ handler: @escaping @MainActor @Sendable (Self, ObservedChange<Value>) -> Void
    ) -> ObservationToken where Self: Sendable {
        ObservationToken(
            listing: register(
                keyPath, options: options, delivery: .mainActor,
                handler: { object, change in MainActor.assumeIsolated { handler(object, change) } }, owner: nil,
                send: makeSend(delivery: .mainActor, for: Self.self, Value.self), direct: nil
            ).core)
    }

    /// Creates, registers and starts an observation; sends `.initial` after registration.
    /// `send` calls the observation's handler (`KeyPathObservation.callHandler`) where the delivery says (nil: at
    /// once, on the mutating thread); `direct` calls `handler` for a change of a directly observed property, given as
    /// the storage reports it (see `KeyPathObservation`); nil: such a change goes through `send` too.
    ///
    /// Inlinable so that the observation and its subscriber are made where `Self` and `Value` are concrete: the
    /// types' metadata are then found in the caller's caches, not looked up in the runtime's on every call. Never
    /// inlined, though: `observe` must stay small enough to be inlined into its caller, where the handler is a
    /// constant and the optimizer can build `direct` around it (one closure call per delivered change, not two).
    @inlinable
    @inline(never)
    func register<Value>(
        _ keyPath: KeyPath<Self, Value>,
        options: ObservationOptions,
        delivery: ObservationDelivery,
        handler: @escaping @Sendable (Self, ObservedChange<Value>) -> Void,
        owner: OwnerDescription?,
        beforeInitial: (KeyPathObservation<Self, Value>, _ isDirect: Bool) -> Void = { _, _ in },
        send: (@Sendable (KeyPathObservation<Self, Value>, Self, ObservedChange<Value>) -> Void)?,
        direct: (@Sendable (ObservedChange<Value>, AnyObject, ThreadContext) -> Void)?
    ) -> (core: KeyPathObservation<Self, Value>, started: Bool, isDirect: Bool) {
        let core = KeyPathObservation(
            root: self, options: options, delivery: delivery, handler: handler, owner: owner,
            send: send, chainChanged: { $0.chainDidChange() },
            leafLink: { $0.makeLeafLink(for: $1, subscriptionID: $2) })
        // Without `direct`, a change of the property goes through the observation (the queue, the main actor). That
        // subscriber holds the observation, which holds the storage (`KeyPathObservation.directStorage`), whose list
        // holds the subscriber, until `invalidate()`, which every observation gets (its token's `deinit`, or its
        // `KeyValueObserver`) and which removes the subscriber and drops the storage.
        // (Not `direct ?? { ... }`: `??` is generic, and the closure it returns is reabstracted, a thunk called around
        // every delivered change.)
        // Made where it is handed over (below): one made out here is retained for the closure that uses it.
        func makeSubscriber() -> PropertyStorage<Value>.Delivery {
            if let direct {
                return PropertyStorage<Value>.Delivery(direct)
            }
            return PropertyStorage<Value>.Delivery { change, object, _ in
                core.deliver(unsafeDowncast(object, to: Self.self), change.filtered(by: options))
            }
        }
        // Registration runs as a delivery on this thread (O11): a change this thread makes meanwhile (a
        // deinit run by a release during the key path's evaluation, the initial handler writing) is queued
        // behind the initial call, and a change another thread makes after the subscription waits for the
        // initial call (`finishInitial`), so the initial call comes first and no change is lost.
        var started = false
        // Whether the key path is known here to be the observed property itself (see `KeyValueObserver.insert`).
        var isDirect = false
        // The context unretained (a retain and a release fewer: the thread-local slot holds it, see `withCurrent`).
        ThreadContext.withCurrent { context in
            context.deliverNow {
                var initial: Value?
                // A key path this thread has already found to be one `@Observed` property of an object of this very type
                // (the common case: the same literal observed again) reaches its storage directly; any other is evaluated.
                if type(of: self) == Self.self, let storage = context.directProperty(keyPath, of: self, as: Value.self)
                {
                    // Not retained for the call: the object, which the caller holds, holds its storage.
                    started = storage._withUnsafeGuaranteedRef {
                        core.startDirect(storage: $0, direct: makeSubscriber()) { initial = $0 }
                    }
                    isDirect = true
                } else {
                    started = core.start(root: self, keyPath: keyPath, direct: makeSubscriber()) { initial = $0 }
                }
                beforeInitial(core, isDirect)
                if let initial {
                    core.sendInitial(initial)
                }
                core.finishInitial()
            }
        }
        return (core, started, isDirect)
    }
}

/// Calls the handler of the observation it is given where `delivery` says: at once, on a queue, or on the main actor
/// (at once when already there, else on the main queue).
@usableFromInline
func makeSend<Root: Sendable, Value: Sendable>(
    delivery: ObservationDelivery,
    for _: Root.Type,
    _: Value.Type
) -> @Sendable (KeyPathObservation<Root, Value>, Root, ObservedChange<Value>) -> Void {
    switch delivery {
    case .mutatingThread:
        return { observation, object, change in observation.callHandler(object, change) }
    case .queue(let queue):
        return { observation, object, change in
            queue.async { observation.callHandler(object, change) }
        }
    case .mainActor:
        // A call made at once on the main actor must not overtake calls already handed to the main queue (O11):
        // it is made at once only while none of this observation's calls is waiting there. The sends of one
        // observation never run at the same time (they run in store order, see `PropertyStorage.turn`), so
        // the count read here is the one the previous send left.
        let queued = QueuedCalls()
        return { observation, object, change in
            if isOnMainActor && queued.count.load(ordering: .acquiring) == 0 {
                observation.callHandler(object, change)
            } else {
                queued.count.add(1, ordering: .relaxed)
                DispatchQueue.main.async {
                    observation.callHandler(object, change)
                    queued.count.subtract(1, ordering: .releasing)
                }
            }
        }
    }
}

/// How many calls of one main-actor observation wait on the main queue.
@usableFromInline
final class QueuedCalls: Sendable {
    let count = Atomic<Int>(0)

    init() {}
}

/// Whether the caller runs on the main actor: on the main thread, or on the main queue (which the
/// main actor runs on, and which on Linux is served by another thread once `dispatchMain()` ran).
/// Package-visible so CanvasKit decides the same way when it hops to the main actor.
package var isOnMainActor: Bool {
    Thread.isMainThread || DispatchQueue.getSpecific(key: mainQueueKey) != nil
}

/// Marks the main queue so `isOnMainActor` can recognize it.
let mainQueueKey: DispatchSpecificKey<Bool> = {
    let key = DispatchSpecificKey<Bool>()
    DispatchQueue.main.setSpecific(key: key, value: true)
    return key
}()

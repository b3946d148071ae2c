import Locking
import Synchronization

/// Ends the observation behind an ``ObservedChanges`` sequence, and finishes its stream: when its
/// iterator is released (the loop was left), when its consumer stops (the stream's `onTermination`:
/// the task was cancelled) or when the sequence is released without being iterated.
final class ChangeSubscription: Sendable {
    private let ending: LockedValue<(@Sendable () -> Void)?>

    init(end: @escaping @Sendable () -> Void) {
        ending = LockedValue(end)
    }

    /// Whether `end()` ran (or the observation could never deliver anything).
    var isEnded: Bool {
        ending.withLock { $0 == nil }
    }

    /// Ends the observation; idempotent.
    func end() {
        ending.withLock { $0.take() }?()
    }

    deinit {
        end()
    }
}

/// Held only by an iterator of an ``ObservedChanges`` sequence (and its copies): releasing the iterator,
/// which is what leaving a `for await` loop does, ends the observation. (The stream itself would only
/// notice once the sequence is released too.)
final class ChangeIteration: Sendable {
    let subscription: ChangeSubscription

    init(_ subscription: ChangeSubscription) {
        self.subscription = subscription
    }

    deinit {
        subscription.end()
    }
}

/// Finishes a change stream when it is released: it is captured only by a subscriber of one of the
/// root object's own storages, which is released when that storage goes away with the object (or when
/// the subscriber is removed, after which finishing again does nothing).
final class StreamFinisher<Element: Sendable>: Sendable {
    let continuation: AsyncStream<Element>.Continuation

    init(_ continuation: AsyncStream<Element>.Continuation) {
        self.continuation = continuation
    }

    deinit {
        continuation.finish()
    }
}

/// A storage that can hold a subscriber that only keeps an object alive (the `StreamFinisher` of a
/// chained key path's sequence), whatever its value type.
protocol LifetimeHost: AnyObject, Sendable {
    /// Adds a subscriber that does nothing but hold `object`; returns its id.
    func holdUntilRemovedOrGone(_ object: some AnyObject & Sendable) -> UInt64
    /// Removes a subscription (`PropertyStorage.removeSubscriber`).
    @discardableResult
    func removeSubscriber(_ id: UInt64, waitingForCalls: Bool) -> Bool
}

extension PropertyStorage: LifetimeHost {
    func holdUntilRemovedOrGone(_ object: some AnyObject & Sendable) -> UInt64 {
        subscribe(wantsPrior: false) { _, _, _ in withExtendedLifetime(object) {} }.id
    }
}

/// Registers the observation behind `changes(for:options:bufferingPolicy:)`.
enum ChangeStream {
    /// Observes `keyPath` from `root`, yielding each change (filtered by `options`) to `continuation`.
    ///
    /// The object going away must finish the stream, and nothing notifies the death of an object but
    /// the release of what it alone holds: its properties' storages. So the stream's `StreamFinisher`
    /// is held by a subscriber of one of the root's own storages, and no part of the observation holds
    /// that storage strongly:
    /// - a direct key path (one `@Observed` property of `root`) is subscribed to here, with the storage
    ///   held weakly (`DirectChangeObservation`); `observe` would hold it strongly, for speed;
    /// - any other key path is observed with `observe` (whose chain links hold their storages weakly), and
    ///   the finisher is held by a subscriber that does nothing, on the first storage of `root` it reads.
    static func start<Root: KeyValueObservable, Value: Sendable>(
        root: Root,
        keyPath: KeyPath<Root, Value>,
        options: ObservationOptions,
        continuation: AsyncStream<ObservedChange<Value>>.Continuation
    ) -> ChangeSubscription {
        let (_, reads) = ThreadContext.current.track { root[keyPath: keyPath] }
        let finisher = StreamFinisher(continuation)
        if reads.count == 1, reads[0].object === root, reads[0].keyPath == keyPath,
            let storage = reads[0].storage as? PropertyStorage<Value>
        {
            let observation = DirectChangeObservation(
                root: root, storage: storage, options: options, continuation: continuation, finisher: finisher)
            return ChangeSubscription {
                observation.invalidate()
                continuation.finish()
            }
        }
        let token = root.observe(keyPath, options: options) { _, change in
            continuation.yield(change)
        }
        guard let read = reads.first(where: { $0.object === root }),
            let host = read.storage as? any LifetimeHost
        else {
            let subscription = ChangeSubscription {
                token.invalidate()
                continuation.finish()
            }
            if reads.isEmpty {
                // It reads no `@Observed` property: it can never change (`observe` reported it).
                subscription.end()
            }
            return subscription
        }
        let id = host.holdUntilRemovedOrGone(finisher)
        return ChangeSubscription { [weak host] in
            token.invalidate()
            host?.removeSubscriber(id, waitingForCalls: false)
            continuation.finish()
        }
    }
}

/// A direct observation for a change stream: one `@Observed` / `@ObservedArray` property of `root`,
/// subscribed to without holding its storage strongly (see `ChangeStream.start`). Listed by
/// `ObservationDiagnostics` like any observation until it ends.
///
/// Why `@unchecked Sendable` is safe (restated only because its base class, `ListedObservation`, is unchecked): its
/// stored properties are immutable and `Sendable`, or the `LockedValue` argued at `state`.
final class DirectChangeObservation<Root: KeyValueObservable, Value: Sendable>: ListedObservation, ObservationCore,
    @unchecked Sendable
{
    private struct State {
        weak var root: Root?
        weak var storage: PropertyStorage<Value>?
        var subscriptionID: UInt64 = 0
        var isInvalidated = false
    }

    /// Hands the changes to the stream in order, the `.initial` one first.
    ///
    /// A change can be delivered (on the writing thread) between the subscription and the `.initial`
    /// value being yielded; until then changes wait in `pending`, so the initial value comes first.
    private final class Sink: Sendable {
        let continuation: AsyncStream<ObservedChange<Value>>.Continuation
        private let state = LockedValue<(started: Bool, pending: [ObservedChange<Value>])>((false, []))

        init(_ continuation: AsyncStream<ObservedChange<Value>>.Continuation) {
            self.continuation = continuation
        }

        func receive(_ change: ObservedChange<Value>) {
            state.withLock { state in
                if state.started {
                    continuation.yield(change)
                } else {
                    state.pending.append(change)
                }
            }
        }

        func start(initial: ObservedChange<Value>?) {
            state.withLock { state in
                if let initial {
                    continuation.yield(initial)
                }
                for change in state.pending {
                    continuation.yield(change)
                }
                state.pending = []
                state.started = true
            }
        }
    }

    /// Made through `LockedValue(unchecked:)`: it holds the observed object and its storage, which the compiler
    /// cannot prove disconnected. Why that is safe: every access holds the lock, and the object and its values can only
    /// be reached from two threads at all if the model is itself `Sendable`.
    private let state: LockedValue<State>
    private let options: ObservationOptions
    private let rootType: AnyObject.Type
    let rootIdentifier: ObjectIdentifier
    private let storageIdentifier: ObjectIdentifier

    init(
        root: Root,
        storage: PropertyStorage<Value>,
        options: ObservationOptions,
        continuation: AsyncStream<ObservedChange<Value>>.Continuation,
        finisher: StreamFinisher<ObservedChange<Value>>
    ) {
        self.options = options
        rootType = type(of: root)
        rootIdentifier = ObjectIdentifier(root)
        storageIdentifier = ObjectIdentifier(storage)
        var initial = State()
        initial.root = root
        initial.storage = storage
        state = LockedValue(unchecked: initial)
        super.init()
        let sink = Sink(continuation)
        // The subscriber holds the finisher: released with the storage (the object went away) or when
        // the subscription is removed.
        let (id, _, value) = storage.subscribe(wantsPrior: options.contains(.prior)) { change, _, _ in
            withExtendedLifetime(finisher) {
                sink.receive(change.filtered(by: options))
            }
        }
        state.withLock { $0.subscriptionID = id }
        LiveObservations.insert(self)
        let initialChange =
            options.contains(.initial)
            ? ObservedChange(kind: .setting, oldValue: nil, newValue: value).filtered(by: options) : nil
        sink.start(initial: initialChange)
    }

    var isInvalidated: Bool {
        state.withLock { $0.isInvalidated }
    }

    override func end() {
        invalidate()
    }

    override var hasEnded: Bool {
        isInvalidated
    }

    override var isActive: Bool {
        // The root comes out of the lock so that its last release (if any) happens after it.
        let (root, invalidated): (Root?, Bool) = state.withLock { ($0.root, $0.isInvalidated) }
        return !invalidated && root != nil
    }

    /// Removes the subscription (waiting for calls of it on other threads) and leaves the diagnostics.
    func invalidate() {
        let (storage, id): (PropertyStorage<Value>?, UInt64?) = state.withLock { state in
            if state.isInvalidated {
                return (nil, nil)
            }
            state.isInvalidated = true
            state.root = nil
            return (state.storage, state.subscriptionID)
        }
        guard let id else { return }
        storage?.removeSubscriber(id, waitingForCalls: true)
        // (`LiveObservations` drops it by itself, now that it is invalidated.)
    }

    var record: ObservationRecord? {
        let root: Root? = state.withLock { $0.isInvalidated ? nil : $0.root }
        guard let root else { return nil }
        let name = propertyName(ofStorage: storageIdentifier, in: root)
        return ObservationRecord(
            objectType: String(reflecting: rootType),
            objectIdentifier: rootIdentifier,
            keyPath: "\\\(rootType).\(name)",
            options: options,
            delivery: .mutatingThread,
            ownerType: nil,
            ownerIdentifier: nil
        )
    }
}

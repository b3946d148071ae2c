import Foundation
import Synchronization

/// Receives the changes of one `PropertyStorage`: a direct observation, or one link of a chain.
protocol StorageReceiver<Value>: AnyObject, Sendable {
    associatedtype Value
    /// Called after the store (or before it, for a prior notification outside any handler), never while a
    /// lock is held. `isEqualWrite` says the new value equals the old one.
    func storageDidChange(_ change: ObservedChange<Value>, isEqualWrite: Bool, object: AnyObject)
}

/// A storage seen without its value type, for chained key paths.
protocol TrackableStorage: AnyObject, Sendable {
    /// Registers `link` to be told of every change (prior ones too if `wantsPrior`), and returns the
    /// subscription id and whether the storage changed since `version`.
    func addLink(_ link: any ChainLinkTarget, wantsPrior: Bool, since version: UInt64) -> (id: UInt64, changed: Bool)
    /// Removes a subscription; unknown ids are ignored.
    func removeSubscriber(_ id: UInt64)
}

/// One read made by an `@Observed` getter inside `ThreadContext.track(_:)`.
struct TrackedRead {
    let object: AnyObject
    let storage: any TrackableStorage
    /// The user-facing key path of the property (`\Doc.title`).
    let keyPath: AnyKeyPath
    /// The key path of the wrapper's stored property (`\Doc._title`), which, unlike `keyPath`, prints
    /// with its name.
    let storageKeyPath: AnyKeyPath
    let version: UInt64
}

/// The property name of a wrapper's storage key path: `\Doc._title` gives `title`.
func propertyName(of storageKeyPath: AnyKeyPath) -> String {
    let text = String(describing: storageKeyPath)
    let last = text.split(separator: ".").last.map(String.init) ?? text
    return last.hasPrefix("_") ? String(last.dropFirst()) : last
}

/// What `PropertyStorage.update` does once the lock is released.
enum UpdatePlan<Value, Subscriber> {
    case done
    case notify([ObservedChange<Value>], Bool, [Subscriber])
    case announce([ObservedChange<Value>], Bool, [Subscriber])
}

/// A process-wide source of subscription ids (ids are never reused).
let nextSubscriptionID = Atomic<UInt64>(1)

/// The storage behind one `@Observed` or `@ObservedArray` property of one object: the value, and the
/// observations registered on it, behind one lock.
///
/// Handlers are never called while the lock is held: the setter stores, takes a snapshot of the
/// subscribers, unlocks, then delivers through the thread's `ThreadContext`.
///
/// Why `@unchecked Sendable` is safe: `state` is only read or written inside `withState`, which holds
/// `mutex`, so no two threads ever touch it at once (the ThreadSanitizer run in `Tools/tsan.sh` checks
/// this). The lock is a `Mutex<Void>` rather than a `Mutex<State>` because the values stored here have
/// any type: a `Mutex<State>` only accepts values it can prove disconnected (`sending`), which a
/// setter's `newValue` is not. Values reach another thread through this storage only if the model
/// object itself is shared, which Swift allows only for a model declared `Sendable`.
@usableFromInline
final class PropertyStorage<Value>: @unchecked Sendable {
    struct Subscriber {
        let id: UInt64
        let receiver: any StorageReceiver<Value>
        let wantsPrior: Bool
    }

    struct State {
        var value: Value
        var version: UInt64 = 0
        var subscribers: [Subscriber] = []
        var priorSubscribers = 0
    }

    private let mutex = Mutex<Void>(())
    private var state: State

    init(_ value: Value) {
        self.state = State(value: value)
    }

    /// Runs `body` with the state, holding the lock.
    private func withState<Result>(_ body: (inout State) -> Result) -> Result {
        var result: Result?
        mutex.withLock { _ in
            ThreadSanitizer.acquire(self)
            result = body(&state)
            ThreadSanitizer.release(self)
        }
        // The closure above always runs exactly once.
        return result.unsafelyUnwrapped
    }

    // MARK: Reading

    @usableFromInline
    func value(of object: AnyObject, keyPath: AnyKeyPath, storageKeyPath: AnyKeyPath) -> Value {
        if activeTrackers.load(ordering: .relaxed) != 0 {
            let (value, version) = withState { ($0.value, $0.version) }
            ThreadContext.current.recordRead(
                TrackedRead(
                    object: object, storage: self, keyPath: keyPath, storageKeyPath: storageKeyPath,
                    version: version))
            return value
        }
        return withState { $0.value }
    }

    /// The value, without recording the read.
    var untrackedValue: Value {
        withState { $0.value }
    }

    // MARK: Writing

    /// `keyPath` in the writing methods is the key path of the wrapper's storage, used to name the
    /// property in diagnostics.
    ///
    /// Stores `newValue` and notifies; `isEqual` tells an equal write (not notified to direct observations).
    @usableFromInline
    func setValue(_ newValue: Value, isEqual: ((Value, Value) -> Bool)?, of object: AnyObject, keyPath: AnyKeyPath) {
        update(of: object, keyPath: keyPath) { value in
            let old = value
            value = newValue
            let equal = isEqual?(old, newValue) ?? false
            return ([ObservedChange(kind: .setting, oldValue: old, newValue: newValue)], equal)
        }
    }

    /// Applies `mutation` under the lock and notifies the changes it returns, in order.
    ///
    /// With prior observers outside any handler, `mutation` first runs on a copy to learn the changes,
    /// their prior notifications are delivered, then it runs again on the stored value.
    func update(
        of object: AnyObject,
        keyPath: AnyKeyPath,
        _ mutation: (inout Value) -> (changes: [ObservedChange<Value>], isEqualWrite: Bool)
    ) {
        typealias Plan = UpdatePlan<Value, Subscriber>
        let context = ThreadContext.current
        let plan: Plan = withState { state in
            if state.priorSubscribers > 0 && !context.isDelivering {
                var copy = state.value
                let (changes, equal) = mutation(&copy)
                return .announce(changes, equal, state.subscribers)
            }
            let (changes, equal) = mutation(&state.value)
            state.version &+= 1
            if state.subscribers.isEmpty || changes.isEmpty {
                return .done
            }
            return .notify(changes, equal, state.subscribers)
        }
        switch plan {
        case .done:
            return
        case let .notify(changes, equal, subscribers):
            deliver(changes, isEqualWrite: equal, to: subscribers, object: object, keyPath: keyPath, priors: true)
        case let .announce(announced, equal, subscribers):
            if !announced.isEmpty {
                deliver(
                    announced.map { $0.prior }, isEqualWrite: equal, to: subscribers, object: object,
                    keyPath: keyPath, priors: false)
            }
            let (changes, isEqualWrite, current): ([ObservedChange<Value>], Bool, [Subscriber]) =
                withState { state in
                    let (changes, equal) = mutation(&state.value)
                    state.version &+= 1
                    return (changes, equal, state.subscribers)
                }
            if !current.isEmpty && !changes.isEmpty {
                deliver(
                    changes, isEqualWrite: isEqualWrite, to: current, object: object, keyPath: keyPath,
                    priors: false)
            }
        }
    }

    /// Delivers `changes` to `subscribers`; with `priors`, each change is preceded by its prior
    /// notification for the subscribers that want one (the re-entrant case: the store already happened).
    private func deliver(
        _ changes: [ObservedChange<Value>],
        isEqualWrite: Bool,
        to subscribers: [Subscriber],
        object: AnyObject,
        keyPath: AnyKeyPath,
        priors: Bool
    ) {
        let work = {
            for change in changes {
                if priors {
                    for subscriber in subscribers where subscriber.wantsPrior {
                        subscriber.receiver.storageDidChange(change.prior, isEqualWrite: isEqualWrite, object: object)
                    }
                }
                for subscriber in subscribers where !change.isPrior || subscriber.wantsPrior {
                    subscriber.receiver.storageDidChange(change, isEqualWrite: isEqualWrite, object: object)
                }
            }
        }
        ThreadContext.current.deliver(work) {
            CycleSource(object: object, storageKeyPath: keyPath)
        }
    }

    // MARK: Subscribing

    /// Registers `receiver`; returns its id and the value at the time of registration.
    func subscribe(_ receiver: any StorageReceiver<Value>, wantsPrior: Bool) -> (id: UInt64, value: Value) {
        let id = nextSubscriptionID.add(1, ordering: .relaxed).oldValue
        return withState { state in
            state.subscribers.append(Subscriber(id: id, receiver: receiver, wantsPrior: wantsPrior))
            if wantsPrior {
                state.priorSubscribers += 1
            }
            return (id, state.value)
        }
    }

    func removeSubscriber(_ id: UInt64) {
        withState { state in
            guard let index = state.subscribers.firstIndex(where: { $0.id == id }) else { return }
            if state.subscribers[index].wantsPrior {
                state.priorSubscribers -= 1
            }
            state.subscribers.remove(at: index)
        }
    }

    /// The number of registered subscribers (diagnostics and tests).
    var subscriberCount: Int {
        withState { $0.subscribers.count }
    }
}

extension PropertyStorage: TrackableStorage {
    func addLink(_ link: any ChainLinkTarget, wantsPrior: Bool, since version: UInt64) -> (id: UInt64, changed: Bool) {
        let id = nextSubscriptionID.add(1, ordering: .relaxed).oldValue
        let receiver = ChainLink<Value>(target: link)
        return withState { state in
            state.subscribers.append(Subscriber(id: id, receiver: receiver, wantsPrior: wantsPrior))
            if wantsPrior {
                state.priorSubscribers += 1
            }
            return (id, state.version != version)
        }
    }
}

import Locking

/// The hook during which a registration changed, for readable audits.
public enum LifecycleHook: String, Sendable, Hashable, CaseIterable {
    /// The data source configured a cell (`cellForItem`).
    case cellForItem
    /// A cell was created.
    case cellCreation
    /// The host is about to display a cell.
    case willDisplay
    /// The host stopped displaying a cell.
    case didEndDisplaying
    /// A pooled cell is being reused.
    case prepareForReuse
    /// The screen is leaving the window.
    case screenWillDisappear
    /// The screen is back in the window.
    case screenDidAppear
    /// A view-model was bound to another model while it observed.
    case rebind
    /// A view-model went away while it observed.
    case teardown
}

/// One registration: an observed object (by identity, with a readable name) and one of its key paths, optionally
/// scoped to one observer.
///
/// Two registrations are the same when they name the same object, key path and scope; the name is only for
/// messages. A model's keys are unscoped: a model key observed twice, by whatever cell, is a duplicate. A key that
/// many observers share on purpose (every cell observes the board's `isRecording`) is scoped to its observer. The
/// lifecycle code keeps every observed object alive while it is registered, so an identity is never reused by another
/// object while a registration with it is live.
public struct RegistrationKey: Sendable, Hashable, CustomStringConvertible {
    /// The observed object's identity.
    public let object: ObjectIdentifier
    /// A readable name for the object, e.g. `#3` for a canvas or `board`.
    public let objectName: String
    /// The key path's name, e.g. `status`.
    public let keyPath: String
    /// The observer the key is scoped to, or nil for a key that only one observer may hold.
    public let observer: ObjectIdentifier?

    /// Names one registration.
    public init(object: AnyObject, objectName: String, keyPath: String, observer: AnyObject? = nil) {
        self.object = ObjectIdentifier(object)
        self.objectName = objectName
        self.keyPath = keyPath
        self.observer = observer.map(ObjectIdentifier.init)
    }

    /// Same object, key path and scope (the name is ignored).
    public static func == (lhs: RegistrationKey, rhs: RegistrationKey) -> Bool {
        lhs.object == rhs.object && lhs.keyPath == rhs.keyPath && lhs.observer == rhs.observer
    }

    /// Hashes the object, key path and scope.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(object)
        hasher.combine(keyPath)
        hasher.combine(observer)
    }

    /// For example `#3.status`, or `board.isRecording` for a scoped key.
    public var description: String { "\(objectName).\(keyPath)" }
}

/// One entry of a ``RegistrationLog``.
public struct RegistrationEntry: Sendable, Hashable, CustomStringConvertible {
    /// What happened to a registration.
    public enum Action: String, Sendable, Hashable {
        /// An observation was registered.
        case registered
        /// An observation was removed.
        case removed
    }

    /// Registered or removed.
    public let action: Action
    /// Which registration.
    public let key: RegistrationKey
    /// The lifecycle hook that did it.
    public let hook: LifecycleHook

    /// For example `registered #3.status in willDisplay`.
    public var description: String { "\(action.rawValue) \(key) in \(hook.rawValue)" }
}

/// What an audit of a ``RegistrationLog`` found wrong.
public enum RegistrationViolation: Sendable, Hashable, CustomStringConvertible {
    /// The key was registered while already registered: the object would notify twice.
    case duplicateRegistration(RegistrationKey, hook: LifecycleHook)
    /// The key was removed while not registered: with Cocoa KVO, a crash.
    case removalWithoutRegistration(RegistrationKey, hook: LifecycleHook)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .duplicateRegistration(let key, let hook):
            "\(key) registered twice (second time in \(hook.rawValue))"
        case .removalWithoutRegistration(let key, let hook):
            "\(key) removed in \(hook.rawValue) without being registered"
        }
    }
}

/// An auditable record of every observation registered and removed by the display lifecycle: the live
/// registrations, the full history, and the violations (a key registered twice, a removal without a registration).
///
/// Thread-safe: entries may be recorded from any thread; each record and each read is atomic.
public final class RegistrationLog: Sendable {
    private struct State {
        var entries: [RegistrationEntry] = []
        var live: [RegistrationKey: Int] = [:]
        var violations: [RegistrationViolation] = []
        var liveCount = 0
        var peakLiveCount = 0
        var keepsEntries: Bool
    }

    private let state: LockedValue<State>

    /// An empty log. With `keepsEntries` false only the live set, the peak and the violations are kept (for long
    /// benchmarks).
    public init(keepsEntries: Bool = true) {
        state = LockedValue(State(keepsEntries: keepsEntries))
    }

    /// Records one registration or removal and audits it against the live set.
    public func record(_ action: RegistrationEntry.Action, _ key: RegistrationKey, in hook: LifecycleHook) {
        state.withLock { state in
            if state.keepsEntries { state.entries.append(RegistrationEntry(action: action, key: key, hook: hook)) }
            switch action {
            case .registered:
                let count = state.live[key, default: 0] + 1
                state.live[key] = count
                state.liveCount += 1
                if count > 1 { state.violations.append(.duplicateRegistration(key, hook: hook)) }
            case .removed:
                let count = state.live[key, default: 0]
                if count == 0 {
                    state.violations.append(.removalWithoutRegistration(key, hook: hook))
                } else {
                    state.live[key] = count == 1 ? nil : count - 1
                    state.liveCount -= 1
                }
            }
            state.peakLiveCount = max(state.peakLiveCount, state.liveCount)
        }
    }

    /// Every entry, oldest first (empty when the log keeps no entries).
    public var entries: [RegistrationEntry] { state.withLock { $0.entries } }

    /// The registrations live now (registered and not removed).
    public var liveRegistrations: Set<RegistrationKey> { state.withLock { Set($0.live.keys) } }

    /// The number of live registrations, counting a duplicate twice.
    public var liveCount: Int { state.withLock { $0.liveCount } }

    /// The largest ``liveCount`` seen so far.
    public var peakLiveCount: Int { state.withLock { $0.peakLiveCount } }

    /// Everything the audit found wrong, in order.
    public var violations: [RegistrationViolation] { state.withLock { $0.violations } }
}

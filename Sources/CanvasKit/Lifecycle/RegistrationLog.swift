import Locking
import Observing

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
/// many observers share on purpose (every cell observes the board's `isRecording`) is scoped to its observer: the
/// owner of the `KeyValueObserver` that observes it (a cell's view-model). The lifecycle code keeps every observed
/// object alive while it is registered, so an identity is never reused by another object while a registration with it
/// is live.
public struct RegistrationKey: Sendable, Hashable, CustomStringConvertible {
    /// The observed object's identity.
    public let object: ObjectIdentifier
    /// A readable name for the object, e.g. `#3` for a canvas or `board`.
    public let objectName: String
    /// The key path's name, e.g. `status`.
    public let keyPath: String
    /// The key path itself, when the key was made with it: the audit then matches observations by it, not by name.
    public let path: (AnyKeyPath & Sendable)?
    /// The observer the key is scoped to (the owner of its `KeyValueObserver`, a cell's view-model), or nil for a key
    /// that only one observer may hold.
    public let observer: ObjectIdentifier?

    /// Names one registration by its key path's name, as Observing names the property (`status`); the audit counts
    /// the observations of a key path with that name.
    public init(object: AnyObject, objectName: String, keyPath: String, observer: AnyObject? = nil) {
        self.object = ObjectIdentifier(object)
        self.objectName = objectName
        self.keyPath = keyPath
        self.path = nil
        self.observer = observer.map(ObjectIdentifier.init)
    }

    /// Names one registration by the key path observed (`\CanvasModel.cellValues`), with `name` for messages: the
    /// audit counts the observations of that very key path, whatever Observing would name it.
    public init(
        object: AnyObject, objectName: String, path: AnyKeyPath & Sendable, name: String, observer: AnyObject? = nil
    ) {
        self.object = ObjectIdentifier(object)
        self.objectName = objectName
        self.keyPath = name
        self.path = path
        self.observer = observer.map(ObjectIdentifier.init)
    }

    /// Same object and scope, and the same key path: two keys made with key paths compare them (their names are
    /// ignored), two keys made with names compare the names; a key of each kind is never equal to the other.
    public static func == (lhs: RegistrationKey, rhs: RegistrationKey) -> Bool {
        guard lhs.object == rhs.object && lhs.observer == rhs.observer else { return false }
        switch (lhs.path, rhs.path) {
        case (nil, nil): return lhs.keyPath == rhs.keyPath
        case (let left?, let right?): return left == right
        default: return false
        }
    }

    /// Hashes the object and scope (keys equal by key path may differ by name).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(object)
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

/// An auditable record of every observation registered and removed by the display lifecycle: the history, the
/// registrations live now, and the violations (a key registered twice, a removal without a registration).
///
/// The log keeps no list of what is live, and no list of observers: Observing's registry of live observations (what
/// `ObservationDiagnostics` lists and every `KeyValueObserver` files its pairs in) is the one list. The log audits the
/// observations owned by the cell view-models made with it (``CanvasCellViewModel/init(coverProvider:coverSize:log:)``)
/// and by the observers it made (``makeObserver()``): what they observe now is what is live, whatever ended it (a
/// removal, an observer, its owner or an observed object going away). So record a registration right after making it,
/// and a removal right before making it: each is checked against what Observing lists at that moment. The removals a
/// view-model records as it goes away (hook ``LifecycleHook/teardown``) are not checked: its observations end with it.
///
/// Thread-safe: entries may be recorded from any thread; each record and each read is atomic. Lifecycle hooks come
/// from one thread at a time, as UIKit's do; records made at once from several threads are each audited against
/// Observing's registry as it was when they read it.
public final class RegistrationLog: Sendable {
    private struct State {
        var entries: [RegistrationEntry] = []
        var violations: [RegistrationViolation] = []
        var peakLiveCount = 0
        var keepsEntries: Bool
    }

    private let state: LockedValue<State>

    /// An empty log. With `keepsEntries` false only the peak and the violations are kept, not the history (for
    /// long-lived screens and long benchmarks).
    public init(keepsEntries: Bool = true) {
        state = LockedValue(State(keepsEntries: keepsEntries))
    }

    /// A new observer, owned by the log (its observations end when the log goes away), whose observations the log
    /// audits: for a screen that binds its cells itself. A ``CanvasCellViewModel`` made with the log needs none.
    public func makeObserver() -> KeyValueObserver {
        KeyValueObserver(owner: self)
    }

    /// Whether the observations of `owner` are this log's: its own observers' and those of its view-models.
    private func audits(_ owner: AnyObject) -> Bool {
        owner === self || (owner as? CanvasCellViewModel)?.log === self
    }

    /// Records one registration (right after it was made) or removal (right before it is made) and audits it
    /// against the observations Observing lists for this log: a registration that leaves the key observed more than
    /// once is a duplicate; a removal of a key not observed is a removal without registration.
    ///
    /// A key scoped to an observer counts only the observations that observer owns; an unscoped key counts those of
    /// every owner this log audits. A key made with its key path counts the observations of that key path; a key made
    /// with a name, those whose key path Observing names so (`status` for `\CanvasModel.status`).
    public func record(_ action: RegistrationEntry.Action, _ key: RegistrationKey, in hook: LifecycleHook) {
        let audited = hook != .teardown
        // One pass over the registry: the log's observations are counted (for the peak), and only the key's object's
        // are listed with their property.
        var members = 0
        let live =
            audited
            ? ObservationDiagnostics.liveObservations { object, owner in
                guard audits(owner) else { return false }
                members += 1
                return object == key.object
            } : []
        let observed = live.count { filing in
            (key.observer == nil || key.observer == ObjectIdentifier(filing.owner))
                && (key.path.map { $0 == filing.keyPath }
                    ?? (ObservationDiagnostics.propertyName(of: filing.keyPath, in: filing.object) == key.keyPath))
        }
        state.withLock { state in
            if state.keepsEntries { state.entries.append(RegistrationEntry(action: action, key: key, hook: hook)) }
            switch action {
            case .registered where audited && observed > 1:
                state.violations.append(.duplicateRegistration(key, hook: hook))
            case .removed where audited && observed == 0:
                state.violations.append(.removalWithoutRegistration(key, hook: hook))
            default:
                break
            }
            if action == .registered { state.peakLiveCount = max(state.peakLiveCount, members) }
        }
    }

    /// The observations of this log that Observing lists now.
    private var filings: [(object: AnyObject, owner: AnyObject, keyPath: AnyKeyPath & Sendable)] {
        ObservationDiagnostics.liveObservations { _, owner in audits(owner) }
    }

    /// Every entry, oldest first (empty when the log keeps no entries).
    public var entries: [RegistrationEntry] { state.withLock { $0.entries } }

    /// The registrations live now: the observations of this log that Observing lists, named as a view-model names
    /// them (`#3.status`, the board's keys scoped to the view-model that observes them).
    public var liveRegistrations: Set<RegistrationKey> {
        Set(
            filings.map { filing in
                // A view-model's observation is named as it records it (no description of its chain to make).
                if let model = filing.object as? CanvasModel, filing.keyPath == CanvasCellViewModel.observedKeyPath {
                    return CanvasCellViewModel.key(model)
                }
                let keyPath = String(ObservationDiagnostics.propertyName(of: filing.keyPath, in: filing.object))
                switch filing.object {
                case let model as CanvasModel:
                    return RegistrationKey(object: model, objectName: model.id.description, keyPath: keyPath)
                case let board as CanvasBoard:
                    return RegistrationKey(object: board, objectName: "board", keyPath: keyPath, observer: filing.owner)
                case let object:
                    return RegistrationKey(object: object, objectName: "\(type(of: object))", keyPath: keyPath)
                }
            })
    }

    /// The number of live registrations, counting a duplicate twice: the observations of this log that Observing lists.
    public var liveCount: Int { filings.count }

    /// The largest ``liveCount`` seen when a registration was recorded.
    public var peakLiveCount: Int { state.withLock { $0.peakLiveCount } }

    /// Everything the audit found wrong, in order.
    public var violations: [RegistrationViolation] { state.withLock { $0.violations } }
}

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
/// `KeyValueObserver` that observes it. The lifecycle code keeps every observed object alive while it is registered,
/// so an identity is never reused by another object while a registration with it is live.
public struct RegistrationKey: Sendable, Hashable, CustomStringConvertible {
    /// The observed object's identity.
    public let object: ObjectIdentifier
    /// A readable name for the object, e.g. `#3` for a canvas or `board`.
    public let objectName: String
    /// The key path's name, e.g. `status`.
    public let keyPath: String
    /// The `KeyValueObserver` the key is scoped to, or nil for a key that only one observer may hold.
    public let observer: ObjectIdentifier?

    /// Names one registration.
    public init(object: AnyObject, objectName: String, keyPath: String, observer: AnyObject? = nil) {
        self.object = ObjectIdentifier(object)
        self.objectName = objectName
        self.keyPath = keyPath
        self.observer = observer.map(ObjectIdentifier.init)
    }

    /// Names one registration by identities (what a record of Observing's registry carries).
    init(object: ObjectIdentifier, objectName: String, keyPath: String, observer: ObjectIdentifier?) {
        self.object = object
        self.objectName = objectName
        self.keyPath = keyPath
        self.observer = observer
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

/// An auditable record of every observation registered and removed by the display lifecycle: the history, the
/// registrations live now, and the violations (a key registered twice, a removal without a registration).
///
/// The log keeps no list of what is live: Observing's registry of live observations (what `ObservationDiagnostics`
/// lists and every `KeyValueObserver` files its pairs in) is the one list. The log audits the observations of the
/// observers it made (``makeObserver(owner:)``): what they observe now is what is live, whatever ended it (a removal,
/// an observer or an observed object going away). So record a registration right after making it, and a removal
/// right before making it: each is checked against what Observing lists at that moment.
///
/// Thread-safe: entries may be recorded from any thread; each record and each read is atomic. Lifecycle hooks come
/// from one thread at a time, as UIKit's do; records made at once from several threads are each audited against
/// Observing's registry as it was when they read it.
public final class RegistrationLog: Sendable {
    /// An observer the log audits, weakly: it goes away with its owner (a cell's view-model). A class, so that reading
    /// the log's list copies no weak reference.
    private final class AuditedObserver: Sendable {
        weak let observer: KeyValueObserver?

        init(_ observer: KeyValueObserver) { self.observer = observer }
    }

    /// The readable name an object was last recorded under (for ``liveRegistrations``), and whether its keys are
    /// scoped to their observer.
    private struct ObjectName {
        let name: String
        let isScoped: Bool
    }

    private struct State {
        var entries: [RegistrationEntry] = []
        var violations: [RegistrationViolation] = []
        var peakLiveCount = 0
        var keepsEntries: Bool
        var observers: [ObjectIdentifier: AuditedObserver] = [:]
        var names: [ObjectIdentifier: ObjectName] = [:]
        /// The size of `observers` plus `names` at which they are next pruned of what went away (it doubles).
        var pruneAt = 64

        var isPruneDue: Bool { observers.count + names.count >= pruneAt }
    }

    private let state: LockedValue<State>

    /// An empty log. With `keepsEntries` false only the peak and the violations are kept, not the history (for
    /// long-lived screens and long benchmarks).
    public init(keepsEntries: Bool = true) {
        state = LockedValue(State(keepsEntries: keepsEntries))
    }

    /// A new observer whose observations this log audits: a cell's view-model makes its one observer here.
    ///
    /// - Parameter owner: as `KeyValueObserver(owner:)`: the object the observations belong to (not retained).
    public func makeObserver(owner: AnyObject? = nil) -> KeyValueObserver {
        let observer = KeyValueObserver(owner: owner)
        let prune = state.withLock { state in
            state.observers[ObjectIdentifier(observer)] = AuditedObserver(observer)
            return state.isPruneDue
        }
        if prune { self.prune() }
        return observer
    }

    /// Records one registration (right after it was made) or removal (right before it is made) and audits it
    /// against the observations Observing lists for this log's observers: a registration that leaves the key
    /// observed more than once is a duplicate; a removal of a key not observed is a removal without registration.
    ///
    /// A key scoped to an observer counts only that observer's observations; an unscoped key counts those of all
    /// this log's observers. Key paths are matched by their property name (`status` for `\CanvasModel.status`).
    public func record(_ action: RegistrationEntry.Action, _ key: RegistrationKey, in hook: LifecycleHook) {
        let observers = Set(auditedObservers().map(ObjectIdentifier.init))
        let observed = ObservationDiagnostics.liveObservationCount(
            registeredBy: key.observer.map { [$0] } ?? observers, ofObjectWith: key.object, property: key.keyPath)
        let live = action == .registered ? ObservationDiagnostics.liveObservationCount(registeredBy: observers) : nil
        let prune = state.withLock { state in
            if state.keepsEntries { state.entries.append(RegistrationEntry(action: action, key: key, hook: hook)) }
            state.names[key.object] = ObjectName(name: key.objectName, isScoped: key.observer != nil)
            switch action {
            case .registered where observed > 1:
                state.violations.append(.duplicateRegistration(key, hook: hook))
            case .removed where observed == 0:
                state.violations.append(.removalWithoutRegistration(key, hook: hook))
            default:
                break
            }
            if let live { state.peakLiveCount = max(state.peakLiveCount, live) }
            return state.isPruneDue
        }
        if prune { self.prune() }
    }

    /// The observers this log made that still exist.
    private func auditedObservers() -> [KeyValueObserver] {
        state.withLock { state in state.observers.values.compactMap(\.observer) }
    }

    /// `status` for `\CanvasModel.status`: the key path without its root type.
    /// (What `ObservationDiagnostics.liveObservationCount(registeredBy:ofObjectWith:property:)` matches a name to.)
    private static func propertyName(of record: ObservationRecord) -> Substring {
        guard let dot = record.keyPath.firstIndex(of: ".") else { return record.keyPath[...] }
        return record.keyPath[record.keyPath.index(after: dot)...]
    }

    /// Forgets the observers that went away and the names of objects none of the others observes.
    private func prune() {
        let observers = auditedObservers()
        var observed = Set<ObjectIdentifier>()
        for observer in observers {
            for record in ObservationDiagnostics.liveObservations(registeredBy: observer) {
                observed.insert(record.objectIdentifier)
            }
        }
        state.withLock { state in
            state.observers = state.observers.filter { $0.value.observer != nil }
            state.names = state.names.filter { observed.contains($0.key) }
            state.pruneAt = max(64, 2 * (state.observers.count + state.names.count))
        }
    }

    /// Every entry, oldest first (empty when the log keeps no entries).
    public var entries: [RegistrationEntry] { state.withLock { $0.entries } }

    /// The registrations live now: the observations of this log's observers that Observing lists, named as they were
    /// recorded.
    public var liveRegistrations: Set<RegistrationKey> {
        let observers = auditedObservers()
        let names = state.withLock { $0.names }
        var keys = Set<RegistrationKey>()
        for observer in observers {
            for record in ObservationDiagnostics.liveObservations(registeredBy: observer) {
                let name = names[record.objectIdentifier]
                keys.insert(
                    RegistrationKey(
                        object: record.objectIdentifier, objectName: name?.name ?? record.objectType,
                        keyPath: String(Self.propertyName(of: record)),
                        observer: name?.isScoped == true ? ObjectIdentifier(observer) : nil))
            }
        }
        return keys
    }

    /// The number of live registrations, counting a duplicate twice: the observations of this log's observers that
    /// Observing lists.
    public var liveCount: Int {
        ObservationDiagnostics.liveObservationCount(registeredBy: Set(auditedObservers().map(ObjectIdentifier.init)))
    }

    /// The largest ``liveCount`` seen when a registration was recorded.
    public var peakLiveCount: Int { state.withLock { $0.peakLiveCount } }

    /// Everything the audit found wrong, in order.
    public var violations: [RegistrationViolation] { state.withLock { $0.violations } }
}

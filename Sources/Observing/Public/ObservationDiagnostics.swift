import Foundation
import Locking

/// One live observation, as listed by ``ObservationDiagnostics/liveObservations()`` (O10).
public struct ObservationRecord: Sendable, CustomStringConvertible {
    /// The observed object's type, fully qualified.
    public let objectType: String
    /// The observed object's identity.
    public let objectIdentifier: ObjectIdentifier
    /// The observed key path, as written (`\Doc.title`).
    public let keyPath: String
    /// The options the observation was registered with.
    public let options: ObservationOptions
    /// Where its handler runs.
    public let delivery: ObservationDelivery
    /// The type of the `KeyValueObserver` owner that registered it, if any.
    public let ownerType: String?
    /// The identity of that owner, if any.
    public let ownerIdentifier: ObjectIdentifier?
    /// The identity of the `KeyValueObserver` that registered it, if any (nil for a token's observation).
    public let observerIdentifier: ObjectIdentifier?

    /// A one-line description.
    public var description: String {
        guard let ownerType, let ownerIdentifier else { return "\(objectType) \(objectIdentifier) \(keyPath)" }
        return "\(objectType) \(objectIdentifier) \(keyPath) owned by \(ownerType) \(ownerIdentifier)"
    }
}

/// Where a stopped re-entrant cycle was detected.
public struct CycleSource: Sendable, CustomStringConvertible {
    /// The type of the object whose property kept changing.
    public let objectType: String
    /// Its identity.
    public let objectIdentifier: ObjectIdentifier
    /// The property's key path.
    public let keyPath: String

    init(object: AnyObject, storage: AnyObject) {
        objectType = String(reflecting: type(of: object))
        objectIdentifier = ObjectIdentifier(object)
        keyPath = "\\\(type(of: object)).\(propertyName(of: storage, in: object))"
    }

    /// A one-line description.
    public var description: String { "\(objectType) \(objectIdentifier) \(keyPath)" }
}

/// Something the observation machinery detected and did not turn into a crash.
public enum ObservationIssue: Sendable, CustomStringConvertible {
    /// Handlers kept changing observed properties for `rounds` rounds of nested notifications; the notifications of the
    /// next round were dropped (the values written are stored). `source` is the first change that was dropped.
    case unsettledCycle(source: CycleSource, rounds: Int)
    /// `observe` was called with a key path that reads no `@Observed` property: it can never notify.
    case unobservableKeyPath(objectType: String, keyPath: String)
    /// A chain from an object not known to be `Sendable` does not follow a `Sendable` one (see `observe(_:options:_:)`).
    case sharedObjectNotFollowed(objectType: String, keyPath: String)

    /// A one-line description.
    public var description: String {
        switch self {
        case .unsettledCycle(let source, let rounds):
            "Observing: a change cycle did not settle after \(rounds) rounds; stopped at \(source)"
        case .unobservableKeyPath(let objectType, let keyPath):
            "Observing: \(keyPath) of \(objectType) reads no @Observed property and will never notify"
        case .sharedObjectNotFollowed(let objectType, let keyPath):
            "Observing: \(keyPath) of \(objectType) (not Sendable) does not follow the Sendable objects it goes through"
        }
    }
}

/// Leak hunting and the reports of stopped cycles (O8, O10).
public enum ObservationDiagnostics {
    private struct Settings {
        var handlers: [UInt64: @Sendable (ObservationIssue) -> Void] = [:]
        var nextHandlerID: UInt64 = 1
    }

    private static let settings = LockedValue(Settings())

    /// Every observation that is not invalidated and whose object (and owner, if any) still exists, in no particular
    /// order.
    ///
    /// To tell whether an object still exists, this takes a strong reference to it for a moment; if another thread
    /// drops the last reference in that moment, the object is freed on this thread.
    public static func liveObservations() -> [ObservationRecord] { Registry.records() }

    /// How many observations ``liveObservations()`` would list, without building their records: cheap enough for a
    /// counter printed after every step of a long run.
    public static var liveObservationCount: Int {
        Registry.all.reduce(0) { count, observation in observation.isActive ? count + 1 : count }
    }

    /// The live observations of `object` (other objects are not touched).
    public static func liveObservations(of object: AnyObject) -> [ObservationRecord] {
        liveObservations(ofObjectWith: ObjectIdentifier(object))
    }

    /// The live observations of the object with identity `identifier` (a record's
    /// ``ObservationRecord/objectIdentifier``), for an audit that keeps identities rather than objects. None once that
    /// object went away.
    public static func liveObservations(ofObjectWith identifier: ObjectIdentifier) -> [ObservationRecord] {
        Registry.records { $0.info.objectIdentifier == identifier }
    }

    /// The live observations `observer` registered (those of other observers and tokens are not touched): what an audit
    /// of one screen's observers reads, where ``liveObservations()`` lists the whole process.
    public static func liveObservations(registeredBy observer: KeyValueObserver) -> [ObservationRecord] {
        let id = ObjectIdentifier(observer)
        return Registry.observations(of: [id], object: nil).compactMap { $0.record(observer: id) }
    }

    /// How many records ``liveObservations(registeredBy:)`` would list for the observers with identities `observers`,
    /// without building them. Like ``liveObservations()``, it holds each object for a moment.
    public static func liveObservationCount(registeredBy observers: Set<ObjectIdentifier>) -> Int {
        Registry.observations(of: observers, object: nil).count(where: \.isActive)
    }

    /// The active observations whose `KeyValueObserver` owner `include` accepts (given the object's identity), with
    /// their object, owner (held) and key path: what CanvasKit's audit reads, keeping no list of its own.
    package static func liveObservations(where include: (ObjectIdentifier, _ owner: AnyObject) -> Bool)
        -> [(object: AnyObject, owner: AnyObject, keyPath: AnyKeyPath & Sendable)]
    {
        Registry.all.compactMap { observation in
            guard let owner = observation.info.owner?.link.object, include(observation.info.objectIdentifier, owner),
                observation.isActive, let root = observation.rootObject
            else { return nil }
            return (root, owner, observation.info.keyPath)
        }
    }

    /// `status` for `\Model.status`, as records name a key path: what follows the first `.` of its description (a
    /// computed one is named by the properties its evaluation on `object` reads: `status.segments`).
    package static func propertyName(of keyPath: AnyKeyPath & Sendable, in object: AnyObject) -> Substring {
        let text = describe(keyPath, of: object)
        guard let dot = text.utf8.firstIndex(of: UInt8(ascii: ".")) else { return text[...] }
        return text[text.utf8.index(after: dot)...]
    }

    /// How many rounds of changes made inside handlers are delivered before a cycle is declared unsettled and stopped:
    /// 100, or what the innermost ``withMaximumRounds(_:_:)`` around the calling code set. Round 0 is the change made
    /// outside any handler.
    public static var maximumRounds: Int { scopedMaximumRounds }

    /// Runs `body` with `rounds` (at least 1) as the limit of the cycles that start in it, on this thread or task.
    ///
    /// The limit is scoped, not global: a cycle running meanwhile on another thread (another test, another part of the
    /// program) keeps its own limit. A handler handed to a queue or to the main actor runs outside the scope.
    public static func withMaximumRounds<Result>(_ rounds: Int, _ body: () throws -> Result) rethrows -> Result {
        try $scopedMaximumRounds.withValue(max(1, rounds), operation: body)
    }

    @TaskLocal private static var scopedMaximumRounds = 100

    /// Calls `handler` with every issue until the returned token is invalidated. While no handler is registered, issues
    /// are printed to standard error.
    public static func addIssueHandler(_ handler: @escaping @Sendable (ObservationIssue) -> Void) -> IssueHandlerToken {
        let id = settings.withLock { settings in
            let id = settings.nextHandlerID
            settings.nextHandlerID += 1
            settings.handlers[id] = handler
            return id
        }
        return IssueHandlerToken(id: id)
    }

    static func removeIssueHandler(_ id: UInt64) { _ = settings.withLock { $0.handlers.removeValue(forKey: id) } }

    static func report(_ issue: ObservationIssue) {
        let handlers = settings.withLock { Array($0.handlers.values) }
        if handlers.isEmpty {
            FileHandle.standardError.write(Data((issue.description + "\n").utf8))
        }
        for handler in handlers { handler(issue) }
    }
}

/// Keeps an issue handler registered; invalidate it (or release it) to remove the handler.
public final class IssueHandlerToken: Sendable {
    private let id: UInt64

    init(id: UInt64) { self.id = id }

    /// Removes the handler; idempotent.
    public func invalidate() { ObservationDiagnostics.removeIssueHandler(id) }

    deinit { invalidate() }
}

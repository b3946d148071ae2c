import Observing
import Synchronization
import Testing

/// Proves that every object a test created is freed by the end of the test: models, tokens,
/// observers, owners and anything a handler captured.
///
/// Usage: `let tracker = LifetimeTracker()`, create objects through `tracker.watch(...)` inside a
/// `do { }` scope, then call `tracker.expectAllFreed()` after the scope. Watched objects are held
/// weakly; `expectAllFreed` lists the survivors by type and checks that none of them still has a
/// live observation.
final class LifetimeTracker {
    private struct Watched {
        weak var object: AnyObject?
        let typeName: String
        let identifier: ObjectIdentifier
    }

    private var watched: [Watched] = []

    /// Starts watching `object` and returns it.
    @discardableResult
    func watch<Object: AnyObject>(_ object: Object) -> Object {
        watched.append(
            Watched(object: object, typeName: String(describing: Object.self), identifier: ObjectIdentifier(object)))
        return object
    }

    /// The number of watched objects.
    var watchedCount: Int { watched.count }

    /// The types of the watched objects still alive.
    var survivors: [String] {
        watched.filter { $0.object != nil }.map(\.typeName)
    }

    /// Expects every watched object freed; the message lists the live observations of any survivor.
    ///
    /// (A freed object has no live observation by definition, so only survivors are looked up, by
    /// object: listing every observation of the process would briefly retain other tests' objects.)
    func expectAllFreed(sourceLocation: SourceLocation = #_sourceLocation) {
        let alive = watched.compactMap(\.object)
        let observations = alive.flatMap { ObservationDiagnostics.liveObservations(of: $0) }
        #expect(
            alive.isEmpty, "still alive: \(survivors), their live observations: \(observations)",
            sourceLocation: sourceLocation)
    }
}

/// Counts live instances across threads (for objects created inside the stress test).
final class InstanceCounter: Sendable {
    private let count = Atomic<Int>(0)

    var live: Int { count.load(ordering: .acquiring) }

    func make() -> Instance { Instance(counter: self) }

    final class Instance: Sendable {
        private let counter: InstanceCounter

        init(counter: InstanceCounter) {
            self.counter = counter
            counter.count.add(1, ordering: .relaxed)
        }

        deinit {
            counter.count.subtract(1, ordering: .releasing)
        }
    }
}

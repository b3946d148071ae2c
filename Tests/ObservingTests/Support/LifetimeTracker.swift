import Observing
import Synchronization
import TestSupport
import Testing

extension LifetimeTracker {
    /// Expects every watched object freed; the message lists the live observations of any survivor.
    ///
    /// (A freed object has no live observation by definition, so only survivors are looked up, by object: listing
    /// every observation of the process would briefly retain other tests' objects.)
    func expectAllFreed(sourceLocation: SourceLocation = #_sourceLocation) {
        expectAllFreed(
            details: { alive in
                ", their live observations: \(alive.flatMap { ObservationDiagnostics.liveObservations(of: $0) })"
            }, sourceLocation: sourceLocation)
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

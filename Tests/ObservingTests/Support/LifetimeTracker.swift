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

/// Counts live instances across threads (for objects created inside the stress test), each made with a tag (where it
/// was captured) so that a survivor says which case kept it.
final class InstanceCounter: Sendable {
    private let count = Atomic<Int>(0)
    private let tags = Mutex<[String: Int]>([:])

    var live: Int { count.load(ordering: .acquiring) }

    /// The tags of the live instances, with how many of each.
    var liveTags: [String: Int] { tags.withLock { $0.filter { $0.value != 0 } } }

    func make(_ tag: String = "") -> Instance { Instance(counter: self, tag: tag) }

    /// The live instances and their tags once none is going away: waits (up to `seconds`) while some are live, since a
    /// listing of the observations on another thread (or in a suite running in parallel) holds what it lists until it
    /// returns and frees it there, just after the last reference here went. A leak still counts when the wait is over.
    func settled(seconds: Double = 10) async -> (count: Int, tags: [String: Int]) {
        let deadline = Deadline(seconds: seconds)
        while live > 0 && !deadline.hasPassed {
            try? await Task.sleep(for: .milliseconds(1))
        }
        return (live, liveTags)
    }

    final class Instance: Sendable {
        private let counter: InstanceCounter
        private let tag: String

        init(counter: InstanceCounter, tag: String) {
            self.counter = counter
            self.tag = tag
            counter.tags.withLock { $0[tag, default: 0] += 1 }
            counter.count.add(1, ordering: .relaxed)
        }

        deinit {
            counter.tags.withLock { $0[tag, default: 0] -= 1 }
            counter.count.subtract(1, ordering: .releasing)
        }
    }
}

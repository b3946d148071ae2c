import Locking
import Synchronization

/// Counts the FFmpeg resource owners (``FormatContext``, ``MemoryIO``, ``Decoder``, ``Packet``,
/// ``Frame``, ``Scaler``) created and freed while it is the task-local ``current`` one: a test
/// runs covers inside `LifetimeTracker.$current.withValue(tracker)` and then requires every count
/// back at zero. Owners made outside such a scope (all of production) are not counted; the cost
/// is one task-local read per owner.
final class LifetimeTracker: Sendable {
    /// The tracker of the code running in this task, if any.
    @TaskLocal static var current: LifetimeTracker?

    private let counts = Mutex<[String: Int]>([:])

    func created(_ owner: AnyObject) {
        let name = String(describing: type(of: owner))
        counts.withAnnotatedLock { $0[name, default: 0] += 1 }
    }

    func freed(_ owner: AnyObject) {
        let name = String(describing: type(of: owner))
        counts.withAnnotatedLock { $0[name, default: 0] -= 1 }
    }

    /// Owners created and not yet freed, by type; types back at zero are left out.
    var live: [String: Int] { counts.withAnnotatedLock { $0.filter { $0.value != 0 } } }
    /// Every type seen so far (to check the scope really counted something).
    var typesSeen: Set<String> { counts.withAnnotatedLock { Set($0.keys) } }
}

/// Proves objects are freed: register objects while they are alive, drop every strong reference, then ask
/// which are still alive (the role of swift-collections' `LifetimeTracker`, for reference types).
final class LifetimeTracker {
    private struct Entry {
        let name: String
        weak var object: AnyObject?
    }

    private var entries: [Entry] = []

    /// Remembers `object` under `name`, without retaining it; returns the object for chaining.
    @discardableResult
    func track<Object: AnyObject>(_ object: Object, _ name: String) -> Object {
        entries.append(Entry(name: name, object: object))
        return object
    }

    /// The number of objects registered so far.
    var trackedCount: Int { entries.count }

    /// The names of the tracked objects that are still alive.
    var survivors: [String] {
        entries.filter { $0.object != nil }.map(\.name)
    }
}

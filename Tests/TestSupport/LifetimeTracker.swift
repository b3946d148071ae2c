import Testing

/// Proves objects are freed (the role of swift-collections' `LifetimeTracker`, for reference types): watch objects
/// while they are alive, drop every strong reference, then ask which are still alive.
///
/// Usage: `let tracker = LifetimeTracker()`, create objects through `tracker.watch(...)` inside a `do { }` scope, then
/// call `tracker.expectAllFreed()` (or read ``survivors``) after the scope. Watched objects are held weakly.
package final class LifetimeTracker {
    private struct Watched {
        weak var object: AnyObject?
        let name: String
    }

    private var watched: [Watched] = []

    /// A tracker watching nothing yet.
    package init() {}

    /// Starts watching `object`, without retaining it, under `name` (its type's name by default); returns the object.
    @discardableResult
    package func watch<Object: AnyObject>(_ object: Object, _ name: String? = nil) -> Object {
        watched.append(Watched(object: object, name: name ?? String(describing: Object.self)))
        return object
    }

    /// The number of objects watched so far.
    package var watchedCount: Int { watched.count }

    /// The names of the watched objects still alive.
    package var survivors: [String] {
        watched.filter { $0.object != nil }.map(\.name)
    }

    /// The watched objects still alive (retained by the returned array: drop it before asking again).
    package var aliveObjects: [AnyObject] { watched.compactMap(\.object) }

    /// Expects every watched object freed; the message names the survivors, followed by `details(survivors)`.
    package func expectAllFreed(
        details: ([AnyObject]) -> String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let alive = aliveObjects
        let extra = alive.isEmpty ? "" : details(alive)
        #expect(alive.isEmpty, "still alive: \(survivors)\(extra)", sourceLocation: sourceLocation)
    }
}

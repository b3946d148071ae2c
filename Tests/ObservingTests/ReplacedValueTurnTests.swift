import Observing
import Synchronization
import Testing

/// A value whose deinit writes the property that held it.
private final class Tenant {
    weak var room: Room?

    init(room: Room) {
        self.room = room
    }

    deinit {
        room?.tenant = nil
    }
}

/// Why `@unchecked Sendable` is safe: its one stored property is `@Observed` (behind its storage's lock).
private final class Room: KeyValueObservable, @unchecked Sendable {
    @Observed var tenant: Tenant?
}

/// A write releases the value it replaces only after its delivery and its turn have ended: a deinit that writes the
/// same property then makes a write of its own, delivered like any other. In a release build the optimizer released
/// the replaced value (the last use of the change being the handler's call) between the setter's check for queued
/// work and the end of its delivery: the deinit's write was queued behind a delivery that had already looked, so it
/// was never delivered and its turn never ended, and the next write of the property waited forever.
@Suite("A value a write replaces is released after the write's turn")
struct ReplacedValueTurnTests {
    /// One observer takes the setter's single-subscriber path, two the list path.
    @Test(arguments: [1, 2])
    func deinitWritingTheSamePropertyIsDelivered(observers: Int) async {
        let room = Room()
        let seen = Recorder<String>()
        let tokens = (0..<observers).map { observer in
            room.observe(\.tenant, options: [.new]) { _, change in
                seen.append("\(observer): \((change.newValue ?? nil) == nil ? "empty" : "tenant")")
            }
        }
        room.tenant = Tenant(room: room)
        room.tenant = nil
        // A later write from another thread waits for every earlier turn: it returns, so all of them ended.
        await StartedThread { room.tenant = nil }.finished()
        let expected = ["tenant", "empty", "empty", "empty"].flatMap { value in
            (0..<observers).map { "\($0): \(value)" }
        }
        #expect(seen.values == expected)
        for token in tokens { token.invalidate() }
    }
}

import Locking
import Synchronization

/// State of any type behind a `Mutex`.
///
/// Why `@unchecked Sendable` is safe: `state` is only read or written inside `withLock`, which holds
/// `mutex` for the whole access, so no two threads ever touch it at once (the ThreadSanitizer run in
/// `Tools/tsan.sh` checks this). The lock is a `Mutex<Void>` rather than a `Mutex<State>` because the
/// state holds values the compiler cannot prove disconnected (weak references to model objects, key
/// paths, values of any type): `Mutex<State>` would only accept `sending` values. What crosses threads
/// through this state is model objects and their values, and those can only be reached from two
/// threads if the model is itself `Sendable`. Under ThreadSanitizer the lock is announced through
/// `ThreadSanitizer.acquire`/`release`, which it cannot see in `Mutex` on Linux.
final class Locked<State>: @unchecked Sendable {
    private let mutex = Mutex<Void>(())
    private var state: State

    init(_ state: State) {
        self.state = state
    }

    /// Runs `body` with the state, holding the lock. `body` must not call back into this lock.
    func withLock<Result>(_ body: (inout State) -> Result) -> Result {
        var result: Result?
        mutex.withLock { _ in
            ThreadSanitizer.acquire(self)
            result = body(&state)
            ThreadSanitizer.release(self)
        }
        // The closure above always ran exactly once.
        return result.unsafelyUnwrapped
    }
}

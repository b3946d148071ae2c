import Locking

/// State of any type behind the package's lock (`LockedValue`, which announces its sections to ThreadSanitizer).
///
/// Why `@unchecked Sendable` is safe: `state` is only read or written inside `withLock`, which holds
/// `lock` for the whole access, so no two threads ever touch it at once (the ThreadSanitizer run of
/// `Tools/sanitize.sh --thread` checks this). The lock guards `Void` rather than the state itself because
/// the state holds values the compiler cannot prove disconnected (weak references to model objects, key
/// paths, values of any type): `LockedValue<State>` would only accept and hand out `sending` values. What
/// crosses threads through this state is model objects and their values, and those can only be reached
/// from two threads if the model is itself `Sendable`.
///
/// (`PropertyStorage`, on every read and write of an `@Observed` property, keeps its own `Mutex` instead: it
/// checks a flag it copied once for ThreadSanitizer, where `LockedValue` reads the sanitizer's globals on
/// each section, a few instructions that the hot path does not pay.)
final class Locked<State>: @unchecked Sendable {
    private let lock = LockedValue(())
    private var state: State

    init(_ state: State) {
        self.state = state
    }

    /// Runs `body` with the state, holding the lock. `body` must not call back into this lock.
    func withLock<Result>(_ body: (inout State) -> Result) -> Result {
        var result: Result?
        lock.withLock { _ in
            result = body(&state)
        }
        // The closure above always ran exactly once.
        return result.unsafelyUnwrapped
    }
}

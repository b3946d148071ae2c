import Foundation

/// A value behind a lock that ThreadSanitizer can see, for test code shared between threads.
///
/// Tests use this rather than `Synchronization.Mutex`: on Linux ThreadSanitizer does not see `Mutex`'s
/// futex-based lock and would report the test's own bookkeeping (see `Tools/tsan.sh`).
/// Why `@unchecked Sendable` is safe: `value` is only touched inside `withLock`, which holds `lock`
/// (an `NSLock`, a pthread mutex that ThreadSanitizer intercepts).
final class Protected<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}

import Synchronization

/// A value that can only be reached with a lock held: the package's one lock type.
///
/// The shape of swift-nio's `NIOLockedValueBox`: the lock and the value it protects are one thing, and the only way to
/// the value is ``withLock(_:)``, so no access can forget the lock. It wraps `Synchronization.Mutex` and announces
/// every critical section to ThreadSanitizer (see ``ThreadSanitizer``), which on Linux cannot see `Mutex` otherwise, so
/// a run under `--sanitize=thread` reports real races only.
///
/// It is `~Copyable`, like `Mutex`: store it in a `let` of a class (or a global), never copy it. It is `Sendable`
/// whatever `Value` is, because the value only crosses threads as a `sending` value (as with `Mutex`).
///
/// ```swift
/// final class Counter: Sendable {
///     private let count = LockedValue(0)
///     func increment() -> Int { count.withLock { $0 += 1; return $0 } }
/// }
/// ```
package struct LockedValue<Value: ~Copyable>: ~Copyable {
    @usableFromInline
    let mutex: Mutex<Value>

    /// Makes the lock around `initialValue`.
    @inlinable
    package init(_ initialValue: consuming sending Value) {
        mutex = Mutex(initialValue)
    }

    /// Runs `body` with the value, holding the lock, and returns its result or rethrows its error.
    ///
    /// The section is announced to ThreadSanitizer right after the lock is taken and right before it is released. The
    /// lock is identified by the mutex's own address, stable while the value lives and different for every live lock.
    /// `body` must not take this lock again (a `Mutex` is not recursive: that stops the program).
    @inlinable
    package borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        try mutex.withAnnotatedLock(body)
    }

    /// Like ``withLock(_:)`` when the lock is free; returns nil at once, without running `body`, when another thread
    /// holds it.
    @inlinable
    package borrowing func withLockIfAvailable<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result? {
        let lock = withUnsafePointer(to: mutex) { UnsafeRawPointer($0) }
        return try mutex.withLockIfAvailable { (value: inout sending Value) throws(E) -> sending Result in
            ThreadSanitizer.acquire(address: lock)
            defer { ThreadSanitizer.release(address: lock) }
            return try body(&value)
        }
    }
}

extension LockedValue: Sendable where Value: ~Copyable {}

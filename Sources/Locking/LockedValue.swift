import Synchronization

/// A value that can only be reached with a lock held: the package's one lock type.
///
/// The shape of swift-nio's `NIOLockedValueBox`: the lock and the value it protects are one thing, and the only way to
/// the value is ``withLock(_:)`` (or ``withLockUnchecked(_:)``, ``withLockIfAvailable(_:)``), so no access can forget
/// the lock. It wraps `Synchronization.Mutex` and announces every critical section to ThreadSanitizer (see
/// ``ThreadSanitizer``), which on Linux cannot see `Mutex` otherwise, so a run under `--sanitize=thread` reports real
/// races only.
///
/// It is `~Copyable`, like `Mutex`: store it in a `let` of a class (or a global), never copy it. It is `Sendable`
/// whatever `Value` is, because through ``withLock(_:)`` the value only crosses threads as a `sending` value (as with
/// `Mutex`); ``withLockUnchecked(_:)`` is the one way around that check, for state the compiler cannot prove
/// disconnected, and its callers say why it is safe.
///
/// Why `public` in a target that is no product: the package's own modules call it from generic code, and this
/// toolchain does not inline or specialize a generic `package` function across modules (each section was a call to
/// the unspecialized `withLock`, with its metadata lookups: 6,400 instructions more per observe + invalidate in
/// Observing than a direct `Mutex`, measured with callgrind); `public` `@inlinable` ones it does. No product
/// re-exports `Locking`, and no public signature of a product names it.
///
/// ```swift
/// final class Counter: Sendable {
///     private let count = LockedValue(0)
///     func increment() -> Int { count.withLock { $0 += 1; return $0 } }
/// }
/// ```
public struct LockedValue<Value: ~Copyable>: ~Copyable {
    @usableFromInline
    let mutex: Mutex<Value>

    /// Makes the lock around `initialValue`.
    @inlinable
    public init(_ initialValue: consuming sending Value) {
        mutex = Mutex(initialValue)
    }

    /// Makes the lock around `initialValue` without the compiler's check that the caller keeps no reference into it:
    /// for the state that ``withLockUnchecked(_:)`` is for, on the same conditions.
    @inlinable
    public init(unchecked initialValue: consuming Value) {
        // The same promise as `withLockUnchecked`: the caller shows why the state may be shared.
        nonisolated(unsafe) let initialValue = initialValue
        mutex = Mutex(initialValue)
    }

    /// Runs `body` with the value, holding the lock, and returns its result or rethrows its error.
    ///
    /// The section is announced to ThreadSanitizer right after the lock is taken and right before it is released. The
    /// lock is identified by the mutex's own address (a `Mutex` is not copyable, so a borrow of it is its storage):
    /// stable while the value lives and different for every live lock. `body` must not take this lock again (a
    /// `Mutex` is not recursive: that stops the program).
    @inlinable
    @inline(__always)
    public borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        let lock = withUnsafePointer(to: mutex) { UnsafeRawPointer($0) }
        return try mutex.withLock { (value: inout sending Value) throws(E) -> sending Result in
            ThreadSanitizer.acquire(address: lock)
            defer { ThreadSanitizer.release(address: lock) }
            return try body(&value)
        }
    }

    /// ``withLock(_:)`` without the compiler's check that the value and the result are disconnected from the caller:
    /// `body` may move references between the value and its captures, and return values that stay reachable from
    /// the value.
    ///
    /// For state that holds values the compiler cannot prove disconnected (weak references to objects, key paths,
    /// values of a generic type). The caller must show, where it calls this, that no such value is then reached from
    /// two threads at once without synchronization of its own (for instance because it is `Sendable` in all but
    /// name, or only reachable from two threads when its owner is itself `Sendable`). Same lock, same annotation.
    @inlinable
    @inline(__always)
    public borrowing func withLockUnchecked<Result, E: Error>(
        _ body: (inout Value) throws(E) -> Result
    ) throws(E) -> Result {
        // Calls `Mutex.withLock` directly, not `withLock(_:)` through `withoutActuallyEscaping` and a cast to the
        // `sending` signature: that conversion allocated a context for every section whose closure captures anything
        // (about 200 instructions, a `malloc` and a `free` per call, measured with callgrind).
        let lock = withUnsafePointer(to: mutex) { UnsafeRawPointer($0) }
        return try mutex.withLock { (value: inout sending Value) throws(E) -> sending Result in
            ThreadSanitizer.acquire(address: lock)
            defer { ThreadSanitizer.release(address: lock) }
            // Why `nonisolated(unsafe)` is safe: it is this entry point's promise, stated above and proved by each caller,
            // that the value and the result may stay connected to the caller's region (the checker rejects that for a
            // `sending` result). Nothing else is unchecked: the section is the same lock and the same annotation.
            nonisolated(unsafe) let result = try body(&value)
            return result
        }
    }

    /// Like ``withLock(_:)`` when the lock is free; returns nil at once, without running `body`, when another thread
    /// holds it.
    @inlinable
    @inline(__always)
    public borrowing func withLockIfAvailable<Result: ~Copyable, E: Error>(
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

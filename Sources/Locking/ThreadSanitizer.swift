import LockingSanitizer

/// Tells ThreadSanitizer about the locks it cannot see.
///
/// On Linux, `Synchronization.Mutex` is a futex-based lock inside the (uninstrumented) standard library, so
/// ThreadSanitizer sees none of its happens-before edges and reports correct code behind a `Mutex` as a race (for
/// instance canvas-thumb's reporter, whose state every worker thread updates under one `Mutex`). When the process runs
/// under ThreadSanitizer, its annotation entry points `__tsan_acquire` and `__tsan_release` exist; they are looked up
/// once with `dlsym`, when the library is loaded (the C target LockingSanitizer), and every lock of the package calls
/// them right after taking and right before releasing it (`LockedValue`, and Observing's `PropertyStorage`). Outside
/// ThreadSanitizer the lookup finds nothing and each call costs one load and one branch (a C global: a Swift `static
/// let` would cost a call to its lazy accessor on every read).
///
/// The annotations only state what the lock already guarantees (the critical sections of one lock are ordered), so
/// they cannot hide a race on memory that is touched outside the lock, or under two different locks.
@usableFromInline
package enum ThreadSanitizer {
    /// Whether the process runs under ThreadSanitizer.
    @inlinable
    package static var isActive: Bool {
        locking_tsan_is_active()
    }

    /// Records that the lock identified by `object` was just taken.
    @inlinable
    package static func acquire(_ object: AnyObject) {
        acquire(address: UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque()))
    }

    /// Records that the lock identified by `object` is about to be released.
    @inlinable
    package static func release(_ object: AnyObject) {
        release(address: UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque()))
    }

    /// Records that the lock identified by `address` was just taken.
    @inlinable
    package static func acquire(address lock: UnsafeRawPointer) {
        locking_annotate_acquire(lock)
    }

    /// Records that the lock identified by `address` is about to be released.
    @inlinable
    package static func release(address lock: UnsafeRawPointer) {
        locking_annotate_release(lock)
    }
}

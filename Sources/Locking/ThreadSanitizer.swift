#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Tells ThreadSanitizer about the locks it cannot see.
///
/// On Linux, `Synchronization.Mutex` is a futex-based lock inside the (uninstrumented) standard library, so
/// ThreadSanitizer sees none of its happens-before edges and reports correct code behind a `Mutex` as a race (for
/// instance canvas-thumb's reporter, whose state every worker thread updates under one `Mutex`). When the process runs
/// under ThreadSanitizer, its annotation entry points `__tsan_acquire` and `__tsan_release` exist; they are looked up
/// once with `dlsym`, and every lock of the package calls them right after taking and right before releasing it
/// (`LockedValue`, and Observing's `PropertyStorage`). Outside ThreadSanitizer the lookup finds nothing and each call
/// costs one load and one branch.
///
/// The annotations only state what the lock already guarantees (the critical sections of one lock are ordered), so
/// they cannot hide a race on memory that is touched outside the lock, or under two different locks.
@usableFromInline
package enum ThreadSanitizer {
    @usableFromInline
    package typealias Annotation = @convention(c) (UnsafeRawPointer?) -> Void

    /// The entry points' addresses as integers (0 when not running under ThreadSanitizer).
    @usableFromInline
    package static let acquireAddress = address(of: "__tsan_acquire")
    @usableFromInline
    package static let releaseAddress = address(of: "__tsan_release")

    /// Whether the process runs under ThreadSanitizer.
    @usableFromInline
    package static var isActive: Bool {
        acquireAddress != 0 && releaseAddress != 0
    }

    private static func address(of symbol: String) -> UInt {
        #if canImport(Darwin)
            let handle = UnsafeMutableRawPointer(bitPattern: -2)  // RTLD_DEFAULT
        #else
            let handle: UnsafeMutableRawPointer? = nil  // RTLD_DEFAULT
        #endif
        return dlsym(handle, symbol).map { UInt(bitPattern: $0) } ?? 0
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
        let address = acquireAddress
        if address != 0 { unsafeBitCast(address, to: Annotation.self)(lock) }
    }

    /// Records that the lock identified by `address` is about to be released.
    @inlinable
    package static func release(address lock: UnsafeRawPointer) {
        let address = releaseAddress
        if address != 0 { unsafeBitCast(address, to: Annotation.self)(lock) }
    }
}

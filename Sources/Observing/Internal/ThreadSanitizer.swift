#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Tells ThreadSanitizer about the locks it cannot see.
///
/// On Linux, `Synchronization.Mutex` is a futex-based lock inside the (uninstrumented) standard
/// library, so ThreadSanitizer sees none of its happens-before edges and reports correct code behind a
/// `Mutex` as a race. When the process runs under ThreadSanitizer, its annotation entry points
/// `__tsan_acquire` and `__tsan_release` exist; they are looked up once with `dlsym`, and `Locked` and
/// `PropertyStorage` call them right after taking and right before releasing their lock. Outside
/// ThreadSanitizer the lookup finds nothing and each call costs one load and one branch.
@usableFromInline
enum ThreadSanitizer {
    @usableFromInline
    typealias Annotation = @convention(c) (UnsafeRawPointer?) -> Void

    /// The entry points' addresses as integers (0 when not running under ThreadSanitizer).
    @usableFromInline
    static let acquireAddress = address(of: "__tsan_acquire")
    @usableFromInline
    static let releaseAddress = address(of: "__tsan_release")

    /// Whether the process runs under ThreadSanitizer.
    static var isActive: Bool {
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
    static func acquire(_ object: AnyObject) {
        let address = acquireAddress
        if address != 0 {
            unsafeBitCast(address, to: Annotation.self)(UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque()))
        }
    }

    /// Records that the lock identified by `object` is about to be released.
    @inlinable
    static func release(_ object: AnyObject) {
        let address = releaseAddress
        if address != 0 {
            unsafeBitCast(address, to: Annotation.self)(UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque()))
        }
    }
}

import Synchronization

extension Mutex where Value: ~Copyable {
    /// `withLock`, with the critical section announced to ThreadSanitizer (see ``ThreadSanitizer``): every `Mutex` of
    /// the package outside Observing is taken through this, so a run under `--sanitize=thread` reports real races
    /// only.
    ///
    /// The lock is identified by the mutex's own address (a `Mutex` is not copyable, so a borrow of it is its storage):
    /// stable for as long as the mutex lives, and different for every live mutex. It is taken before locking and
    /// without touching the protected value, whose every access must come after the acquire.
    @inlinable
    package borrowing func withAnnotatedLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        let lock = withUnsafePointer(to: self) { UnsafeRawPointer($0) }
        return try withLock { (value: inout sending Value) throws(E) -> sending Result in
            ThreadSanitizer.acquire(address: lock)
            defer { ThreadSanitizer.release(address: lock) }
            return try body(&value)
        }
    }
}

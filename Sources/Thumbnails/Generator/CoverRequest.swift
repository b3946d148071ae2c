import Locking
import MediaCore

/// A cover being made for a completion handler; ``cancel()`` stops it.
public final class CoverRequest: Sendable {
    let token = CancellationToken()
    /// Run once by the first ``cancel()``: the owner's clean-up (a service drops the waiter).
    private let cancelHandler = LockedValue<(@Sendable () -> Void)?>(nil)

    init() {}

    /// Stops the request at the next packet; its completion is then called with `.cancelled`,
    /// even if the cover is already made, unless the completion has already been called (or is
    /// being called on another thread). Safe to call any number of times, from any thread.
    public func cancel() {
        token.cancel()
        let handler = cancelHandler.withLock { handler in
            defer { handler = nil }
            return handler
        }
        handler?()
    }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { token.isCancelled }

    /// Installs the handler ``cancel()`` runs; returns false (and installs nothing) when the
    /// request is already cancelled.
    func setCancelHandler(_ handler: @escaping @Sendable () -> Void) -> Bool {
        cancelHandler.withLock { stored in
            guard !token.isCancelled else { return false }
            stored = handler
            return true
        }
    }
}

import Dispatch
import Foundation
import Synchronization

extension CoverGenerator {
    /// Takes a cover of at most `size` (aspect fit, see ``CoverOptions/maximumSize``) from the
    /// file at `url` and calls `completion` with it: the completion-handler shape of the
    /// original app's `generateCover(for:size:completion:)`.
    ///
    /// `completion` is called exactly once, on a background queue (hop to the main queue to
    /// touch UI): with the cover, with a ``ThumbnailError``, or with `.cancelled` when the
    /// request, ``cancelAll()``, or nothing else stopped it first. Cancelling stops decoding at
    /// the next packet.
    ///
    /// - Parameters:
    ///   - options: everything but the size (its ``CoverOptions/maximumSize`` is replaced by
    ///     `size`).
    /// - Returns: the request, to cancel it (a reused cell cancels its old request).
    @discardableResult
    public func generateCover(
        for url: URL,
        size: PixelSize,
        options: CoverOptions = CoverOptions(),
        completion: @escaping @Sendable (Result<CoverImage, ThumbnailError>) -> Void
    ) -> CoverRequest {
        var sized = options
        sized.maximumSize = size
        let options = sized
        let request = CoverRequest()
        let token = request.token
        DispatchQueue.global(qos: .userInitiated).async {
            let result = Result { () throws(ThumbnailError) in
                try self.makeCover(for: url, options: options, token: token)
            }
            completion(result)
        }
        return request
    }
}

/// A cover being made for a completion handler; ``cancel()`` stops it.
public final class CoverRequest: Sendable {
    let token = CancellationToken()
    /// Run once by the first ``cancel()``: the owner's clean-up (a service drops the waiter).
    private let cancelHandler = Mutex<(@Sendable () -> Void)?>(nil)

    init() {}

    /// Stops the request at the next packet; its completion is then called with `.cancelled`
    /// (unless it had already finished). Safe to call any number of times, from any thread.
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

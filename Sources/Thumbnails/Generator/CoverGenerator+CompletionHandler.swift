import Dispatch
import Foundation
import MediaCore

extension CoverGenerator {
    /// Takes a cover of at most `size` (aspect fit, see ``CoverOptions/maximumSize``) from the
    /// file at `url` and calls `completion` with it: the completion-handler shape of the
    /// original app's `generateCover(for:size:completion:)`.
    ///
    /// `completion` is called exactly once, on a background thread (hop to the main queue to
    /// touch UI): with the cover, with a ``ThumbnailError`` (`.invalidArgument` at once for a bad
    /// option or size, before anything is queued), or with `.cancelled` when the request or
    /// ``cancelAll()`` stopped it first. Cancelling stops decoding at the next packet, or, while
    /// the request waits for its turn (the generator's ``maximumConcurrency``), withdraws it: its
    /// decode never starts, and `completion` is called on the cancelling thread.
    ///
    /// - Parameters:
    ///   - url: the video file.
    ///   - size: the largest cover wanted, aspect kept (zero: the natural size).
    ///   - completion: called once with the cover or the error.
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
        let request = CoverRequest()
        var sized = options
        sized.maximumSize = size
        let validated: ValidatedCoverOptions
        let path: FileSystemPath
        do throws(ThumbnailError) {
            path = try Self.path(of: url)
            validated = try ValidatedCoverOptions(sized)
        } catch {
            DispatchQueue.global(qos: .userInitiated).async { completion(.failure(error)) }
            return request
        }
        let token = request.token
        // A request cancelled while it waits for its turn is withdrawn: its decode never starts.
        _ = request.setCancelHandler { [scheduler] in scheduler.withdraw(token) }
        scheduler.submit(token: token) { cancellation in
            let result = Result { () throws(ThumbnailError) in
                try self.makeCover(forFileAt: path, options: validated, cancellation: cancellation)
            }
            // Called once the decode's slot is free: the handler may ask this generator for more.
            return { completion(result) }
        } dropped: {
            completion(.failure(ThumbnailError(.cancelled, reason: "\(path.escaped): cancelled")))
        }
        return request
    }
}

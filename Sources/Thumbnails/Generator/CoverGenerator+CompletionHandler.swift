import Dispatch
import Foundation

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

import CanvasKit
import Foundation
import Thumbnails

/// A Thumbnails request is a CanvasKit request: `cancel()` is idempotent and callable from any thread.
extension Thumbnails.CoverRequest: CanvasKit.CancellableCoverRequest {}

/// The cover service as CanvasKit's `CoverProvider`: cell view-models ask it for the covers of their takes.
///
/// ```swift
/// let covers = CoverService()
/// let screen = CanvasScreen(board: board, configuration: .init(viewportSize: 9), coverProvider: covers)
/// ```
///
/// What the adapter adds to `CoverService/requestCoverImage(for:maximumSize:completion:)` (named apart from this
/// requirement, so that `service.requestCover(for:maximumSize:) { _ in }` is CanvasKit's, never ambiguous):
/// - the cover arrives as the service made it: the same `CoverImage`, in the pixel format its options ask for;
/// - a failure arrives as the `ThumbnailError` (its description is the one-line `ThumbnailError/reason`);
/// - the completion is never called for a cancelled request (CanvasKit's contract), where the service itself reports
///   `.cancelled`.
///
/// Cached covers are still delivered synchronously, before `requestCover` returns.
extension CoverService: CompletionCoverProvider {
    /// Starts loading the cover of `videoURL`, fitted in `maximumSize`, and returns at once (see the extension's notes).
    public func requestCover(
        for videoURL: URL,
        maximumSize: PixelSize,
        completion: @escaping @Sendable (Result<CoverImage, any Error>) -> Void
    ) -> any CanvasKit.CancellableCoverRequest {
        requestCoverImage(for: videoURL, maximumSize: maximumSize) { result in
            switch result {
            case .success(let image):
                completion(.success(image))
            case .failure(let error) where error.kind == .cancelled:
                return
            case .failure(let error):
                completion(.failure(error))
            }
        }
    }
}

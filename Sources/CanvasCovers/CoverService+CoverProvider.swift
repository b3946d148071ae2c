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
/// - the cover arrives as 8-bit RGBA (`CanvasCover`), whatever pixel format the service's options ask for, with
///   rows packed to `width * 4` bytes;
/// - a failure arrives as the `ThumbnailError` (its description is the one-line `ThumbnailError/reason`);
/// - the completion is never called for a cancelled request (CanvasKit's contract), where the service itself reports
///   `.cancelled`.
///
/// Cached covers are still delivered synchronously, before `requestCover` returns.
extension CoverService: CoverProvider {
    /// Starts loading the cover of `videoURL`, fitted in `maximumSize`, and returns at once (see the extension's notes).
    public func requestCover(
        for videoURL: URL,
        maximumSize: PixelSize,
        completion: @escaping @Sendable (Result<CanvasCover, any Error>) -> Void
    ) -> any CanvasKit.CancellableCoverRequest {
        requestCoverImage(for: videoURL, maximumSize: maximumSize) { result in
            switch result {
            case .success(let image):
                completion(.success(image.canvasCover(of: videoURL)))
            case .failure(let error) where error.kind == .cancelled:
                return
            case .failure(let error):
                completion(.failure(error))
            }
        }
    }
}

extension CoverImage {
    /// The cover as CanvasKit's RGBA value for the take at `videoURL`: RGB gets an opaque alpha, row padding is
    /// dropped.
    public func canvasCover(of videoURL: URL) -> CanvasCover {
        let rowBytes = width * 4
        var rgba = [UInt8](repeating: 255, count: rowBytes * height)
        let step = pixelFormat.bytesPerPixel
        pixels.withUnsafeBufferPointer { source in
            rgba.withUnsafeMutableBufferPointer { target in
                for row in 0..<height {
                    var from = row * bytesPerRow
                    var to = row * rowBytes
                    for _ in 0..<width {
                        target[to] = source[from]
                        target[to + 1] = source[from + 1]
                        target[to + 2] = source[from + 2]
                        if step == 4 { target[to + 3] = source[from + 3] }
                        from += step
                        to += 4
                    }
                }
            }
        }
        return CanvasCover(videoURL: videoURL, width: width, height: height, pixels: Data(rgba))
    }
}

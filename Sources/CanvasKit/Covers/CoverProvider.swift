import Foundation
@_exported import Pixels

/// A cover request in flight, as the view-model that started it sees it: something it cancels when its cell no longer
/// needs the cover. (Thumbnails' `CoverRequest` class is one, through the CanvasCovers module.)
public protocol CancellableCoverRequest: AnyObject, Sendable {
    /// Stops the request: its completion is not called afterwards (or, if it is already running, its result is
    /// ignored by the requester). Idempotent; callable from any thread.
    func cancel()
}

/// Where cell view-models get covers from. The thumbnail service (the `Thumbnails` module) implements it; tests use a
/// fake that records requests and cancellations.
public protocol CoverProvider: AnyObject, Sendable {
    /// Starts loading the cover of the take at `videoURL`, fitted in `maximumSize` (keeping its aspect ratio; 0 in a
    /// dimension means no limit on it, as for Thumbnails), and returns at once.
    ///
    /// `completion` is called at most once, on any thread, with the cover or the error that prevented it (for
    /// example a missing or unreadable file); it is not called after the returned request is cancelled. The cover is
    /// a `CoverImage` in either pixel format, rows possibly padded: Core Graphics reads both layouts as they are.
    func requestCover(
        for videoURL: URL,
        maximumSize: PixelSize,
        completion: @escaping @Sendable (Result<CoverImage, any Error>) -> Void
    ) -> any CancellableCoverRequest
}

import Foundation
@_exported import Pixels

/// A decoded cover: 8-bit RGBA pixels, row by row, `width * 4` bytes per row.
public struct CanvasCover: Sendable, Hashable {
    /// The take the cover was pulled from.
    public var videoURL: URL
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// `width * height * 4` bytes of RGBA.
    public var pixels: Data

    /// Wraps decoded pixels.
    public init(videoURL: URL, width: Int, height: Int, pixels: Data) {
        self.videoURL = videoURL
        self.width = width
        self.height = height
        self.pixels = pixels
    }
}

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
    /// example a missing or unreadable file); it is not called after the returned request is cancelled.
    func requestCover(
        for videoURL: URL,
        maximumSize: PixelSize,
        completion: @escaping @Sendable (Result<CanvasCover, any Error>) -> Void
    ) -> any CancellableCoverRequest
}

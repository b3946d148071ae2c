import Foundation
@_exported import Pixels

/// A decoded cover, laid out so that it becomes a `CGImage` (and so a `UIImage`) without moving a byte.
///
/// The layout, which every provider must deliver:
/// - 8 bits per component, 4 components per pixel, in memory order R, G, B, A: Core Graphics'
///   `CGImageAlphaInfo.last` with the default (big-endian) byte order, 32 bits per pixel;
/// - alpha is straight, **not premultiplied**: the colours are never multiplied by it (Thumbnails' covers are opaque,
///   alpha 255 everywhere; a provider that keeps a video's alpha channel delivers it this way);
/// - rows run top to bottom and pixels left to right, upright (the display orientation already applied);
///   ``bytesPerRow`` is `width * 4`, with no padding;
/// - colours are BT.709 / sRGB primaries, gamma-encoded (an HDR video is tone-mapped to SDR first).
///
/// ```swift
/// // Apple platforms only
/// let image = CGImage(
///     width: cover.width, height: cover.height, bitsPerComponent: 8, bitsPerPixel: 32,
///     bytesPerRow: cover.bytesPerRow, space: CGColorSpace(name: CGColorSpace.sRGB)!,
///     bitmapInfo: CGBitmapInfo(rawValue: CGImageAlphaInfo.last.rawValue),
///     provider: CGDataProvider(data: cover.pixels as CFData)!, decode: nil, shouldInterpolate: true,
///     intent: .defaultIntent)
/// ```
public struct CanvasCover: Sendable, Hashable {
    /// The take the cover was pulled from.
    public var videoURL: URL
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// `width * height * 4` bytes of straight (not premultiplied) RGBA, rows top to bottom.
    public var pixels: Data

    /// Bytes from the start of one row to the start of the next: `width * 4` (rows are not padded).
    public var bytesPerRow: Int { width * 4 }

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

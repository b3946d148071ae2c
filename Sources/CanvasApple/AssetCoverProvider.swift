#if canImport(UIKit) && canImport(AVFoundation)
    @preconcurrency import AVFoundation
    import CanvasKit
    import CoreGraphics
    import Foundation

    /// Covers from `AVAssetImageGenerator`, the cover provider of an iOS screen that ships no FFmpeg: HDR takes are
    /// tone-mapped to SDR (`dynamicRangePolicy = .forceSDR`), rotation and mirroring applied
    /// (`appliesPreferredTrackTransform`), and each cover is kept in a ``CoverMemoryCache`` keyed by the take file's
    /// state and the requested size, so a cell scrolled back on screen does not decode its take again.
    ///
    /// The cover is the take's first frame fitted in the requested size, as 8-bit RGBA rows. Cancellation is the task's
    /// (a cell that no longer needs its cover cancels its request): a cancelled request throws `CancellationError` and
    /// caches nothing.
    public final class AssetCoverProvider: CoverProvider {
        /// Where covers are kept.
        public let cache: CoverMemoryCache

        /// A provider keeping its covers in `cache`.
        public init(cache: CoverMemoryCache = CoverMemoryCache()) {
            self.cache = cache
        }

        /// The cover of the take at `videoURL` fitted in `maximumSize`, from the cache or decoded.
        ///
        /// - Throws: `CancellationError` when the task is cancelled first; the generator's error when the take cannot be
        ///   read; `CoverImageLayoutError` if Core Graphics hands back an impossible size.
        public func cover(for videoURL: URL, maximumSize: PixelSize) async throws -> CoverImage {
            let key = CoverMemoryCache.Key(takeAt: videoURL, maximumSize: maximumSize)
            if let key, let cached = cache.cover(for: key) { return cached }
            let generator = AVAssetImageGenerator(asset: AVURLAsset(url: videoURL))
            generator.appliesPreferredTrackTransform = true
            generator.dynamicRangePolicy = .forceSDR
            generator.maximumSize = CGSize(width: maximumSize.width, height: maximumSize.height)
            let (image, _) = try await generator.image(at: .zero)
            try Task.checkCancellation()
            let cover = try Self.rgba(image)
            if let key { cache.insert(cover, for: key) }
            return cover
        }

        /// The image drawn into RGBA rows (Core Graphics contexts are premultiplied; a video frame is opaque, so
        /// premultiplied and straight alpha are the same bytes).
        private static func rgba(_ image: CGImage) throws -> CoverImage {
            let width = image.width
            let height = image.height
            var pixels = [UInt8](repeating: 0, count: width * height * 4)
            pixels.withUnsafeMutableBytes { buffer in
                let context = CGContext(
                    data: buffer.baseAddress, width: width, height: height, bitsPerComponent: 8, bytesPerRow: width * 4,
                    space: CGColorSpace(name: CGColorSpace.sRGB)!,
                    bitmapInfo: CGImageAlphaInfo.premultipliedLast.rawValue)
                context?.draw(image, in: CGRect(x: 0, y: 0, width: width, height: height))
            }
            return try CoverImage(
                width: width, height: height, bytesPerRow: width * 4, pixelFormat: .rgba, pixels: pixels)
        }
    }
#endif

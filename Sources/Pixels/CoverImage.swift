/// A decoded cover: 8-bit RGB or RGBA pixels in Swift-owned memory, and the time of the frame
/// they show. The one picture type of the package: what Thumbnails decodes and what CanvasKit's cover
/// providers deliver to the cell view-models.
///
/// Rows run top to bottom, pixels left to right, upright (the display rotation already applied
/// unless the options turned it off). A row may be padded: step rows by ``bytesPerRow``, not by
/// `width * pixelFormat.bytesPerPixel`. Colours are BT.709 / sRGB primaries, gamma-encoded; alpha, when
/// there is one, is straight (not premultiplied), and 255 everywhere in Thumbnails' covers.
///
/// The layout is one Core Graphics reads as it is (so a `CGImage`, and a `UIImage`, is made
/// without moving a byte): 8 bits per component, ``CoverPixelFormat/bytesPerPixel`` times 8 bits
/// per pixel, ``bytesPerRow``, and `CGImageAlphaInfo.last` for ``CoverPixelFormat/rgba`` or
/// `.none` for ``CoverPixelFormat/rgb``, with the default (big-endian) byte order.
public struct CoverImage: Sendable, Hashable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Bytes from the start of one row to the start of the next (at least
    /// `width * pixelFormat.bytesPerPixel`).
    public let bytesPerRow: Int
    /// The channel layout of ``pixels``.
    public let pixelFormat: CoverPixelFormat
    /// `bytesPerRow * height` bytes.
    public let pixels: [UInt8]
    /// The time of the frame shown, in seconds from the start of the video (the first frame is
    /// 0, whatever timestamp the file gives it). May differ from the requested time: by up to
    /// the tolerances, to the keyframe before it in keyframe mode, to the last frame for a time
    /// past the end, or later when dark frames were skipped.
    public let actualTime: Double
    /// Whether the frame shown is a keyframe.
    public let isKeyframe: Bool
    /// Problems that did not prevent a cover but that a caller may want to log, one line each:
    /// "the file ends at 1.48 s although its index says 3.00 s; this is its last decodable
    /// frame", damaged packets skipped. Empty for a healthy file.
    public let warnings: [String]

    /// A cover made of the given pixels (checked: `pixels.count == bytesPerRow * height`, and
    /// `bytesPerRow` holds a row).
    ///
    /// - Throws: ``CoverImageLayoutError`` when the sizes are zero, negative or overflow, or the
    ///   pixels do not fill `height` rows of `bytesPerRow` bytes.
    public init(
        width: Int,
        height: Int,
        bytesPerRow: Int,
        pixelFormat: CoverPixelFormat,
        pixels: [UInt8],
        actualTime: Double = 0,
        isKeyframe: Bool = true,
        warnings: [String] = []
    ) throws(CoverImageLayoutError) {
        let (rowBytes, rowOverflow) = width.multipliedReportingOverflow(by: pixelFormat.bytesPerPixel)
        let (total, totalOverflow) = bytesPerRow.multipliedReportingOverflow(by: height)
        guard width > 0, height > 0, !rowOverflow, !totalOverflow, bytesPerRow >= rowBytes, pixels.count == total
        else {
            throw CoverImageLayoutError(
                reason: "\(width)x\(height) \(pixelFormat) pixels with \(bytesPerRow) bytes per row "
                    + "cannot be held in \(pixels.count) bytes"
            )
        }
        self.init(
            unchecked: width, height: height, bytesPerRow: bytesPerRow, pixelFormat: pixelFormat, pixels: pixels,
            actualTime: actualTime, isKeyframe: isKeyframe, warnings: warnings
        )
    }

    /// A cover made of pixels the caller already checked (the decoder: it allocated them).
    package init(
        unchecked width: Int,
        height: Int,
        bytesPerRow: Int,
        pixelFormat: CoverPixelFormat,
        pixels: [UInt8],
        actualTime: Double,
        isKeyframe: Bool,
        warnings: [String]
    ) {
        self.width = width
        self.height = height
        self.bytesPerRow = bytesPerRow
        self.pixelFormat = pixelFormat
        self.pixels = pixels
        self.actualTime = actualTime
        self.isKeyframe = isKeyframe
        self.warnings = warnings
    }

    /// The size in pixels.
    public var size: PixelSize { PixelSize(width: width, height: height) }

    /// The red, green and blue of the pixel at column `x`, row `y` (0, 0 is the top left).
    public func color(x: Int, y: Int) -> RGBColor {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside \(size)")
        let offset = y * bytesPerRow + x * pixelFormat.bytesPerPixel
        return RGBColor(red: pixels[offset], green: pixels[offset + 1], blue: pixels[offset + 2])
    }

    /// The mean colour of the rectangle of `width` by `height` pixels at (`x`, `y`), clipped to
    /// the image, as 0-255 doubles.
    public func meanColor(x: Int = 0, y: Int = 0, width: Int? = nil, height: Int? = nil) -> (
        red: Double, green: Double, blue: Double
    ) {
        let left = max(0, x)
        let top = max(0, y)
        let right = min(self.width, x + (width ?? self.width))
        let bottom = min(self.height, y + (height ?? self.height))
        var sums = (0, 0, 0)
        var count = 0
        for row in top..<max(top, bottom) {
            var offset = row * bytesPerRow + left * pixelFormat.bytesPerPixel
            for _ in left..<max(left, right) {
                sums.0 += Int(pixels[offset])
                sums.1 += Int(pixels[offset + 1])
                sums.2 += Int(pixels[offset + 2])
                offset += pixelFormat.bytesPerPixel
                count += 1
            }
        }
        guard count > 0 else { return (0, 0, 0) }
        let total = Double(count)
        return (Double(sums.0) / total, Double(sums.1) / total, Double(sums.2) / total)
    }

    /// The memory the pixels take, as a cache counts it.
    public var byteCount: Int { pixels.count }
}

/// Pixels that do not make the image they were given for (refused by `CoverImage`'s checked initializer).
public struct CoverImageLayoutError: Error, Sendable, Hashable, CustomStringConvertible {
    /// One line naming the sizes and the byte count that do not fit.
    public let reason: String

    /// An error with `reason`.
    public init(reason: String) {
        self.reason = reason
    }

    /// The reason.
    public var description: String { reason }
}

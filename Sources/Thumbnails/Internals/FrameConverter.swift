/// Turns a decoded frame into a ``CoverImage``: one swscale pass that scales to fit, converts
/// YUV of any depth and range to 8-bit RGB(A) with the frame's own matrix, then an exact pixel
/// copy that turns the picture upright (a transpose and flip, no filter).
enum FrameConverter {
    /// The longest side a cover may have (FFmpeg's own limit for images is 16384 in most decoders).
    static let maximumSide = 16_384
    /// The most pixels a cover may have: 8K UHD twice over (128 MB as RGBA).
    static let maximumPixels = 32 << 20

    /// The sizes a cover of `frame` takes: `output` upright, `scaled` before the rotation.
    ///
    /// The stored size is stretched by the pixel aspect ratio (widths scale, heights stay, as
    /// FFmpeg does), turned by `rotation`, then fitted inside `maximum` (0 = no limit on that
    /// side) without enlarging. Both sides are at least 1.
    static func sizes(
        frameWidth: Int,
        frameHeight: Int,
        pixelAspectRatio: Rational?,
        rotation: Int,
        maximum: PixelSize
    ) -> (output: PixelSize, scaled: PixelSize) {
        var displayWidth = Double(frameWidth)
        if let ratio = pixelAspectRatio, ratio.numerator > 0, ratio.denominator > 0 {
            displayWidth *= ratio.doubleValue
        }
        let displayHeight = Double(frameHeight)
        let quarter = rotation % 180 != 0
        let uprightWidth = quarter ? displayHeight : displayWidth
        let uprightHeight = quarter ? displayWidth : displayHeight
        var scale = 1.0
        if maximum.width > 0 { scale = min(scale, Double(maximum.width) / uprightWidth) }
        if maximum.height > 0 { scale = min(scale, Double(maximum.height) / uprightHeight) }
        let output = PixelSize(
            width: max(1, Int((uprightWidth * scale).rounded())),
            height: max(1, Int((uprightHeight * scale).rounded()))
        )
        let scaled = quarter ? PixelSize(width: output.height, height: output.width) : output
        return (output, scaled)
    }

    /// Converts `frame` to a cover.
    static func makeImage(
        from frame: Frame,
        pixelAspectRatio: Rational?,
        rotation: Int,
        options: CoverOptions,
        actualTime: Double,
        warnings: [String],
        name: String
    ) throws(ThumbnailError) -> CoverImage {
        let rotation = options.appliesRotation ? rotation : 0
        let (output, scaled) = sizes(
            frameWidth: frame.width, frameHeight: frame.height,
            pixelAspectRatio: pixelAspectRatio ?? frame.sampleAspectRatio, rotation: rotation,
            maximum: options.maximumSize
        )
        let layout: FFmpeg.PixelLayout = options.pixelFormat == .rgba ? .rgba : .rgb24
        // A damaged header can claim any size; refuse what could not be allocated rather than
        // let an allocation failure stop the process.
        guard output.width <= maximumSide, output.height <= maximumSide,
            output.width * output.height <= maximumPixels
        else {
            throw ThumbnailError(
                .decodeFailed,
                reason: "\(name): a \(output) cover is larger than a cover can be (\(maximumSide) pixels a side)")
        }
        let converted: Frame
        do {
            converted = try Frame()
            try FFmpeg.allocatePicture(converted.pointer, width: scaled.width, height: scaled.height, layout: layout)
            let scaler = try Scaler(
                from: FFmpeg.ScaleSide(
                    width: frame.width, height: frame.height, format: frame.pixelFormat,
                    isFullRange: frame.isFullRange, colorSpace: frame.colorSpace),
                to: FFmpeg.ScaleSide(
                    width: scaled.width, height: scaled.height, format: layout.formatNumber, isFullRange: true)
            )
            try scaler.scale(frame, into: converted)
        } catch {
            throw ThumbnailError(
                .decodeFailed,
                reason: "\(name): cannot convert a \(frame.width)x\(frame.height) frame to \(scaled)",
                ffmpegError: error
            )
        }
        let bytesPerPixel = options.pixelFormat.bytesPerPixel
        let pixels = copyUpright(
            converted, width: scaled.width, height: scaled.height, bytesPerPixel: bytesPerPixel, rotation: rotation)
        return CoverImage(
            unchecked: output.width, height: output.height, bytesPerRow: output.width * bytesPerPixel,
            pixelFormat: options.pixelFormat, pixels: pixels, actualTime: actualTime, isKeyframe: frame.isKeyframe,
            warnings: warnings
        )
    }

    /// Copies the packed RGB(A) picture of `frame` (`width` x `height`, padded rows) into tightly
    /// packed rows, turned clockwise by `rotation` degrees (0, 90, 180 or 270).
    static func copyUpright(_ frame: Frame, width: Int, height: Int, bytesPerPixel: Int, rotation: Int) -> [UInt8] {
        let (planes, strides) = FFmpeg.planes(of: frame.pointer)
        guard let source = planes[0] else { return [] }
        let stride = Int(strides[0])
        let count = width * height * bytesPerPixel
        let quarter = rotation % 180 != 0
        let outputWidth = quarter ? height : width
        let outputHeight = quarter ? width : height
        let rowBytes = outputWidth * bytesPerPixel
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            guard let destination = buffer.baseAddress else { return }
            switch rotation {
            case 0:
                for y in 0..<height {
                    (destination + y * rowBytes).update(from: source + y * stride, count: rowBytes)
                }
            default:
                for y in 0..<outputHeight {
                    var target = destination + y * rowBytes
                    for x in 0..<outputWidth {
                        // Where output pixel (x, y) comes from in the unturned picture.
                        let (sourceX, sourceY) =
                            switch rotation {
                            case 90: (y, height - 1 - x)
                            case 180: (width - 1 - x, height - 1 - y)
                            default: (width - 1 - y, x)  // 270
                            }
                        target.update(from: source + sourceY * stride + sourceX * bytesPerPixel, count: bytesPerPixel)
                        target += bytesPerPixel
                    }
                }
            }
            initialized = count
        }
    }
}

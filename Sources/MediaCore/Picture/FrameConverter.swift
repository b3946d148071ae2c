import Pixels

/// Turns a decoded frame into an upright 8-bit RGB(A) picture: one swscale pass that scales to fit, converts
/// YUV of any depth and range to 8-bit RGB(A) with the frame's own matrix (of one field, for an
/// interlaced frame; to 16-bit RGB and then tone-mapped, for HDR), then an exact pixel copy that
/// turns the picture upright (any of the eight orientations: a transpose and flips, no filter).
package enum FrameConverter {
    /// The longest side a picture may have: a frame's (``FrameLimits/maximumSide``).
    package static let maximumSide = FrameLimits.maximumSide
    /// The most pixels a picture may have: a frame's (``FrameLimits/maximumPixels``, 128 MiB as RGBA).
    package static let maximumPixels = FrameLimits.maximumPixels

    /// The sizes a cover of `frame` takes: `output` upright, `scaled` before the rotation.
    ///
    /// The stored size is stretched by the pixel aspect ratio (widths scale, heights stay, as
    /// FFmpeg does), turned by `rotation`, then fitted inside `maximum` (0 = no limit on that
    /// side) without enlarging. Both sides are at least 1.
    package static func sizes(
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

    /// Converts `frame` to an upright RGB(A) picture of at most `maximum` (0 = no limit on that side),
    /// turned by `orientation`.
    ///
    /// The plain case (standard range, progressive) is one swscale pass straight to `layout`. A turned or
    /// mirrored frame has its planes turned first (``Frame/turnedUpright(by:)``), as the ffmpeg CLI's autorotate
    /// turns them before it scales, so the picture is the CLI's at any size (swscale shares chroma between
    /// neighbours across, not down: a picture scaled and then turned would share it down). An interlaced frame
    /// scales only its first field, so the two moments it holds never mix into combs; turned, that field is first
    /// brought back to the frame's height, then turned, then scaled. An HDR
    /// frame (PQ, HLG) scales to 16-bit RGB, and ``ToneMapper`` brings the small picture to BT.709.
    ///
    /// Throws ``PictureError/tooLarge(_:)`` when the upright size exceeds ``maximumSide`` or
    /// ``maximumPixels`` (a damaged header can claim any size: refused rather than allocated), and
    /// ``PictureError/conversionFailed(frame:scaled:error:)`` when FFmpeg cannot scale it.
    package static func makePicture(
        from frame: Frame,
        pixelAspectRatio: Rational?,
        orientation: Orientation,
        maximum: PixelSize,
        layout: PictureLayout,
        untaggedMatrix: UntaggedMatrix = .bt601
    ) throws(PictureError) -> UprightPicture {
        let ratio = pixelAspectRatio ?? frame.sampleAspectRatio
        let (output, scaled) = sizes(
            frameWidth: frame.width, frameHeight: frame.height, pixelAspectRatio: ratio,
            rotation: orientation.rotation, maximum: maximum
        )
        guard output.width <= maximumSide, output.height <= maximumSide,
            output.width * output.height <= maximumPixels
        else { throw .tooLarge(output) }
        func failure(_ error: FFmpegError) -> PictureError {
            .conversionFailed(frame: PixelSize(width: frame.width, height: frame.height), scaled: scaled, error: error)
        }
        let turned: Frame?
        do {
            let planes = try frame.turnedUpright(by: orientation)
            turned = try planes == nil ? turnedFirstField(of: frame, by: orientation) : planes
        } catch {
            throw failure(error)
        }
        if let turned {
            return try makePicture(
                from: turned, pixelAspectRatio: orientation.transposes ? ratio?.reciprocal : ratio,
                orientation: .upright, maximum: maximum, layout: layout,
                untaggedMatrix: untaggedMatrix)
        }
        let converted: Frame
        do {
            converted = try convert(frame, to: scaled, layout: layout, untaggedMatrix: untaggedMatrix)
        } catch {
            throw failure(error)
        }
        let pixels = copyUpright(
            converted, width: scaled.width, height: scaled.height, bytesPerPixel: layout.bytesPerPixel,
            orientation: orientation)
        return UprightPicture(width: output.width, height: output.height, layout: layout, pixels: pixels)
    }

    /// The first field of an interlaced `frame` scaled back to the frame's height in its own pixel format (what stands
    /// for the deinterlaced frame), as a progressive frame turned upright by `orientation`: the CLI deinterlaces, then
    /// turns, then scales, and so does a cover. Nil for a progressive or upright frame, or planes that cannot be turned.
    private static func turnedFirstField(of frame: Frame, by orientation: Orientation) throws(FFmpegError) -> Frame? {
        guard !orientation.isUpright, let field = firstField(of: frame),
            FFmpeg.turnablePlanes(of: frame.pixelFormat) != nil
        else { return nil }
        let whole = try Frame()
        try FFmpeg.allocatePicture(whole.pointer, like: frame.pointer, width: frame.width, height: frame.height)
        FFmpeg.setProgressive(whole.pointer)
        let scaler = try Scaler(
            from: FFmpeg.ScaleSide(
                width: frame.width, height: field.height(ofFrameHeight: frame.height), format: frame.pixelFormat,
                isFullRange: frame.isFullRange),
            to: FFmpeg.ScaleSide(
                width: frame.width, height: frame.height, format: frame.pixelFormat, isFullRange: frame.isFullRange))
        try scaler.scale(field: field, of: frame, into: whole)
        return try whole.turnedUpright(by: orientation)
    }

    /// `frame` scaled to `scaled` in `layout` (its first field only, when interlaced; tone-mapped, when HDR), not
    /// turned yet.
    private static func convert(
        _ frame: Frame, to scaled: PixelSize, layout: PictureLayout, untaggedMatrix: UntaggedMatrix
    ) throws(FFmpegError) -> Frame {
        let pixelLayout: FFmpeg.PixelLayout = layout == .rgba ? .rgba : .rgb24
        let color = FFmpeg.colorDescription(of: frame.pointer)
        let toneMapper =
            color.range == .standard
            ? nil
            : ToneMapper(range: color.range, primaries: color.primaries, peak: FFmpeg.peakLuminance(of: frame.pointer))
        let field = firstField(of: frame)
        let converted = try Frame()
        let scaledLayout: FFmpeg.PixelLayout = toneMapper == nil ? pixelLayout : .rgb48le
        try FFmpeg.allocatePicture(converted.pointer, width: scaled.width, height: scaled.height, layout: scaledLayout)
        let scaler = try Scaler(
            from: FFmpeg.ScaleSide(
                width: frame.width, height: field?.height(ofFrameHeight: frame.height) ?? frame.height,
                format: frame.pixelFormat, isFullRange: frame.isFullRange,
                colorSpace: untaggedMatrix.colorSpace(of: frame)),
            to: FFmpeg.ScaleSide(
                width: scaled.width, height: scaled.height, format: scaledLayout.formatNumber, isFullRange: true)
        )
        if let field {
            try scaler.scale(field: field, of: frame, into: converted)
        } else {
            try scaler.scale(frame, into: converted)
        }
        guard let toneMapper else { return converted }
        let mapped = try Frame()
        try FFmpeg.allocatePicture(mapped.pointer, width: scaled.width, height: scaled.height, layout: pixelLayout)
        let (sourcePlanes, sourceStrides) = FFmpeg.planes(of: converted.pointer)
        let (targetPlanes, targetStrides) = FFmpeg.planes(of: mapped.pointer)
        if let source = sourcePlanes[0], let target = targetPlanes[0] {
            toneMapper.map(
                source: source, sourceStride: Int(sourceStrides[0]),
                destination: target, destinationStride: Int(targetStrides[0]),
                width: scaled.width, height: scaled.height, bytesPerPixel: layout.bytesPerPixel)
        }
        return mapped
    }

    /// The field an interlaced frame's cover is made from (the one shown first), nil for a
    /// progressive frame or one too small to split.
    package static func firstField(of frame: Frame) -> Scaler.Field? {
        guard frame.height >= 4 else { return nil }
        switch FFmpeg.fieldOrder(of: frame.pointer) {
        case .progressive: return nil
        case .topFieldFirst: return .top
        case .bottomFieldFirst: return .bottom
        }
    }

    /// Copies the packed RGB(A) picture of `frame` (`width` x `height`, padded rows) into tightly
    /// packed rows, turned upright by `orientation`.
    package static func copyUpright(
        _ frame: Frame, width: Int, height: Int, bytesPerPixel: Int, orientation: Orientation
    ) -> [UInt8] {
        guard let source = frame.plane(0) else { return [] }
        let count = width * height * bytesPerPixel
        let rowBytes = (orientation.transposes ? height : width) * bytesPerPixel
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            guard let destination = buffer.baseAddress else { return }
            orientation.turn(
                source.base, stride: source.stride, width: width, height: height, bytesPerPixel: bytesPerPixel,
                into: destination, stride: rowBytes)
            initialized = count
        }
    }
}

/// The packed 8-bit layouts ``FrameConverter`` produces.
package enum PictureLayout: Sendable, Hashable {
    /// Three bytes a pixel: red, green, blue.
    case rgb
    /// Four bytes a pixel: red, green, blue, opaque alpha.
    case rgba

    /// Bytes of one pixel.
    package var bytesPerPixel: Int { self == .rgba ? 4 : 3 }
}

/// An upright picture in Swift memory: `height` tightly packed rows of `width` pixels.
package struct UprightPicture: Sendable {
    package var width: Int
    package var height: Int
    package var layout: PictureLayout
    package var pixels: [UInt8]

    /// Bytes of one row (no padding).
    package var bytesPerRow: Int { width * layout.bytesPerPixel }
}

/// Why a frame could not become a picture.
package enum PictureError: Error, Sendable {
    /// The upright picture would exceed ``FrameConverter/maximumSide`` or ``FrameConverter/maximumPixels``.
    case tooLarge(PixelSize)
    /// FFmpeg could not allocate or scale the frame (`frame` stored size, `scaled` the target).
    case conversionFailed(frame: PixelSize, scaled: PixelSize, error: FFmpegError)
}

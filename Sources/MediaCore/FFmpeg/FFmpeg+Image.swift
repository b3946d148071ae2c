internal import CFFmpeg

/// Pixel formats, scaling and colour conversion (libswscale), and still-image encoding (the
/// `png` and `mjpeg` encoders of libavcodec).
extension FFmpeg {
    /// A scaler: `SwsContext *`, owned by a ``Scaler``.
    package typealias ScalerPointer = OpaquePointer

    /// The pixel formats Thumbnails produces or encodes from, by name.
    package enum PixelLayout {
        case rgb24
        case rgba
        case yuvj420p
        /// 16 bits per component, little-endian: the precision HDR tone mapping starts from.
        case rgb48le

        var format: AVPixelFormat {
            switch self {
            case .rgb24: AV_PIX_FMT_RGB24
            case .rgba: AV_PIX_FMT_RGBA
            case .yuvj420p: AV_PIX_FMT_YUVJ420P
            case .rgb48le: AV_PIX_FMT_RGB48LE
            }
        }

        /// The `AVPixelFormat` as its raw number.
        package var formatNumber: Int32 { format.rawValue }
    }

    /// Whether `format` is one of the deprecated "J" formats, whose YUV values are full range.
    package static func isFullRangeFormat(_ format: Int32) -> Bool {
        let fullRange: [AVPixelFormat] = [
            AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUVJ422P, AV_PIX_FMT_YUVJ444P, AV_PIX_FMT_YUVJ440P, AV_PIX_FMT_YUVJ411P,
        ]
        return fullRange.contains { $0.rawValue == format }
    }

    /// Where the first component (luma, or red for RGB formats) of a pixel format lives.
    package struct ComponentLayout {
        /// Which plane holds it.
        package var plane: Int
        /// Bytes from one pixel's sample to the next.
        package var step: Int
        /// Bytes before the first sample.
        package var offset: Int
        /// Bits to shift a read sample right.
        package var shift: Int
        /// Significant bits.
        package var depth: Int
        /// Whether the format stores RGB rather than YUV (its first component is then not luma).
        package var isRGB: Bool
        /// Whether a sample takes two bytes, stored big-endian.
        package var isBigEndian: Bool
    }

    /// The layout of `format`'s first component, or nil for an unknown, paletted, bitstream or
    /// hardware format (those have no plane a cover can sample).
    package static func firstComponentLayout(of format: Int32) -> ComponentLayout? {
        guard let descriptor = av_pix_fmt_desc_get(AVPixelFormat(rawValue: format)) else { return nil }
        let flags = descriptor.pointee.flags
        let unusable = UInt64(AV_PIX_FMT_FLAG_PAL | AV_PIX_FMT_FLAG_BITSTREAM | AV_PIX_FMT_FLAG_HWACCEL)
        guard flags & unusable == 0, descriptor.pointee.nb_components > 0 else { return nil }
        let component = descriptor.pointee.comp.0
        return ComponentLayout(
            plane: Int(component.plane),
            step: Int(component.step),
            offset: Int(component.offset),
            shift: Int(component.shift),
            depth: Int(component.depth),
            isRGB: flags & UInt64(AV_PIX_FMT_FLAG_RGB) != 0,
            isBigEndian: flags & UInt64(AV_PIX_FMT_FLAG_BE) != 0
        )
    }

    // MARK: Orientation and colour

    /// The stream's display matrix (nine values, row-major) and its rotation as FFmpeg reports it
    /// (`av_display_rotation_get`: counterclockwise degrees in [-180, 180], NaN for a degenerate
    /// matrix), or nil when the stream has no display matrix.
    static func displayMatrix(of stream: StreamPointer) -> (matrix: [Int32], rotation: Double)? {
        var matrix = [Int32](repeating: 0, count: 9)
        guard cffmpeg_stream_display_matrix(stream, &matrix) != 0 else { return nil }
        return (matrix, cffmpeg_display_rotation(matrix))
    }

    /// How a frame's lines were captured.
    package enum FieldOrder {
        case progressive
        case topFieldFirst
        case bottomFieldFirst
    }

    static func fieldOrder(of frame: FramePointer) -> FieldOrder {
        switch cffmpeg_frame_field_order(frame) {
        case 1: .topFieldFirst
        case 2: .bottomFieldFirst
        default: .progressive
        }
    }

    /// Marks `frame` progressive.
    static func setProgressive(_ frame: FramePointer) {
        cffmpeg_frame_set_progressive(frame)
    }

    /// The peak light level (cd/m2) the frame's HDR metadata states (MaxCLL, else the mastering
    /// display's peak), nil when it states none.
    static func peakLuminance(of frame: FramePointer) -> Double? {
        let nits = cffmpeg_frame_peak_luminance(frame)
        return nits > 0 ? nits : nil
    }

    /// The dynamic range an `AVColorTransferCharacteristic` means.
    package static func dynamicRange(transfer: Int32) -> DynamicRange {
        switch transfer {
        case Int32(AVCOL_TRC_SMPTE2084.rawValue): .pq
        case Int32(AVCOL_TRC_ARIB_STD_B67.rawValue): .hlg
        default: .standard
        }
    }

    /// The colour primaries of an HDR picture, as far as tone mapping distinguishes them.
    package enum Primaries {
        case bt709
        case bt2020
        case displayP3
    }

    /// What the frame says about its colour: transfer, primaries (BT.2020 when unstated for PQ
    /// and HLG, which are defined with them).
    static func colorDescription(of frame: FramePointer) -> (range: DynamicRange, primaries: Primaries) {
        let range = dynamicRange(transfer: Int32(frame.pointee.color_trc.rawValue))
        let primaries: Primaries =
            switch frame.pointee.color_primaries {
            case AVCOL_PRI_BT709: .bt709
            case AVCOL_PRI_SMPTE432: .displayP3
            default: .bt2020
            }
        return (range, primaries)
    }

    // MARK: Scaling

    /// Description of one side of a scale: size, format and YUV range.
    package struct ScaleSide {
        package var width: Int
        package var height: Int
        package var format: Int32
        package var isFullRange: Bool
        /// `AVColorSpace` of YUV values (ignored for RGB); unspecified values get FFmpeg's
        /// default (BT.601), as the `ffmpeg` command does.
        package var colorSpace: Int32 = Int32(AVCOL_SPC_UNSPECIFIED.rawValue)
    }

    /// A bilinear scaler from `source` to `destination` that converts YUV with the source's
    /// matrix and range. Free it with ``freeScaler(_:)``.
    package static func makeScaler(from source: ScaleSide, to destination: ScaleSide) throws(FFmpegError)
        -> ScalerPointer
    {
        prepare()
        guard
            let scaler = sws_getContext(
                Int32(source.width), Int32(source.height), AVPixelFormat(rawValue: source.format),
                Int32(destination.width), Int32(destination.height), AVPixelFormat(rawValue: destination.format),
                SWS_BILINEAR, nil, nil, nil
            )
        else { throw .invalidArgument }
        _ = sws_setColorspaceDetails(
            scaler,
            sws_getCoefficients(coefficientsIndex(source.colorSpace)),
            source.isFullRange ? 1 : 0,
            sws_getCoefficients(coefficientsIndex(destination.colorSpace)),
            destination.isFullRange ? 1 : 0,
            0, 1 << 16, 1 << 16
        )
        return scaler
    }

    /// swscale's coefficient table for an `AVColorSpace` (the values it knows coincide with
    /// `SWS_CS_*`); FFmpeg's default for unspecified or unknown matrices.
    private static func coefficientsIndex(_ colorSpace: Int32) -> Int32 {
        switch colorSpace {
        case Int32(AVCOL_SPC_BT709.rawValue), Int32(AVCOL_SPC_FCC.rawValue), Int32(AVCOL_SPC_BT470BG.rawValue),
            Int32(AVCOL_SPC_SMPTE170M.rawValue), Int32(AVCOL_SPC_SMPTE240M.rawValue),
            Int32(AVCOL_SPC_BT2020_NCL.rawValue), Int32(AVCOL_SPC_BT2020_CL.rawValue):
            colorSpace
        default:
            SWS_CS_DEFAULT
        }
    }

    package static func freeScaler(_ scaler: ScalerPointer) {
        sws_freeContext(scaler)
    }

    /// Scales a whole picture. `sourcePlanes` and `destinationPlanes` point to four plane
    /// pointers each, the strides to four strides.
    package static func scale(
        _ scaler: ScalerPointer,
        sourcePlanes: UnsafePointer<UnsafeMutablePointer<UInt8>?>,
        sourceStrides: UnsafePointer<Int32>,
        sourceHeight: Int,
        destinationPlanes: UnsafePointer<UnsafeMutablePointer<UInt8>?>,
        destinationStrides: UnsafePointer<Int32>
    ) throws(FFmpegError) {
        let source = UnsafeRawPointer(sourcePlanes).assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
        let lines = sws_scale(
            scaler, source, sourceStrides, 0, Int32(sourceHeight), destinationPlanes, destinationStrides
        )
        guard lines > 0 else { throw .invalidArgument }
    }

    /// Gives an empty frame pixel buffers of its own for `width` x `height` pixels of `layout`,
    /// aligned and padded as FFmpeg's SIMD code expects.
    static func allocatePicture(_ frame: FramePointer, width: Int, height: Int, layout: PixelLayout) throws(FFmpegError)
    {
        av_frame_unref(frame)
        frame.pointee.format = layout.format.rawValue
        frame.pointee.width = Int32(width)
        frame.pointee.height = Int32(height)
        try check(av_frame_get_buffer(frame, 0))
    }

    /// Each plane of `format` as a turn sees it: its bytes per pixel, and how many times its sides are halved against
    /// the picture's (chroma subsampling). Nil for a format whose pixels cannot be moved one by one: paletted,
    /// bitstream or hardware formats, chroma subsampled differently across and down (4:2:2), or a plane whose
    /// components step differently (packed 4:2:2).
    package static func turnablePlanes(of format: Int32) -> [(bytesPerPixel: Int, shift: Int)]? {
        guard let descriptor = av_pix_fmt_desc_get(AVPixelFormat(rawValue: format)) else { return nil }
        let flags = descriptor.pointee.flags
        let unusable = UInt64(AV_PIX_FMT_FLAG_PAL | AV_PIX_FMT_FLAG_BITSTREAM | AV_PIX_FMT_FLAG_HWACCEL)
        let chromaShift = Int(descriptor.pointee.log2_chroma_w)
        guard flags & unusable == 0, descriptor.pointee.log2_chroma_h == chromaShift else { return nil }
        let isRGB = flags & UInt64(AV_PIX_FMT_FLAG_RGB) != 0
        let components = withUnsafeBytes(of: descriptor.pointee.comp) {
            Array($0.bindMemory(to: AVComponentDescriptor.self).prefix(Int(descriptor.pointee.nb_components)))
        }
        var planes: [(bytesPerPixel: Int, shift: Int)?] = [nil, nil, nil, nil]
        for (index, component) in components.enumerated() {
            let plane = Int(component.plane)
            let layout = (
                bytesPerPixel: Int(component.step), shift: !isRGB && (index == 1 || index == 2) ? chromaShift : 0
            )
            guard plane < planes.count, planes[plane].map({ $0 == layout }) ?? true else { return nil }
            planes[plane] = layout
        }
        let used = planes.prefix { $0 != nil }.compactMap { $0 }
        guard !used.isEmpty, planes.dropFirst(used.count).allSatisfy({ $0 == nil }) else { return nil }
        return used
    }

    /// Gives an empty frame pixel buffers of its own for a `width` x `height` picture in `model`'s pixel format,
    /// aligned and padded as FFmpeg's SIMD code expects, and `model`'s properties (times, colour description).
    static func allocatePicture(_ frame: FramePointer, like model: FramePointer, width: Int, height: Int)
        throws(FFmpegError)
    {
        av_frame_unref(frame)
        frame.pointee.format = model.pointee.format
        frame.pointee.width = Int32(width)
        frame.pointee.height = Int32(height)
        try check(av_frame_get_buffer(frame, 0))
        try check(av_frame_copy_props(frame, model))
    }

    /// Sets the frame's sample aspect ratio (nil: unknown).
    static func setSampleAspectRatio(_ ratio: Rational?, of frame: FramePointer) {
        frame.pointee.sample_aspect_ratio = AVRational(
            num: Int32(clamping: ratio?.numerator ?? 0), den: Int32(clamping: ratio?.denominator ?? 1))
    }

    // MARK: Encoding

    /// The still-image encoders Thumbnails uses.
    package enum ImageCodec {
        case png
        /// Motion JPEG (a single baseline JPEG for one frame) with a quantiser of 2 (best) ... 31.
        case mjpeg(quantizer: Int)
    }

    /// Encodes one picture held in caller-owned planes and returns the encoded bytes.
    ///
    /// A scoped use: the encoder and its frame and packet are created and freed here.
    package static func encodeImage(
        _ codec: ImageCodec,
        layout: PixelLayout,
        width: Int,
        height: Int,
        planes: [UnsafeMutablePointer<UInt8>],
        strides: [Int]
    ) throws(FFmpegError) -> [UInt8] {
        prepare()
        let codecID: AVCodecID
        switch codec {
        case .png: codecID = AV_CODEC_ID_PNG
        case .mjpeg: codecID = AV_CODEC_ID_MJPEG
        }
        guard let encoder = avcodec_find_encoder(codecID) else { throw .encoderNotFound }
        guard let context = avcodec_alloc_context3(encoder) else { throw .outOfMemory }
        defer { closeCodec(context) }
        context.pointee.width = Int32(width)
        context.pointee.height = Int32(height)
        context.pointee.pix_fmt = layout.format
        context.pointee.time_base = AVRational(num: 1, den: 25)
        context.pointee.thread_count = 1
        var quality: Int32 = 0
        if case .mjpeg(let quantizer) = codec {
            context.pointee.color_range = AVCOL_RANGE_JPEG
            context.pointee.flags |= AV_CODEC_FLAG_QSCALE
            quality = Int32(quantizer) * FF_QP2LAMBDA
            context.pointee.global_quality = quality
        }
        try capturingLog { () throws(FFmpegError) in try check(avcodec_open2(context, encoder, nil)) }

        let frame = try allocateFrame()
        defer { freeFrame(frame) }
        frame.pointee.format = layout.format.rawValue
        frame.pointee.width = Int32(width)
        frame.pointee.height = Int32(height)
        frame.pointee.pts = 0
        if quality > 0 {
            frame.pointee.quality = quality
            frame.pointee.color_range = AVCOL_RANGE_JPEG
        }
        for (index, plane) in planes.enumerated() {
            cffmpeg_frame_set_plane(frame, Int32(index), plane, Int32(strides[index]))
        }
        let packet = try allocatePacket()
        defer { freePacket(packet) }
        return try capturingLog { () throws(FFmpegError) -> [UInt8] in
            try check(avcodec_send_frame(context, frame))
            try check(avcodec_send_frame(context, nil))
            try check(avcodec_receive_packet(context, packet))
            defer { av_packet_unref(packet) }
            guard let data = packet.pointee.data, packet.pointee.size > 0 else { throw .invalidData }
            return Array(UnsafeBufferPointer(start: data, count: Int(packet.pointee.size)))
        }
    }
}

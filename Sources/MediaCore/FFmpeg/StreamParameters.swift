internal import CFFmpeg

/// What a container and a stream probe say about one stream, copied out of FFmpeg's structs
/// into Swift values (so it outlives the ``FormatContext`` it came from).
package struct StreamParameters: Sendable, Hashable {
    /// Position of the stream in the container.
    package var index: Int
    /// FFmpeg's name for the stream's media type: "video", "audio", "subtitle", "data", ...
    package var mediaType: String
    /// Whether this is a video stream (including an attached cover picture).
    package var isVideo: Bool
    /// Whether this "video" stream is a single picture attached to the file (cover art).
    package var isAttachedPicture: Bool
    /// FFmpeg's short codec name ("h264").
    package var codecName: String
    /// Whether this FFmpeg build can decode the stream.
    package var hasDecoder: Bool
    /// Whether FFmpeg knows the codec (``codecName`` is not "none"): a container naming a codec FFmpeg has never
    /// heard of, or a damaged header, leaves it unknown.
    package var codecIsIdentified: Bool
    /// The container's four-character code for the codec (`avc1`, `hvc1`, `XVID`) when it is four printable ASCII
    /// characters; nil when there is none or its bytes are not text (a damaged header).
    package var codecTag: String?
    /// Frame width and height in stored pixels; zero when unknown.
    package var width: Int
    package var height: Int
    /// Sample (pixel) aspect ratio; nil when the stream does not say (FFmpeg's 0/1). The
    /// container's value wins over the codec's, as `av_guess_sample_aspect_ratio` decides (a
    /// Matroska display size over the H.264 bitstream's own ratio).
    package var sampleAspectRatio: Rational?
    /// Pixel format name and bit depth, when known.
    package var pixelFormatName: String?
    package var bitsPerComponent: Int?
    /// Average frame rate, else the base rate FFmpeg guessed; nil when neither is known.
    package var frameRate: Rational?
    /// Display-matrix rotation as FFmpeg reports it: counterclockwise degrees in [-180, 180].
    package var displayRotation: Double?
    /// How frames are turned (and mirrored) upright, from the whole display matrix.
    package var orientation: Orientation
    /// The transfer characteristic the stream declares.
    package var dynamicRange: DynamicRange

    init(_ stream: FFmpeg.StreamPointer) {
        let parameters = stream.pointee.codecpar.pointee
        index = Int(stream.pointee.index)
        mediaType = FFmpeg.mediaTypeName(parameters.codec_type)
        isVideo = parameters.codec_type == AVMEDIA_TYPE_VIDEO
        isAttachedPicture = stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0
        codecName = FFmpeg.codecName(parameters.codec_id)
        codecIsIdentified = parameters.codec_id != AV_CODEC_ID_NONE
        let tag = parameters.codec_tag
        let tagBytes = (0..<4).map { UInt8(truncatingIfNeeded: tag >> (8 * $0)) }
        codecTag =
            tagBytes.allSatisfy { (0x21...0x7E).contains($0) || $0 == 0x20 } && tagBytes.contains { $0 != 0x20 }
            ? String(decoding: tagBytes, as: UTF8.self) : nil
        hasDecoder = FFmpeg.hasDecoder(for: parameters.codec_id)
        width = Int(parameters.width)
        height = Int(parameters.height)
        sampleAspectRatio =
            Rational(validating: stream.pointee.sample_aspect_ratio)
            ?? Rational(validating: parameters.sample_aspect_ratio)
        let format = FFmpeg.pixelFormat(parameters.format)
        pixelFormatName = isVideo ? format?.name : nil
        bitsPerComponent = isVideo ? format?.bitsPerComponent : nil
        frameRate =
            isAttachedPicture
            ? nil
            : Rational(validating: stream.pointee.avg_frame_rate) ?? Rational(validating: stream.pointee.r_frame_rate)
        let display = FFmpeg.displayMatrix(of: stream)
        displayRotation = display.flatMap { $0.rotation.isNaN ? nil : $0.rotation }
        orientation = Orientation(displayMatrix: display?.matrix, rotation: displayRotation)
        dynamicRange = FFmpeg.dynamicRange(transfer: Int32(parameters.color_trc.rawValue))
    }
}

extension Rational {
    /// Copies an FFmpeg rational as it is.
    init(_ rational: AVRational) {
        self.init(numerator: Int(rational.num), denominator: Int(rational.den))
    }

    /// Copies an FFmpeg rational that means something: positive numerator and denominator
    /// (FFmpeg writes 0/1 or 0/0 for "unknown").
    init?(validating rational: AVRational) {
        guard rational.num > 0, rational.den > 0 else { return nil }
        self.init(rational)
    }
}

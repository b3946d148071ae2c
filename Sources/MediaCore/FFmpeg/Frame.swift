internal import CFFmpeg

/// One decoded picture; frees its `AVFrame` (and the references it holds) in `deinit`.
///
/// Deliberately not `Sendable`: decoded pixels stay inside the cover job that decoded them; what
/// leaves it is a ``CoverImage``, copied into Swift memory.
package final class Frame {
    let pointer: FFmpeg.FramePointer
    private let lifetime = OwnerLifetime(of: Frame.self)

    package init() throws(FFmpegError) {
        pointer = try FFmpeg.allocateFrame()
    }

    deinit {
        FFmpeg.freeFrame(pointer)
    }

    /// Drops the pictures this frame references.
    package func clear() {
        FFmpeg.clearFrame(pointer)
    }

    /// Whether the frame holds a picture.
    package var hasPicture: Bool {
        pointer.pointee.width > 0 && pointer.pointee.height > 0 && pointer.pointee.format >= 0
    }
    package var width: Int { Int(pointer.pointee.width) }
    package var height: Int { Int(pointer.pointee.height) }
    /// FFmpeg's pixel format number (`AVPixelFormat`).
    package var pixelFormat: Int32 { pointer.pointee.format }
    /// The best timestamp FFmpeg could determine, in the stream's time base; nil when none.
    package var timestamp: Int64? {
        let value = pointer.pointee.best_effort_timestamp
        return value == FFmpeg.noTimestamp ? nil : value
    }
    /// The duration in the stream's time base, nil when unknown.
    package var duration: Int64? {
        let value = FFmpeg.duration(of: pointer)
        return value > 0 ? value : nil
    }
    /// The pixel aspect ratio the decoder found in the bitstream, if any.
    package var sampleAspectRatio: Rational? { Rational(validating: pointer.pointee.sample_aspect_ratio) }
    /// Whether the decoder flagged it as damaged.
    package var isDamaged: Bool { FFmpeg.isDamaged(pointer) }
    /// Whether it is a keyframe.
    package var isKeyframe: Bool { FFmpeg.isKeyframe(pointer) }
    /// Whether its YUV values use the full 0-255 range (JPEG range) rather than 16-235.
    package var isFullRange: Bool {
        if pointer.pointee.color_range == AVCOL_RANGE_JPEG { return true }
        return FFmpeg.isFullRangeFormat(pointer.pointee.format)
    }
    /// The YUV matrix the frame declares (`AVColorSpace` number).
    package var colorSpace: Int32 { Int32(pointer.pointee.colorspace.rawValue) }
}

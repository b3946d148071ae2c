internal import CFFmpeg

extension Frame {
    /// A frame with its own `width` x `height` 8-bit 4:2:0 picture (limited range, BT.709), uninitialized.
    package static func yuv420(width: Int, height: Int) throws(FFmpegError) -> Frame {
        let frame = try Frame()
        try FFmpeg.allocateYUV420Picture(frame.pointer, width: width, height: height)
        return frame
    }

    /// A frame with its own packed RGB picture (3 bytes a pixel), uninitialized.
    package static func rgb(width: Int, height: Int) throws(FFmpegError) -> Frame {
        let frame = try Frame()
        try FFmpeg.allocateRGBPicture(frame.pointer, width: width, height: height)
        return frame
    }

    /// A frame with its own buffers for `samples` samples of `channels` planar float channels at `sampleRate`.
    package static func planarFloatAudio(samples: Int, channels: Int, sampleRate: Int) throws(FFmpegError) -> Frame {
        let frame = try Frame()
        try FFmpeg.allocateAudio(frame.pointer, samples: samples, channels: channels, sampleRate: sampleRate)
        return frame
    }

    /// Makes the frame's buffers its own before it is written again (an encoder may still reference them).
    package func makeWritable() throws(FFmpegError) {
        try FFmpeg.makeWritable(pointer)
    }

    /// Plane `index`'s first byte and its stride in bytes (nil for a plane the frame does not have).
    package func plane(_ index: Int) -> (base: UnsafeMutablePointer<UInt8>, stride: Int)? {
        let (planes, strides) = FFmpeg.planes(of: pointer)
        guard let base = planes[index] else { return nil }
        return (base, Int(strides[index]))
    }

    /// The presentation time, in the time base of whoever reads it (an encoder's, for a frame to encode).
    package var presentationTimestamp: Int64 {
        get { pointer.pointee.pts }
        set { pointer.pointee.pts = newValue }
    }

    /// The number of audio samples per channel (0 for a picture).
    package var sampleCount: Int { FFmpeg.sampleCount(of: pointer) }

    /// The number of audio channels (0 for a picture).
    package var channelCount: Int { FFmpeg.channelCount(of: pointer) }

    /// Whether this frame's picture needs the cover rules beyond a plain scale: an interlaced frame, or an HDR
    /// (PQ or HLG) one, or a take shown turned or mirrored. A plain frame can be scaled straight to its tile.
    package func needsPictureRules(orientation: Orientation) -> Bool {
        !orientation.isUpright || FrameConverter.firstField(of: self) != nil
            || FFmpeg.colorDescription(of: pointer).range != .standard
    }
}

extension Packet {
    /// The packet's presentation time (for an encoded packet, in its encoder's time base), settable.
    package var timestamp: Int64 {
        get { pointer.pointee.pts }
        set { pointer.pointee.pts = newValue }
    }

    /// Sets how long the packet is shown, in its encoder's time base (libx264 leaves it 0, and an MP4 muxer then
    /// gives the last picture no time at all, so players drop it).
    package func setDuration(_ duration: Int64) {
        pointer.pointee.duration = duration
    }
}

extension FFmpeg.ScaleSide {
    /// The 8-bit 4:2:0 BT.709 limited-range side of a scaler: what composition writes.
    package static func yuv420(width: Int, height: Int) -> FFmpeg.ScaleSide {
        FFmpeg.ScaleSide(
            width: width, height: height, format: AV_PIX_FMT_YUV420P.rawValue, isFullRange: false,
            colorSpace: Int32(AVCOL_SPC_BT709.rawValue))
    }

    /// The packed RGB side of a scaler (full range).
    package static func rgb(width: Int, height: Int) -> FFmpeg.ScaleSide {
        FFmpeg.ScaleSide(width: width, height: height, format: AV_PIX_FMT_RGB24.rawValue, isFullRange: true)
    }

    /// The side of a scaler reading `frame` for composition (its format, range and matrix). A frame whose matrix is
    /// not stated is taken as BT.709, the output's, so its values pass unchanged (as the ffmpeg command passes them
    /// into an H.264 stream); a stated other matrix (BT.601, BT.2020) is converted.
    package static func source(_ frame: Frame) -> FFmpeg.ScaleSide {
        FFmpeg.ScaleSide(
            width: frame.width, height: frame.height, format: frame.pixelFormat, isFullRange: frame.isFullRange,
            colorSpace: UntaggedMatrix.bt709.colorSpace(of: frame))
    }
}

/// The YUV matrix a frame whose matrix is not stated is read with: FFmpeg's default, BT.601, for a cover (as the
/// `ffmpeg` command converts such a frame to RGB), or BT.709, the output's, for a composition's tile (so an untagged
/// take's values pass unchanged whether or not it must be turned first).
package enum UntaggedMatrix: Sendable {
    case bt601
    case bt709

    /// The `AVColorSpace` a scaler reads `frame` with: its own when stated, else this one.
    func colorSpace(of frame: Frame) -> Int32 {
        guard frame.colorSpace == Int32(AVCOL_SPC_UNSPECIFIED.rawValue) else { return frame.colorSpace }
        return self == .bt709 ? Int32(AVCOL_SPC_BT709.rawValue) : frame.colorSpace
    }
}

/// What an H.264 stream keeps to on top of its quality settings: the level it declares (and stays within), a
/// closed GOP of a fixed length, the number of consecutive B-frames, and a bit-rate cap kept by the encoder's video
/// buffering verifier (VBV).
///
/// libx264 keeps the VBV by raising the quantizer where the constant rate factor would overflow the buffer, so the
/// quality setting applies everywhere the cap allows it.
package struct H264Constraints: Sendable, Hashable {
    /// The level, as `level_idc` (10 times the level: 40 is level 4.0, 42 is 4.2).
    package var level: Int
    /// Frames from one IDR frame to the next: every GOP is closed, exactly this long (the last may be shorter),
    /// with no keyframe added at scene cuts.
    package var keyframeInterval: Int
    /// The most B-frames in a row.
    package var bFrames: Int
    /// The VBV's maximum rate, in bits per second.
    package var maximumBitRate: Int
    /// The VBV's buffer, in bits.
    package var bufferSize: Int

    /// Constraints with these values; see the properties.
    package init(level: Int, keyframeInterval: Int, bFrames: Int, maximumBitRate: Int, bufferSize: Int) {
        self.level = level
        self.keyframeInterval = keyframeInterval
        self.bFrames = bFrames
        self.maximumBitRate = maximumBitRate
        self.bufferSize = bufferSize
    }
}

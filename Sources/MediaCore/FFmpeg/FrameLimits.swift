/// The largest frame any input may have, checked from the stream parameters before a decoder opens, and enforced by
/// every decoder too (FFmpeg's `max_pixels`: a frame the bitstream declares larger than its header said is refused
/// before its buffers are allocated).
///
/// A header can claim any size: a 750 KB H.264 stream may declare 16000x16000, whose decoding would take hundreds of
/// megabytes per frame. The limits admit 8K UHD (7680x4320, 33,177,600 pixels) and DCI 4K in any orientation.
package enum FrameLimits {
    /// The longest side a frame may have, in pixels.
    package static let maximumSide = 16_384
    /// The most pixels a frame may have: 32 Mi (33,554,432), what 8K UHD fits in.
    package static let maximumPixels = 32 << 20

    /// Nil when a `width` x `height` frame is within the limits; else the one-clause reason it is refused, stating the
    /// limits ("a 16000x16000 h264 stream (256000000 pixels a frame): refused, a frame may have at most 33554432
    /// pixels and 16384 a side").
    package static func refusal(width: Int, height: Int, codec: String) -> String? {
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard overflow || width > maximumSide || height > maximumSide || pixels > maximumPixels else { return nil }
        let count = overflow ? "more than \(Int.max)" : String(pixels)
        return "a \(width)x\(height) \(codec) stream (\(count) pixels a frame): refused, a frame may have at most "
            + "\(maximumPixels) pixels and \(maximumSide) a side"
    }
}

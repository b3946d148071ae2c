/// What FFmpeg's interrupt callback (`AVIOInterruptCB`) asks during blocking reads: opening a
/// file, probing its streams, reading a packet. When ``isRequested`` says yes, FFmpeg gives up
/// with `AVERROR_EXIT`, so a cancelled cover stops even inside a long read, not only between
/// packets.
///
/// Deliberately not `Sendable`: FFmpeg calls it on the thread of the job that owns the input.
package final class Interruption {
    package let isRequested: () -> Bool

    package init(isRequested: @escaping () -> Bool) {
        self.isRequested = isRequested
    }
}

/// The interrupt callback; `opaque` is an unretained ``Interruption``. Nonzero stops FFmpeg.
package func askInterruption(_ opaque: UnsafeMutableRawPointer?) -> Int32 {
    guard let opaque else { return 0 }
    return Unmanaged<Interruption>.fromOpaque(opaque).takeUnretainedValue().isRequested() ? 1 : 0
}

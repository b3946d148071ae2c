/// A libswscale context for one conversion; frees it in `deinit`.
///
/// Deliberately not `Sendable`: an `SwsContext` keeps scratch buffers and must not be shared.
final class Scaler {
    private let pointer: FFmpeg.ScalerPointer
    private let tracker = LifetimeTracker.current

    init(from source: FFmpeg.ScaleSide, to destination: FFmpeg.ScaleSide) throws(FFmpegError) {
        pointer = try FFmpeg.makeScaler(from: source, to: destination)
        tracker?.created(self)
    }

    deinit {
        FFmpeg.freeScaler(pointer)
        tracker?.freed(self)
    }

    /// Scales and converts the whole of `source` into `destination` (which has its buffers).
    func scale(_ source: Frame, into destination: Frame) throws(FFmpegError) {
        let (sourcePlanes, sourceStrides) = FFmpeg.planes(of: source.pointer)
        let (destinationPlanes, destinationStrides) = FFmpeg.planes(of: destination.pointer)
        try FFmpeg.scale(
            pointer,
            sourcePlanes: sourcePlanes, sourceStrides: sourceStrides, sourceHeight: source.height,
            destinationPlanes: destinationPlanes, destinationStrides: destinationStrides
        )
    }
}

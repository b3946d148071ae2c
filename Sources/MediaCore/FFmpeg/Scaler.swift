/// A libswscale context for one conversion; frees it in `deinit`.
///
/// Deliberately not `Sendable`: an `SwsContext` keeps scratch buffers and must not be shared.
package final class Scaler {
    private let pointer: FFmpeg.ScalerPointer
    private let lifetime = OwnerLifetime(of: Scaler.self)

    package init(from source: FFmpeg.ScaleSide, to destination: FFmpeg.ScaleSide) throws(FFmpegError) {
        pointer = try FFmpeg.makeScaler(from: source, to: destination)
    }

    deinit {
        FFmpeg.freeScaler(pointer)
    }

    /// Scales and converts the whole of `source` into `destination` (which has its buffers).
    package func scale(_ source: Frame, into destination: Frame) throws(FFmpegError) {
        let (sourcePlanes, sourceStrides) = FFmpeg.planes(of: source.pointer)
        let (destinationPlanes, destinationStrides) = FFmpeg.planes(of: destination.pointer)
        try FFmpeg.scale(
            pointer,
            sourcePlanes: sourcePlanes, sourceStrides: sourceStrides, sourceHeight: source.height,
            destinationPlanes: destinationPlanes, destinationStrides: destinationStrides
        )
    }

    /// Scales one field of an interlaced `source` (its even lines for `.top`, its odd lines for
    /// `.bottom`) into `destination`: the scaler must have been made for a source
    /// ``Field/height(ofFrameHeight:)`` lines high. Every plane is read with twice its stride,
    /// which works for any chroma subsampling since interlaced chroma lines alternate fields too.
    package func scale(field: Field, of source: Frame, into destination: Frame) throws(FFmpegError) {
        let (sourcePlanes, sourceStrides) = FFmpeg.planes(of: source.pointer)
        let (destinationPlanes, destinationStrides) = FFmpeg.planes(of: destination.pointer)
        var planes = [UnsafeMutablePointer<UInt8>?](repeating: nil, count: 8)
        var strides = [Int32](repeating: 0, count: 8)
        for index in 0..<4 {
            let stride = sourceStrides[index]
            planes[index] = field == .bottom ? sourcePlanes[index].map { $0 + Int(stride) } : sourcePlanes[index]
            strides[index] = stride * 2
        }
        try FFmpeg.scale(
            pointer,
            sourcePlanes: planes, sourceStrides: strides, sourceHeight: field.height(ofFrameHeight: source.height),
            destinationPlanes: destinationPlanes, destinationStrides: destinationStrides
        )
    }

    /// One field of an interlaced frame.
    package enum Field {
        case top
        case bottom

        /// Lines of this field in a frame `frameHeight` lines high.
        package func height(ofFrameHeight frameHeight: Int) -> Int {
            self == .top ? (frameHeight + 1) / 2 : frameHeight / 2
        }
    }
}

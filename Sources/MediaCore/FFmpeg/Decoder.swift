/// A video decoder for one stream; frees its `AVCodecContext` in `deinit`.
///
/// Deliberately not `Sendable`: one cover job feeds it packets and takes its frames.
package final class Decoder {
    private let pointer: FFmpeg.CodecContextPointer
    /// The threads it was opened with (1, or 0 for as many as FFmpeg sees cores).
    package let threadCount: Int
    private let lifetime = OwnerLifetime(of: Decoder.self)

    /// Opens a decoder for stream `index` of `format`.
    package init(format: FormatContext, streamIndex index: Int, threadCount: Int) throws(FFmpegError) {
        pointer = try FFmpeg.openDecoder(for: format.streamPointer(at: index), threadCount: threadCount)
        self.threadCount = threadCount
    }

    deinit {
        FFmpeg.closeCodec(pointer)
    }

    /// Sends a packet, or nil to drain.
    @discardableResult
    package func send(_ packet: Packet?) throws(FFmpegError) -> FFmpeg.CodecStatus {
        try FFmpeg.sendPacket(packet?.pointer, to: pointer)
    }

    /// Takes the next frame into `frame` (`.done`), or says why there is none.
    package func receive(into frame: Frame) throws(FFmpegError) -> FFmpeg.CodecStatus {
        try FFmpeg.receiveFrame(from: pointer, into: frame.pointer)
    }

    /// Drops buffered frames and ends a drain.
    package func flush() {
        FFmpeg.flushDecoder(pointer)
    }
}

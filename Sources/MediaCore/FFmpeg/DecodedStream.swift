/// One stream of an opened input read as decoded frames: the stream's packets fed to its decoder, the other streams'
/// skipped, the decoder drained at the end of the file. FFmpeg's interruption (the input's ``Interruption``) ends a
/// read with ``FFmpegError/exit``, thrown like any other failure.
///
/// Deliberately not `Sendable`: the decoder and the input are used on the thread of the job that owns them.
package final class DecodedStream {
    private let format: FormatContext
    private let decoder: Decoder
    private let streamIndex: Int
    private let packet: Packet
    /// Whether the decoder has given its last frame.
    package private(set) var isFinished = false

    /// Reads stream `streamIndex` of `format` with `decoder` (opened for that stream).
    package init(format: FormatContext, decoder: Decoder, streamIndex: Int) throws(FFmpegError) {
        self.format = format
        self.decoder = decoder
        self.streamIndex = streamIndex
        packet = try Packet()
    }

    /// Decodes the next frame into `frame`: true, or false once the stream has no frame left (and from then on).
    package func next(into frame: Frame) throws(FFmpegError) -> Bool {
        while !isFinished {
            switch try decoder.receive(into: frame) {
            case .done: return true
            case .endOfFile: isFinished = true
            case .tryAgain: try feed()
            }
        }
        return false
    }

    /// Sends the decoder the next packet of the stream, or starts draining it at the end of the file.
    private func feed() throws(FFmpegError) {
        while true {
            packet.clear()
            switch format.readPacket(into: packet) {
            case .packet:
                guard packet.streamIndex == streamIndex else { continue }
                _ = try decoder.send(packet)
                return
            case .endOfFile:
                _ = try decoder.send(nil)
                return
            case .failed(let error):
                throw error
            }
        }
    }
}

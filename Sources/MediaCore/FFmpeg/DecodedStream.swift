/// Where a ``DecodedStream`` gets its packets, and what the decoder's failures mean to its reader.
///
/// ``StreamPackets`` reads one stream of an input in order and lets any failure end the read; a cover's reader feeds
/// the packets it chose (after a seek, or one keyframe alone) and counts failures as warnings instead.
package protocol PacketFeed {
    /// What a read throws.
    associatedtype Failure: Error

    /// The next packet for the decoder, or nil at the end of the stream (the decoder is then drained). The packet is
    /// the feed's: it stays valid until the next call.
    func nextPacket() throws(Failure) -> Packet?

    /// The decoder refused a packet, or failed to give a frame; `inARow` counts the failures to give a frame since the
    /// last frame it gave (1 for a refused packet). Throws to end the read; returns to go on with the next packet or
    /// frame.
    func decoderFailed(_ error: FFmpegError, inARow: Int) throws(Failure)

    /// Whether a decoded frame is returned; false skips it (a frame the decoder flags as damaged, say).
    func accepts(_ frame: Frame) -> Bool
}

/// The one decode loop: packets from a ``PacketFeed`` fed to a decoder as it asks for them, the decoder drained once
/// the feed has no packet left, its frames returned one by one. Covers (their reader is the feed) and both
/// composition tracks (through ``DecodedStream``) read frames through it. FFmpeg's interruption (the input's
/// ``Interruption``) stops the feed's read: the feed says what it means.
///
/// Deliberately not `Sendable`: the decoder is used on the thread of the job that owns it.
package final class DecodeLoop {
    private let decoder: Decoder
    private var isDraining = false
    /// Whether the decoder has given its last frame (until ``restart()``).
    package private(set) var isFinished = false

    /// Reads frames from `decoder`, which takes packets from whatever feed each read names.
    package init(decoder: Decoder) {
        self.decoder = decoder
    }

    /// Decodes the next frame into `frame`, taking packets from `feed` as the decoder needs them: true, or false once
    /// the stream has no frame left (and from then on, until ``restart()``).
    package func next<Feed: PacketFeed>(into frame: Frame, from feed: Feed) throws(Feed.Failure) -> Bool {
        var failures = 0
        while !isFinished {
            let status: FFmpeg.CodecStatus
            do {
                status = try decoder.receive(into: frame)
                failures = 0
            } catch {
                failures += 1
                try feed.decoderFailed(error, inARow: failures)
                continue
            }
            switch status {
            case .done:
                if feed.accepts(frame) { return true }
                frame.clear()
            case .endOfFile:
                isFinished = true
            case .tryAgain where isDraining:
                isFinished = true
            case .tryAgain:
                if let packet = try feed.nextPacket() {
                    try send(packet, from: feed)
                } else {
                    try drain(from: feed)
                }
            }
        }
        return false
    }

    /// Sends `packet` to the decoder out of turn (the reader chose it); a refusal goes to `feed`. True when the
    /// decoder took it.
    @discardableResult
    package func send<Feed: PacketFeed>(_ packet: Packet, from feed: Feed) throws(Feed.Failure) -> Bool {
        do {
            try decoder.send(packet)
            return true
        } catch {
            try feed.decoderFailed(error, inARow: 1)
            return false
        }
    }

    /// Decodes `packet` on its own: the decoder is restarted, takes it and is drained, so ``next(into:from:)`` gives
    /// the frames of that packet alone, whatever the stream's reordering delay. False (nothing to read) when the
    /// decoder refused it.
    package func decodeAlone<Feed: PacketFeed>(_ packet: Packet, from feed: Feed) throws(Feed.Failure) -> Bool {
        restart()
        guard try send(packet, from: feed) else { return false }
        try drain(from: feed)
        return true
    }

    /// Drops the frames the decoder holds and ends a drain, so it takes packets afresh: after a seek, or after a
    /// packet decoded alone.
    package func restart() {
        decoder.flush()
        isDraining = false
        isFinished = false
    }

    /// Tells the decoder no packet follows, so it gives the frames it still holds.
    private func drain<Feed: PacketFeed>(from feed: Feed) throws(Feed.Failure) {
        isDraining = true
        do {
            try decoder.send(nil)
        } catch {
            try feed.decoderFailed(error, inARow: 1)
        }
    }
}

/// The packets of one stream of an opened input, in the order of the file, as a ``DecodeLoop``'s feed: the other
/// streams' packets are skipped, and a failure to read or decode ends the read with its ``FFmpegError`` (FFmpeg's
/// interruption with ``FFmpegError/exit``).
///
/// Deliberately not `Sendable`: the input is used on the thread of the job that owns it.
package final class StreamPackets: PacketFeed {
    private let format: FormatContext
    private let streamIndex: Int
    private let packet: Packet

    /// Reads stream `streamIndex` of `format`.
    package init(format: FormatContext, streamIndex: Int) throws(FFmpegError) {
        self.format = format
        self.streamIndex = streamIndex
        packet = try Packet()
    }

    package func nextPacket() throws(FFmpegError) -> Packet? {
        while true {
            packet.clear()
            switch format.readPacket(into: packet) {
            case .packet:
                guard packet.streamIndex == streamIndex else { continue }
                return packet
            case .endOfFile:
                return nil
            case .failed(let error):
                throw error
            }
        }
    }

    package func decoderFailed(_ error: FFmpegError, inARow: Int) throws(FFmpegError) {
        throw error
    }

    package func accepts(_ frame: Frame) -> Bool { true }
}

/// One stream of an opened input read as decoded frames, in order: its packets (``StreamPackets``) fed to its decoder
/// by the ``DecodeLoop``, the decoder drained at the end of the file. FFmpeg's interruption (the input's
/// ``Interruption``) ends a read with ``FFmpegError/exit``, thrown like any other failure.
///
/// Deliberately not `Sendable`: the decoder and the input are used on the thread of the job that owns them.
package final class DecodedStream {
    private let loop: DecodeLoop
    private let packets: StreamPackets

    /// Whether the decoder has given its last frame.
    package var isFinished: Bool { loop.isFinished }

    /// Reads stream `streamIndex` of `format` with `decoder` (opened for that stream).
    package init(format: FormatContext, decoder: Decoder, streamIndex: Int) throws(FFmpegError) {
        loop = DecodeLoop(decoder: decoder)
        packets = try StreamPackets(format: format, streamIndex: streamIndex)
    }

    /// Decodes the next frame into `frame`: true, or false once the stream has no frame left (and from then on).
    package func next(into frame: Frame) throws(FFmpegError) -> Bool {
        try loop.next(into: frame, from: packets)
    }
}

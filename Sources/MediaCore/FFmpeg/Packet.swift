internal import CFFmpeg

/// One compressed packet buffer, reused for every read; frees its `AVPacket` in `deinit`.
///
/// Deliberately not `Sendable`: it belongs to the one cover job that reads into it.
package final class Packet {
    let pointer: FFmpeg.PacketPointer
    private let lifetime = OwnerLifetime(of: Packet.self)

    package init() throws(FFmpegError) {
        pointer = try FFmpeg.allocatePacket()
    }

    deinit {
        FFmpeg.freePacket(pointer)
    }

    /// Drops the data the packet references, ready for the next read.
    package func clear() {
        FFmpeg.clearPacket(pointer)
    }

    /// Makes this packet another reference to `other`'s data.
    package func copy(from other: Packet) throws(FFmpegError) {
        try FFmpeg.copyPacket(other.pointer, to: pointer)
    }

    /// The container's index of the stream this packet belongs to.
    package var streamIndex: Int { Int(pointer.pointee.stream_index) }
    /// The demuxer marked it as the start of a keyframe.
    package var isKeyframe: Bool { pointer.pointee.flags & AV_PKT_FLAG_KEY != 0 }
    /// The demuxer marked it as damaged (for instance cut short by the end of the file).
    package var isCorrupt: Bool { pointer.pointee.flags & AV_PKT_FLAG_CORRUPT != 0 }
    /// Whether the packet holds data (after a read, before ``clear()``).
    package var hasData: Bool { pointer.pointee.size > 0 }
    /// When the packet's picture is shown, in its stream's time base; nil when the container does
    /// not say (AVI's reference frames, raw elementary streams).
    package var presentationTimestamp: Int64? {
        let value = pointer.pointee.pts
        return value == FFmpeg.noTimestamp ? nil : value
    }
    /// How long the packet's picture is shown, in its stream's time base; nil when the container
    /// does not say.
    package var duration: Int64? {
        let value = pointer.pointee.duration
        return value > 0 ? value : nil
    }
    /// The packet's byte position in the input; nil when the demuxer does not say. Stable across
    /// seeks, unlike the timestamps an MPEG-PS demuxer guesses for packets that carry none.
    package var position: Int64? {
        let value = pointer.pointee.pos
        return value >= 0 ? value : nil
    }
    /// When the packet is decoded, in its stream's time base; nil when the container does not say.
    package var decodeTimestamp: Int64? {
        let value = pointer.pointee.dts
        return value == FFmpeg.noTimestamp ? nil : value
    }
}

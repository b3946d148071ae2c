internal import CFFmpeg

/// Packets, frames, decoders and seeking: the C calls a cover's decode loop makes.
extension FFmpeg {
    /// A compressed packet: `AVPacket *`, owned by a ``Packet``.
    typealias PacketPointer = UnsafeMutablePointer<AVPacket>
    /// A decoded picture: `AVFrame *`, owned by a ``Frame``.
    typealias FramePointer = UnsafeMutablePointer<AVFrame>
    /// A decoder or encoder: `AVCodecContext *`, owned by a ``Decoder`` (or a scoped encode).
    typealias CodecContextPointer = UnsafeMutablePointer<AVCodecContext>

    /// What a send or receive call on a codec said, for the outcomes that are not failures.
    package enum CodecStatus: Equatable {
        /// The packet was taken, or a frame was returned.
        case done
        /// `AVERROR(EAGAIN)`: feed more input (receive), or take output first (send).
        case tryAgain
        /// `AVERROR_EOF`: the codec is fully drained (receive), or already draining (send).
        case endOfFile
    }

    /// Maps a send/receive return code: EAGAIN and EOF are states, other negatives are errors.
    private static func codecStatus(_ code: Int32) throws(FFmpegError) -> CodecStatus {
        if code >= 0 { return .done }
        if code == FFmpegError.tryAgain.code { return .tryAgain }
        if code == FFmpegError.endOfFile.code { return .endOfFile }
        throw FFmpegError(code: code)
    }

    // MARK: Packets

    /// A new, empty packet. Free it with ``freePacket(_:)``.
    static func allocatePacket() throws(FFmpegError) -> PacketPointer {
        guard let packet = av_packet_alloc() else { throw .outOfMemory }
        return packet
    }

    static func freePacket(_ packet: PacketPointer) {
        var packet: PacketPointer? = packet
        av_packet_free(&packet)
    }

    /// Drops the packet's data reference and resets its fields (the packet stays allocated).
    static func clearPacket(_ packet: PacketPointer) {
        av_packet_unref(packet)
    }

    /// Makes `destination` (cleared first) a new reference to `source`'s data.
    static func copyPacket(_ source: PacketPointer, to destination: PacketPointer) throws(FFmpegError) {
        av_packet_unref(destination)
        try check(av_packet_ref(destination, source))
    }

    /// The outcome of reading one packet.
    package enum ReadResult {
        /// The packet holds the next packet of some stream.
        case packet
        /// The input is exhausted.
        case endOfFile
        /// Reading failed; what was read before stays valid.
        case failed(FFmpegError)
    }

    /// Reads the next packet of any stream into `packet` (which must be cleared).
    static func readPacket(_ context: FormatContextPointer, into packet: PacketPointer) -> ReadResult {
        let code = av_read_frame(context, packet)
        if code >= 0 { return .packet }
        if code == FFmpegError.endOfFile.code { return .endOfFile }
        return .failed(FFmpegError(code: code))
    }

    // MARK: Frames

    /// A new, empty frame. Free it with ``freeFrame(_:)``.
    static func allocateFrame() throws(FFmpegError) -> FramePointer {
        guard let frame = av_frame_alloc() else { throw .outOfMemory }
        return frame
    }

    static func freeFrame(_ frame: FramePointer) {
        var frame: FramePointer? = frame
        av_frame_free(&frame)
    }

    /// Drops the frame's data references and resets its fields.
    static func clearFrame(_ frame: FramePointer) {
        av_frame_unref(frame)
    }

    /// The frame's plane pointers and strides (`AVFrame.data` and `linesize`, which Swift sees
    /// as tuples).
    static func planes(of frame: FramePointer) -> (
        data: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, strides: UnsafeMutablePointer<Int32>
    ) {
        (cffmpeg_frame_planes(frame), cffmpeg_frame_strides(frame))
    }

    /// The frame's duration in its stream's time base; 0 when unknown.
    static func duration(of frame: FramePointer) -> Int64 {
        cffmpeg_frame_duration(frame)
    }

    /// Whether the decoder flagged the frame as damaged (corrupt, or concealed errors).
    static func isDamaged(_ frame: FramePointer) -> Bool {
        cffmpeg_frame_is_damaged(frame) != 0
    }

    /// Whether the decoder says the frame is a keyframe.
    static func isKeyframe(_ frame: FramePointer) -> Bool {
        cffmpeg_frame_is_keyframe(frame) != 0
    }

    // MARK: Decoders

    /// Opens a decoder for `stream` with `threadCount` threads (0: as many as FFmpeg sees cores).
    /// Throws ``FFmpegError/decoderNotFound`` when this build has none for the codec.
    static func openDecoder(for stream: StreamPointer, threadCount: Int) throws(FFmpegError) -> CodecContextPointer {
        prepare()
        guard let codec = avcodec_find_decoder(stream.pointee.codecpar.pointee.codec_id) else {
            throw .decoderNotFound
        }
        guard let context = avcodec_alloc_context3(codec) else { throw .outOfMemory }
        do {
            try check(avcodec_parameters_to_context(context, stream.pointee.codecpar))
            context.pointee.pkt_timebase = stream.pointee.time_base
            context.pointee.thread_count = Int32(clamping: threadCount)
            context.pointee.max_pixels = Int64(FrameLimits.maximumPixels)
            context.pointee.thread_type = threadCount == 1 ? 0 : FF_THREAD_FRAME | FF_THREAD_SLICE
            try capturingLog { () throws(FFmpegError) in try check(avcodec_open2(context, codec, nil)) }
        } catch {
            closeCodec(context)
            throw error
        }
        return context
    }

    /// Frees a decoder or encoder and everything it holds.
    static func closeCodec(_ context: CodecContextPointer) {
        var context: CodecContextPointer? = context
        avcodec_free_context(&context)
    }

    /// Sends a packet to the decoder, or nil to start draining it.
    static func sendPacket(_ packet: PacketPointer?, to decoder: CodecContextPointer) throws(FFmpegError) -> CodecStatus
    {
        try capturingLog { () throws(FFmpegError) in try codecStatus(avcodec_send_packet(decoder, packet)) }
    }

    /// Takes the next decoded frame, if there is one, into `frame`.
    static func receiveFrame(from decoder: CodecContextPointer, into frame: FramePointer) throws(FFmpegError)
        -> CodecStatus
    {
        try capturingLog { () throws(FFmpegError) in try codecStatus(avcodec_receive_frame(decoder, frame)) }
    }

    /// Drops every frame the decoder holds and ends a drain, so it takes packets again (after a
    /// seek, or after draining one keyframe).
    static func flushDecoder(_ decoder: CodecContextPointer) {
        avcodec_flush_buffers(decoder)
    }

    // MARK: Seeking

    /// Asks the demuxer to skip (`AVDISCARD_NONKEY`) or return (`AVDISCARD_DEFAULT`) the
    /// stream's packets that are not keyframes. Demuxers with an index (MP4, Matroska) then skip
    /// them without reading their bytes; others may ignore it.
    static func setSkipsNonKeyframes(_ stream: StreamPointer, _ skips: Bool) {
        stream.pointee.discard = skips ? AVDISCARD_NONKEY : AVDISCARD_DEFAULT
    }

    /// Whether the demuxer drops every packet of `stream` (`AVDISCARD_ALL`: a container with a sample table, as MP4,
    /// does not even read them).
    static func setDiscardsAll(_ stream: StreamPointer, _ discards: Bool) {
        stream.pointee.discard = discards ? AVDISCARD_ALL : AVDISCARD_DEFAULT
    }

    /// Seeks stream `streamIndex` to the keyframe at or before `timestamp` (in the stream's time
    /// base), or with `forward` at or after it; or the nearest one the demuxer can find.
    static func seek(
        _ context: FormatContextPointer,
        streamIndex: Int,
        to timestamp: Int64,
        forward: Bool = false
    ) throws(FFmpegError) {
        try capturingLog { () throws(FFmpegError) in
            try check(av_seek_frame(context, Int32(streamIndex), timestamp, forward ? 0 : AVSEEK_FLAG_BACKWARD))
        }
    }
}

internal import CFFmpeg

/// The C calls composition makes to encode and write a movie: libx264 and AAC encoders, libswresample, the MP4
/// muxer, and the frames they take.
extension FFmpeg {
    /// A resampler: `SwrContext *`, owned by a ``Resampler``.
    typealias ResamplerPointer = OpaquePointer

    // MARK: Encoders

    /// Opens libx264 for `width` x `height` 8-bit 4:2:0 BT.709 frames at `frameRate` (frames, seconds), with `crf`
    /// and `preset`, High profile whatever the preset (lossless when `crf` is 0, which libx264 encodes as High 4:4:4
    /// Predictive), and `threadCount` threads (0: libx264's own choice), within `constraints` when given.
    /// `globalHeader` puts the parameter sets in the stream header, as MP4 wants.
    static func openH264Encoder(
        width: Int, height: Int, frameRate: (frames: Int, seconds: Int), crf: Int, preset: String, threadCount: Int,
        constraints: H264Constraints?, globalHeader: Bool
    ) throws(FFmpegError) -> CodecContextPointer {
        prepare()
        guard let codec = avcodec_find_encoder_by_name("libx264") else { throw .encoderNotFound }
        guard let context = avcodec_alloc_context3(codec) else { throw .outOfMemory }
        context.pointee.width = Int32(width)
        context.pointee.height = Int32(height)
        context.pointee.pix_fmt = AV_PIX_FMT_YUV420P
        context.pointee.time_base = AVRational(num: Int32(frameRate.seconds), den: Int32(frameRate.frames))
        context.pointee.framerate = AVRational(num: Int32(frameRate.frames), den: Int32(frameRate.seconds))
        context.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
        context.pointee.color_range = AVCOL_RANGE_MPEG
        context.pointee.colorspace = AVCOL_SPC_BT709
        context.pointee.color_primaries = AVCOL_PRI_BT709
        context.pointee.color_trc = AVCOL_TRC_BT709
        context.pointee.thread_count = Int32(clamping: threadCount)
        if globalHeader { context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        if let constraints { constrain(context, by: constraints) }
        var options: OpaquePointer? = nil
        defer { av_dict_free(&options) }
        do {
            try check(av_dict_set(&options, "crf", String(crf), 0))
            try check(av_dict_set(&options, "preset", preset, 0))
            var parameters: [String] = []
            if crf > 0 {
                // High with every preset: libx264 states the lowest profile the features it uses need, and
                // `ultrafast` turns the 8x8 transform off, which would make the stream Constrained Baseline.
                try check(av_dict_set(&options, "profile", "high", 0))
                parameters.append("8x8dct=1")
            }
            if constraints != nil {
                // Keyframes only every `keyframeInterval` frames (none at scene cuts), and every GOP closed.
                parameters += ["scenecut=0", "open-gop=0"]
            }
            if !parameters.isEmpty {
                try check(av_dict_set(&options, "x264-params", parameters.joined(separator: ":"), 0))
            }
            try capturingLog { () throws(FFmpegError) in try check(avcodec_open2(context, codec, &options)) }
        } catch {
            closeCodec(context)
            throw error
        }
        return context
    }

    /// Sets libx264's level, GOP, B-frames and VBV from `constraints` (libavcodec passes them on over the preset's).
    private static func constrain(_ context: CodecContextPointer, by constraints: H264Constraints) {
        context.pointee.level = Int32(clamping: constraints.level)
        context.pointee.gop_size = Int32(clamping: constraints.keyframeInterval)
        context.pointee.keyint_min = Int32(clamping: constraints.keyframeInterval)
        context.pointee.max_b_frames = Int32(clamping: constraints.bFrames)
        context.pointee.rc_max_rate = Int64(constraints.maximumBitRate)
        context.pointee.rc_buffer_size = Int32(clamping: constraints.bufferSize)
    }

    /// Opens FFmpeg's AAC encoder (AAC-LC): `channels` channels (1 or 2) of planar float at `sampleRate`, `bitRate` bit/s.
    static func openAACEncoder(sampleRate: Int, channels: Int, bitRate: Int, globalHeader: Bool) throws(FFmpegError)
        -> CodecContextPointer
    {
        prepare()
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_AAC) else { throw .encoderNotFound }
        guard let context = avcodec_alloc_context3(codec) else { throw .outOfMemory }
        context.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
        context.pointee.sample_rate = Int32(sampleRate)
        av_channel_layout_default(&context.pointee.ch_layout, Int32(channels))
        context.pointee.bit_rate = Int64(bitRate)
        context.pointee.profile = FF_PROFILE_AAC_LOW
        context.pointee.time_base = AVRational(num: 1, den: Int32(sampleRate))
        if globalHeader { context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        do {
            try capturingLog { () throws(FFmpegError) in try check(avcodec_open2(context, codec, nil)) }
        } catch {
            closeCodec(context)
            throw error
        }
        return context
    }

    /// Sends a frame to an encoder, or nil to start draining it.
    static func sendFrame(_ frame: FramePointer?, to encoder: CodecContextPointer) throws(FFmpegError) -> CodecStatus {
        try capturingLog { () throws(FFmpegError) in try encodeStatus(avcodec_send_frame(encoder, frame)) }
    }

    /// Takes the next encoded packet, if there is one, into `packet`.
    static func receivePacket(from encoder: CodecContextPointer, into packet: PacketPointer) throws(FFmpegError)
        -> CodecStatus
    {
        try capturingLog { () throws(FFmpegError) in try encodeStatus(avcodec_receive_packet(encoder, packet)) }
    }

    private static func encodeStatus(_ code: Int32) throws(FFmpegError) -> CodecStatus {
        if code >= 0 { return .done }
        if code == FFmpegError.tryAgain.code { return .tryAgain }
        if code == FFmpegError.endOfFile.code { return .endOfFile }
        throw FFmpegError(code: code)
    }

    // MARK: Frames to encode

    /// Gives `frame` its own buffers: a `width` x `height` 8-bit 4:2:0 picture (limited range, BT.709).
    static func allocateYUV420Picture(_ frame: FramePointer, width: Int, height: Int) throws(FFmpegError) {
        av_frame_unref(frame)
        frame.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        frame.pointee.width = Int32(width)
        frame.pointee.height = Int32(height)
        frame.pointee.color_range = AVCOL_RANGE_MPEG
        frame.pointee.colorspace = AVCOL_SPC_BT709
        try check(av_frame_get_buffer(frame, 0))
    }

    /// Gives `frame` its own buffers: a packed RGB picture (3 bytes a pixel).
    static func allocateRGBPicture(_ frame: FramePointer, width: Int, height: Int) throws(FFmpegError) {
        av_frame_unref(frame)
        frame.pointee.format = AV_PIX_FMT_RGB24.rawValue
        frame.pointee.width = Int32(width)
        frame.pointee.height = Int32(height)
        try check(av_frame_get_buffer(frame, 0))
    }

    /// Gives `frame` its own buffers: `samples` samples of `channels` planar float channels at `sampleRate`.
    static func allocateAudio(_ frame: FramePointer, samples: Int, channels: Int, sampleRate: Int) throws(FFmpegError) {
        av_frame_unref(frame)
        frame.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
        frame.pointee.nb_samples = Int32(samples)
        frame.pointee.sample_rate = Int32(sampleRate)
        av_channel_layout_default(&frame.pointee.ch_layout, Int32(channels))
        try check(av_frame_get_buffer(frame, 0))
    }

    /// Makes sure the frame's buffers are its own (an encoder may still hold a reference to them).
    static func makeWritable(_ frame: FramePointer) throws(FFmpegError) {
        try check(av_frame_make_writable(frame))
    }

    /// The number of audio samples (per channel) the frame holds.
    static func sampleCount(of frame: FramePointer) -> Int { Int(frame.pointee.nb_samples) }

    /// The number of audio channels the frame holds.
    static func channelCount(of frame: FramePointer) -> Int { Int(frame.pointee.ch_layout.nb_channels) }

    // MARK: Resampling

    /// A resampler from `frame`'s sample format, rate and channels to interleaved float, `channels` channels (1 or 2)
    /// at `sampleRate`. Free it with ``freeResampler(_:)``.
    static func makeResampler(for frame: FramePointer, channels: Int, sampleRate: Int) throws(FFmpegError)
        -> ResamplerPointer
    {
        var input = AVChannelLayout()
        if frame.pointee.ch_layout.order == AV_CHANNEL_ORDER_UNSPEC || frame.pointee.ch_layout.nb_channels <= 0 {
            av_channel_layout_default(&input, max(1, frame.pointee.ch_layout.nb_channels))
        } else {
            try check(av_channel_layout_copy(&input, &frame.pointee.ch_layout))
        }
        defer { av_channel_layout_uninit(&input) }
        var output = AVChannelLayout()
        av_channel_layout_default(&output, Int32(channels))
        defer { av_channel_layout_uninit(&output) }
        var resampler: ResamplerPointer? = nil
        try check(
            swr_alloc_set_opts2(
                &resampler, &output, AV_SAMPLE_FMT_FLT, Int32(sampleRate), &input,
                AVSampleFormat(rawValue: frame.pointee.format), frame.pointee.sample_rate, 0, nil))
        guard let resampler else { throw .outOfMemory }
        do {
            try check(swr_init(resampler))
        } catch {
            freeResampler(resampler)
            throw error
        }
        return resampler
    }

    static func freeResampler(_ resampler: ResamplerPointer) {
        var resampler: ResamplerPointer? = resampler
        swr_free(&resampler)
    }

    /// Converts `frame`'s samples (or, with nil, what the resampler still holds) and appends them, interleaved, to
    /// `output`.
    static func resample(
        _ resampler: ResamplerPointer, _ frame: FramePointer?, channels: Int, into output: inout [Float]
    ) throws(FFmpegError) {
        let inputCount = frame.map { Int($0.pointee.nb_samples) } ?? 0
        let capacity = Int(swr_get_out_samples(resampler, Int32(inputCount))) + 32
        guard capacity > 0 else { return }
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: capacity * channels))
        let converted = output.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var target: UnsafeMutablePointer<UInt8>? = UnsafeMutableRawPointer(buffer.baseAddress! + start)
                .assumingMemoryBound(to: UInt8.self)
            if let frame {
                let source = UnsafeMutableRawPointer(frame.pointee.extended_data!).assumingMemoryBound(
                    to: UnsafePointer<UInt8>?.self)
                return swr_convert(resampler, &target, Int32(capacity), source, frame.pointee.nb_samples)
            }
            return swr_convert(resampler, &target, Int32(capacity), nil, 0)
        }
        guard converted >= 0 else {
            output.removeLast(capacity * channels)
            throw FFmpegError(code: converted)
        }
        output.removeLast((capacity - Int(converted)) * channels)
    }

    // MARK: Muxing

    /// An output: `AVFormatContext *` of a muxer, owned by a ``Muxer``.
    typealias OutputContextPointer = UnsafeMutablePointer<AVFormatContext>

    /// An MP4 muxer writing to `path` (not opened yet).
    static func makeMP4Output(path: FileSystemPath) throws(FFmpegError) -> OutputContextPointer {
        prepare()
        var context: OutputContextPointer? = nil
        let url = FileSystemPath(unchecked: Array("file:".utf8) + path.bytes)
        _ = try url.withCString { name throws(FFmpegError) in
            try check(avformat_alloc_output_context2(&context, nil, "mp4", name))
        }
        guard let context else { throw .outOfMemory }
        return context
    }

    /// Adds a stream with `encoder`'s parameters; returns its index.
    static func addStream(to output: OutputContextPointer, for encoder: CodecContextPointer) throws(FFmpegError) -> Int
    {
        guard let stream = avformat_new_stream(output, nil) else { throw .outOfMemory }
        try check(avcodec_parameters_from_context(stream.pointee.codecpar, encoder))
        stream.pointee.time_base = encoder.pointee.time_base
        return Int(stream.pointee.index)
    }

    /// Opens the file (only the `file` protocol) and writes the header, with `+faststart` when asked, and without
    /// edit lists (negative composition offsets instead) when `editLists` is false.
    static func startOutput(_ output: OutputContextPointer, faststart: Bool, editLists: Bool) throws(FFmpegError) {
        var ioOptions: OpaquePointer? = nil
        defer { av_dict_free(&ioOptions) }
        try check(av_dict_set(&ioOptions, "protocol_whitelist", "file", 0))
        try capturingLog { () throws(FFmpegError) in
            try check(avio_open2(&output.pointee.pb, output.pointee.url, AVIO_FLAG_WRITE, nil, &ioOptions))
        }
        var options: OpaquePointer? = nil
        defer { av_dict_free(&options) }
        if faststart { try check(av_dict_set(&options, "movflags", "+faststart", AV_DICT_APPEND)) }
        if !editLists {
            try check(av_dict_set(&options, "movflags", "+negative_cts_offsets", AV_DICT_APPEND))
            try check(av_dict_set(&options, "use_editlist", "0", 0))
        }
        try capturingLog { () throws(FFmpegError) in try check(avformat_write_header(output, &options)) }
    }

    /// Writes `packet`, whose times are in `timeBase`, to stream `index` (interleaved by time with the others).
    static func writePacket(
        _ packet: PacketPointer, stream index: Int, timeBase: AVRational, to output: OutputContextPointer
    ) throws(FFmpegError) {
        let stream = output.pointee.streams[index]!
        av_packet_rescale_ts(packet, timeBase, stream.pointee.time_base)
        packet.pointee.stream_index = Int32(index)
        try capturingLog { () throws(FFmpegError) in try check(av_interleaved_write_frame(output, packet)) }
    }

    /// Writes the trailer (with `+faststart`, moves the index to the front) and closes the file.
    static func finishOutput(_ output: OutputContextPointer) throws(FFmpegError) {
        try capturingLog { () throws(FFmpegError) in try check(av_write_trailer(output)) }
        try check(avio_closep(&output.pointee.pb))
    }

    /// Closes the file if it is open and frees the muxer.
    static func freeOutput(_ output: OutputContextPointer) {
        if output.pointee.pb != nil { avio_closep(&output.pointee.pb) }
        avformat_free_context(output)
    }

    /// An encoder's time base.
    static func timeBase(of codec: CodecContextPointer) -> AVRational { codec.pointee.time_base }

    /// The number of samples an audio encoder takes per frame.
    static func frameSize(of codec: CodecContextPointer) -> Int { Int(codec.pointee.frame_size) }

    /// The samples an audio encoder puts before the first input sample (its priming).
    static func initialPadding(of codec: CodecContextPointer) -> Int { Int(codec.pointee.initial_padding) }
}

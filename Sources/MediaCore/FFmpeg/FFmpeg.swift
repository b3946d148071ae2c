internal import CFFmpeg

/// The one place Thumbnails calls FFmpeg's C API.
///
/// Every `av*`, `avformat_*`, `avcodec_*`, `sws_*` and shim call goes through a function here, so
/// there is one place to see which C entry points the package depends on, to add logging, or to
/// change how return codes become errors: ``check(_:)`` turns a negative return into
/// ``FFmpegError``. Callers own the pointers these functions return through a wrapper class that
/// frees them in `deinit` (``FormatContext``); nothing here leaks into public API.
package enum FFmpeg {
    /// An opened input: `AVFormatContext *`.
    typealias FormatContextPointer = UnsafeMutablePointer<AVFormatContext>
    /// A stream of an opened input: `AVStream *`, owned by its format context.
    typealias StreamPointer = UnsafeMutablePointer<AVStream>

    /// Returns `code` when it is zero or positive; throws it as ``FFmpegError`` when negative.
    @discardableResult
    package static func check(_ code: Int32) throws(FFmpegError) -> Int32 {
        guard code >= 0 else { throw FFmpegError(code: code) }
        return code
    }

    // MARK: Process-wide set-up

    /// Silences FFmpeg's own logging once per process: failures reach callers as Swift errors
    /// carrying FFmpeg's message (and the error lines it logged, see ``capturingLog(_:)``), never
    /// as lines on standard error.
    package static func prepare() {
        _ = logRouted
    }

    /// Runs once, the first time ``prepare()`` reads it (a static's lazy initialisation is atomic).
    private static let logRouted: Void = installLogCallback()

    /// Keeps the memory FFmpeg's buffers free in the process (glibc's `mallopt` through the shim;
    /// see ``CoverMemory``): false when the C library refused or has no `mallopt`.
    package static func keepFreedMemory(heapAllocationLimit: Int, retainedFreeMemory: Int) -> Bool {
        cffmpeg_keep_freed_memory(Int32(clamping: heapAllocationLimit), Int32(clamping: retainedFreeMemory)) == 1
    }

    // MARK: Errors

    /// FFmpeg's message for an error code (`av_strerror`; the shim stands in for `av_err2str`).
    package static func message(for code: Int32) -> String {
        let capacity = 256  // AV_ERROR_MAX_STRING_SIZE is 64; leave room for long strerror texts.
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: capacity) { buffer in
            guard let base = buffer.baseAddress else { return "FFmpeg error \(code)" }
            _ = cffmpeg_error_string(code, base, capacity)
            return String(cString: base)
        }
    }

    // MARK: Inputs

    /// Opens `path` as a local file under `policy` and reads its header. The caller owns the result and must pass it
    /// to ``closeInput(_:)``.
    ///
    /// The path is given as a `file:` URL so a name with a colon is never read as a protocol, only the `file`
    /// protocol is allowed, and an image's name is never expanded as a sequence pattern (`pattern_type` none). Under
    /// ``InputPolicy/selfContained`` only ``InputPolicy/allowedDemuxers`` may read it (`format_whitelist`) and the
    /// `io_open` callback refuses every open but the input's own (``openInputOnly``); a refusal throws
    /// ``FFmpegError/refused`` with ``FFmpegError/refusal`` naming what the input was. Under
    /// ``InputPolicy/trustedPlaylists`` any demuxer may read it, and a local file it names that is not a regular file
    /// (a FIFO, a device) is refused (``openRegularFilesOnly``), so it cannot block or never end.
    ///
    /// With an `interruption`, FFmpeg asks it during every blocking read (opening, probing,
    /// reading packets) and gives up with ``FFmpegError/exit`` once it says so; the caller keeps
    /// it alive as long as the input.
    static func openInput(path: FileSystemPath, interruption: Interruption? = nil, policy: InputPolicy)
        throws(FFmpegError) -> FormatContextPointer
    {
        prepare()
        var options: OpaquePointer? = nil
        defer { av_dict_free(&options) }
        try check(av_dict_set(&options, "protocol_whitelist", "file", 0))
        try check(av_dict_set(&options, "pattern_type", "none", 0))
        try check(av_dict_set(&options, "max_streams", String(InputLimits.maximumStreams), 0))
        if !policy.opensOtherFiles {
            try check(av_dict_set(&options, "format_whitelist", InputPolicy.formatWhitelist, 0))
        }
        var context: FormatContextPointer? = try allocateInput(
            interruption: interruption, nestedOpens: policy.opensOtherFiles ? .regularFiles : .none)
        // The path's own bytes (a name need not be UTF-8) after the protocol prefix.
        let url = FileSystemPath(unchecked: Array("file:".utf8) + path.bytes)
        do {
            try capturingLog { () throws(FFmpegError) in
                _ = try url.withCString { name throws(FFmpegError) in
                    try check(avformat_open_input(&context, name, nil, &options))
                }
            }
        } catch {
            throw refusal(explaining: error, policy: policy, filename: url) { path.prefix(count: probePrefixSize) }
        }
        guard let context else { throw .outOfMemory }
        return context
    }

    /// Throws ``FFmpegError/refused`` when the sample tables `source` holds (an MP4 or QuickTime file's, counted by
    /// ``SampleTableCensus``) declare more samples than ``InputLimits`` allow, or a compressed header whose tables
    /// cannot be counted: called before FFmpeg reads them, so a refused file costs nothing.
    static func checkSampleTables(_ source: some CensusSource) throws(FFmpegError) {
        let census = SampleTableCensus(source)
        var refused = FFmpegError.refused
        if census.hasCompressedHeader {
            refused.refusal = "a compressed QuickTime header (cmov): refused, its sample tables cannot be checked"
            throw refused
        }
        if let reason = InputLimits.refusal(samples: census.samples, size: source.size) {
            refused.refusal = reason
            throw refused
        }
    }

    /// Throws ``FFmpegError/refused`` when the opened `context` has more streams than ``InputLimits/maximumStreams``
    /// or an index of more than ``InputLimits/maximumSamples`` entries (whatever demuxer built it).
    static func checkLimits(of context: FormatContextPointer) throws(FFmpegError) {
        var refused = FFmpegError.refused
        let count = Int(context.pointee.nb_streams)
        if count > InputLimits.maximumStreams {
            refused.refusal = InputLimits.streamsRefusal
            throw refused
        }
        var entries = 0
        for index in 0..<count {
            if let stream = context.pointee.streams[index] {
                entries += Int(avformat_index_get_entries_count(stream))
            }
        }
        if entries > InputLimits.maximumSamples {
            refused.refusal =
                "its index lists \(entries) samples: refused, an input may list at most "
                + "\(InputLimits.maximumSamples)"
            throw refused
        }
    }

    /// Bytes of a refused input read again to name what it was (the refused formats are text, told by their start).
    static let probePrefixSize = 64 * 1024

    /// The ``FFmpegError/refused`` error for a failed open when the failure was a refusal (more streams than
    /// ``InputLimits/maximumStreams``; under ``InputPolicy/selfContained``, the demuxer not on the whitelist or a nested
    /// open refused), naming what the input was from FFmpeg's probe of `prefix`; else `error` itself.
    static func refusal(
        explaining error: FFmpegError, policy: InputPolicy, filename: FileSystemPath, prefix: () -> [UInt8]
    ) -> FFmpegError {
        if error.loggedLines.contains(where: { $0.contains(InputLimits.streamLimitMarker) }) {
            var refused = FFmpegError.refused
            refused.refusal = InputLimits.streamsRefusal
            return refused
        }
        guard !policy.opensOtherFiles else { return error }
        if let nested = error.loggedLines.first(where: { $0.hasPrefix(nestedOpenMarker) }) {
            var refused = FFmpegError.refused
            refused.refusal = InputPolicy.nestedOpenRefusal(String(nested.dropFirst(nestedOpenMarker.count)))
            return refused
        }
        guard error.loggedLines.contains(where: { $0.contains("not on whitelist") }) else { return error }
        let bytes = prefix()
        let name = filename.withCString { file in
            bytes.withUnsafeBufferPointer { buffer in
                cffmpeg_probe_format_name(file, buffer.baseAddress, Int32(buffer.count)).map { String(cString: $0) }
            }
        }
        var refused = FFmpegError.refused
        refused.refusal = InputPolicy.refusal(ofDemuxer: name)
        return refused
    }

    /// What the `io_open` of an input lets through besides the input itself.
    enum NestedOpens {
        /// Nothing (``openInputOnly``).
        case none
        /// Local regular files (``openRegularFilesOnly``), within the protocol whitelist.
        case regularFiles
        /// The input is in memory and allows no protocol: FFmpeg's own `io_open` with an empty whitelist.
        case memory
    }

    /// A context for `avformat_open_input` (which frees it if opening fails), with the
    /// interrupt callback set when there is an interruption to ask, and the `io_open` that
    /// `nestedOpens` says.
    static func allocateInput(
        interruption: Interruption?,
        nestedOpens: NestedOpens
    ) throws(FFmpegError) -> FormatContextPointer {
        guard let context = avformat_alloc_context() else { throw .outOfMemory }
        if let interruption {
            context.pointee.interrupt_callback = AVIOInterruptCB(
                callback: askInterruption, opaque: Unmanaged.passUnretained(interruption).toOpaque())
        }
        if defaultIOOpen != nil {
            switch nestedOpens {
            case .none: context.pointee.io_open = openInputOnly
            case .regularFiles: context.pointee.io_open = openRegularFilesOnly
            case .memory: break
            }
        }
        return context
    }

    /// The start of the log line ``openInputOnly`` writes for a refused open, followed by the URL.
    static let nestedOpenMarker = "nested open refused: "

    /// The `io_open` callback `avformat_alloc_context` installs (FFmpeg's own opening, with the
    /// context's protocol whitelist), which ``openRegularFilesOnly`` calls once it has checked a URL.
    fileprivate static let defaultIOOpen: IOOpen? = {
        guard let context = avformat_alloc_context() else { return nil }
        defer { avformat_free_context(context) }
        return context.pointee.io_open
    }()

    /// `AVFormatContext.io_open`.
    typealias IOOpen =
        @convention(c) (
            FormatContextPointer?, UnsafeMutablePointer<UnsafeMutablePointer<AVIOContext>?>?, UnsafePointer<CChar>?,
            Int32, UnsafeMutablePointer<OpaquePointer?>?
        ) -> Int32

    /// Closes an input opened by ``openInput(path:)`` and frees everything it owns.
    static func closeInput(_ context: FormatContextPointer) {
        var context: FormatContextPointer? = context
        avformat_close_input(&context)
    }

    /// Reads some packets to fill in stream parameters the header lacks (size, pixel format,
    /// frame rate). Not needed when the container already states them.
    ///
    /// The decoders the probe opens refuse frames of more than `maximumPixels` pixels (`max_pixels`) before they
    /// allocate them, so a header claiming a huge picture costs no memory here.
    static func findStreamInfo(_ context: FormatContextPointer, maximumPixels: Int) throws(FFmpegError) {
        let count = Int(context.pointee.nb_streams)
        var dictionaries = [OpaquePointer?](repeating: nil, count: max(count, 1))
        defer { for index in dictionaries.indices { av_dict_free(&dictionaries[index]) } }
        for index in 0..<count {
            try check(av_dict_set(&dictionaries[index], "max_pixels", String(maximumPixels), 0))
        }
        _ = try dictionaries.withUnsafeMutableBufferPointer { buffer throws(FFmpegError) in
            try capturingLog { () throws(FFmpegError) in
                try check(avformat_find_stream_info(context, buffer.baseAddress))
            }
        }
    }

    /// The index of the best video stream: FFmpeg's choice (`av_find_best_stream`) among the video
    /// streams that have a decoder. Throws ``FFmpegError/streamNotFound`` when there is no video
    /// stream, ``FFmpegError/decoderNotFound`` when no video stream can be decoded.
    static func bestVideoStream(in context: FormatContextPointer) throws(FFmpegError) -> Int {
        var decoder: UnsafePointer<AVCodec>? = nil
        return Int(try check(av_find_best_stream(context, AVMEDIA_TYPE_VIDEO, -1, -1, &decoder, 0)))
    }

    // MARK: Streams and codecs

    /// FFmpeg's short name for a codec ("h264", "hevc", "vp9", "mpeg4").
    static func codecName(_ codec: AVCodecID) -> String {
        String(cString: avcodec_get_name(codec))
    }

    /// Whether this FFmpeg build has a decoder for the codec.
    static func hasDecoder(for codec: AVCodecID) -> Bool {
        avcodec_find_decoder(codec) != nil
    }

    /// FFmpeg's name for a pixel format ("yuv420p", "yuv420p10le") and the bit depth of its
    /// first component, or nil for an unknown format.
    package static func pixelFormat(_ rawValue: Int32) -> (name: String, bitsPerComponent: Int)? {
        let format = AVPixelFormat(rawValue: rawValue)
        guard let descriptor = av_pix_fmt_desc_get(format), let name = descriptor.pointee.name else {
            return nil
        }
        return (String(cString: name), Int(descriptor.pointee.comp.0.depth))
    }

    /// FFmpeg's short name for a media type ("video", "audio", "subtitle", "data", "attachment").
    static func mediaTypeName(_ type: AVMediaType) -> String {
        guard let name = av_get_media_type_string(type) else { return "unknown" }
        return String(cString: name)
    }

    // MARK: Time

    /// `AV_NOPTS_VALUE`: the "no timestamp" marker in durations and start times.
    package static let noTimestamp: Int64 = cffmpeg_no_timestamp()

    /// `AV_TIME_BASE_Q`: the time base of a format context's duration and start time.
    static let containerTimeBase: AVRational = cffmpeg_time_base_q()
}

/// `io_open` of an input opened under ``InputPolicy/selfContained``: FFmpeg calls it for the input itself and for every
/// resource a demuxer opens from inside it; only the input's own URL is opened (through FFmpeg's own `io_open`, with
/// the protocol whitelist), every other open of any protocol is refused with `EPERM` and a line naming it is logged for
/// the error's reason (``FFmpeg/nestedOpenMarker``).
private func openInputOnly(
    _ context: FFmpeg.FormatContextPointer?,
    _ io: UnsafeMutablePointer<UnsafeMutablePointer<AVIOContext>?>?,
    _ url: UnsafePointer<CChar>?,
    _ flags: Int32,
    _ options: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    guard let url, let open = FFmpeg.defaultIOOpen else { return FFmpegError.invalidArgument.code }
    guard let own = context?.pointee.url, strcmp(own, url) == 0 else {
        let bytes = Array(
            UnsafeBufferPointer(start: UnsafeRawPointer(url).assumingMemoryBound(to: UInt8.self), count: strlen(url)))
        LogCollector.current?.append(FFmpeg.nestedOpenMarker + FileSystemPath(unchecked: bytes).escaped)
        return FFmpegError.notPermitted.code
    }
    return open(context, io, url, flags, options)
}

/// `io_open` of an input opened under ``InputPolicy/trustedPlaylists``: FFmpeg calls it for the input itself and for every file a demuxer
/// opens from inside it, nested contexts included (an HLS playlist's segments and keys, a DASH
/// manifest's, an MP4's external data references). The input itself was checked before opening
/// (one `stat`, see `MediaInput`); any other local path that is not a regular file (a FIFO, whose
/// `open` blocks until a writer comes; a device such as `/dev/zero`, which never ends) is refused
/// with `EINVAL`, and a line naming it is logged for the error's reason. Everything else goes to
/// FFmpeg's own `io_open`, so the protocol whitelist still applies.
///
/// Not covered: the concat demuxer (`ffconcat`), which in FFmpeg 5.1 opens its entries in a
/// context of its own without copying `io_open`; a worker's time limit stops that one.
private func openRegularFilesOnly(
    _ context: FFmpeg.FormatContextPointer?,
    _ io: UnsafeMutablePointer<UnsafeMutablePointer<AVIOContext>?>?,
    _ url: UnsafePointer<CChar>?,
    _ flags: Int32,
    _ options: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    guard let url, let open = FFmpeg.defaultIOOpen else { return FFmpegError.invalidArgument.code }
    let isInputItself = context?.pointee.url.map { strcmp($0, url) == 0 } ?? false
    if !isInputItself {
        // A local path, as the file protocol reads it: after an optional "file:" prefix.
        let path = strncmp(url, "file:", 5) == 0 ? url + 5 : url
        if strstr(url, "://") == nil || strncmp(url, "file:", 5) == 0 {
            let bytes = Array(
                UnsafeBufferPointer(
                    start: UnsafeRawPointer(path).assumingMemoryBound(to: UInt8.self),
                    count: strlen(path)))
            let name = FileSystemPath(unchecked: bytes)
            if case .special(let what) = FileStatus(path: name) {
                LogCollector.current?.append(
                    "\(name.escaped), opened from inside the input, is \(what), not a regular file")
                return FFmpegError.invalidArgument.code
            }
        }
    }
    return open(context, io, url, flags, options)
}

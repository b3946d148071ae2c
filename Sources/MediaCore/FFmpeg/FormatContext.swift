internal import CFFmpeg
import Foundation

/// One opened input file, owning FFmpeg's format context and closing it in `deinit`.
///
/// Deliberately not `Sendable`: an FFmpeg format context must not be used from two threads at
/// once. A task opens one, reads what it needs and lets it go; values it hands out
/// (``StreamParameters``, durations, names) are plain Swift values.
package final class FormatContext {
    private let pointer: FFmpeg.FormatContextPointer
    /// The custom I/O of an in-memory input. Stored properties are released after `deinit`
    /// runs, so the input is closed before the I/O context it reads from is freed.
    private let memoryIO: MemoryIO?
    private let lifetime = OwnerLifetime(of: FormatContext.self)
    /// What FFmpeg's interrupt callback asks; kept alive as long as the input.
    private let interruption: Interruption?

    /// Opens `path` under `policy` and reads the container header.
    ///
    /// With the default policy, ``InputPolicy/selfContained``, FFmpeg reads the file named and nothing else: a
    /// playlist, manifest, concat script, text or subtitle file is refused with ``FFmpegError/refused`` (its
    /// ``FFmpegError/refusal`` names what it was), as is an input whose demuxer tries to open another resource.
    /// Under any policy, an input beyond ``InputLimits`` (more streams, or sample tables declaring more samples) is
    /// refused the same way, before FFmpeg spends memory on it.
    /// Throws the ``FFmpegError`` of a file FFmpeg cannot open or read otherwise.
    package init(path: FileSystemPath, interruption: Interruption? = nil, policy: InputPolicy = .selfContained)
        throws(FFmpegError)
    {
        if let file = ReadOnlyFile(path: path) { try FFmpeg.checkSampleTables(file) }
        pointer = try FFmpeg.openInput(path: path, interruption: interruption, policy: policy)
        memoryIO = nil
        self.interruption = interruption
        try FFmpeg.checkLimits(of: pointer)
    }

    /// Opens bytes held in memory and reads the container header.
    ///
    /// No protocol may be opened from inside the bytes; `policy` decides the demuxers, as for a file.
    package init(bytes: Data, interruption: Interruption? = nil, policy: InputPolicy = .selfContained)
        throws(FFmpegError)
    {
        try FFmpeg.checkSampleTables(CensusBytes(bytes))
        let io = try MemoryIO(bytes)
        pointer = try FFmpeg.openInput(io: io.pointer, interruption: interruption, policy: policy) {
            Array(bytes.prefix(FFmpeg.probePrefixSize))
        }
        memoryIO = io
        self.interruption = interruption
        try FFmpeg.checkLimits(of: pointer)
    }

    deinit {
        FFmpeg.closeInput(pointer)
    }

    /// What FFmpeg's probe takes the file at `path` for, from its first 64 KiB and its name, as opening it would: the
    /// demuxer's short name ("mov,mp4,m4a,3gp,3g2,mj2", "h264", "gif", "srt") and how sure the probe is (100: certain;
    /// 50: by the name's extension alone), or nil when no demuxer recognises it (or it cannot be read). Only FFmpeg's
    /// probe functions read the bytes, which look for signatures; no demuxer or decoder runs.
    package static func probe(fileAt path: FileSystemPath) -> (demuxer: String, score: Int)? {
        let bytes = path.prefix(count: FFmpeg.probePrefixSize)
        let url = FileSystemPath(unchecked: Array("file:".utf8) + path.bytes)
        return url.withCString { name in probe(bytes, name: name) }
    }

    /// The lowest ``probe(fileAt:)`` score at which the probe recognises a format: above FFmpeg's own retry threshold
    /// (25 of 100), so a weak guess from a few bytes of text does not count. A file it recognises is a candidate for
    /// a cover (in a folder walk) and, when it cannot be opened, a damaged one of that format.
    package static let recognisedScore = 26

    /// What FFmpeg's probe takes `bytes` for, by their content alone (see ``probe(fileAt:)``).
    package static func probe(bytes: Data) -> (demuxer: String, score: Int)? {
        probe(Array(bytes.prefix(FFmpeg.probePrefixSize)), name: nil)
    }

    /// The probe of `bytes`, as `avformat_open_input` runs it: on the first 2 KiB, then on 8 times as much, until a
    /// format is recognised (``recognisedScore``) or every byte was seen. Each try runs every demuxer's probe over
    /// its bytes, so a file recognised from its start costs a 2 KiB probe, not a 64 KiB one.
    private static func probe(_ bytes: [UInt8], name: UnsafePointer<CChar>?) -> (demuxer: String, score: Int)? {
        var size = min(bytes.count, 2048)
        while true {
            var score: Int32 = 0
            let demuxer = bytes.withUnsafeBufferPointer { buffer in
                cffmpeg_probe_format_scored(name, buffer.baseAddress, Int32(size), &score)
            }
            if score >= recognisedScore || size == bytes.count {
                return demuxer.map { (String(cString: $0), Int(score)) }
            }
            size = min(bytes.count, size * 8)
        }
    }

    /// Reads packets to complete stream parameters the header left out.
    ///
    /// The decoders the probe opens refuse frames of more than ``FrameLimits/maximumPixels`` pixels before they
    /// allocate them.
    package func findStreamInfo() throws(FFmpegError) {
        try FFmpeg.findStreamInfo(pointer, maximumPixels: FrameLimits.maximumPixels)
        try FFmpeg.checkLimits(of: pointer)
    }

    /// FFmpeg's short name for the container format ("mov,mp4,m4a,3gp,3g2,mj2", "matroska,webm").
    package var formatName: String {
        guard let name = pointer.pointee.iformat?.pointee.name else { return "unknown" }
        return String(cString: name)
    }

    /// Whether the demuxer keeps a table of every sample with its keyframe flag and seeks by it
    /// (MP4/MOV): a seek then lands exactly on the last keyframe whose decode time is at or
    /// before the target. The same table is why such a demuxer must not be asked to skip
    /// non-keyframes: FFmpeg's MP4 demuxer then steps over samples without advancing its
    /// composition-offset table, and the keyframes after them get wrong presentation times.
    package var seeksBySampleTable: Bool { formatName.hasPrefix("mov,") }

    /// Whether the demuxer says its packets carry no timestamps (raw elementary streams).
    package var hasNoTimestamps: Bool {
        guard let format = pointer.pointee.iformat else { return false }
        return format.pointee.flags & AVFMT_NOTIMESTAMPS != 0
    }

    /// The container's duration in seconds, or nil when it does not know.
    package var duration: Double? {
        let value = pointer.pointee.duration
        guard value != FFmpeg.noTimestamp, value >= 0 else { return nil }
        return Double(value) * Rational(FFmpeg.containerTimeBase).doubleValue
    }

    /// The timestamp of the container's first frame in seconds, or nil when it does not say.
    package var startTime: Double? {
        let value = pointer.pointee.start_time
        guard value != FFmpeg.noTimestamp else { return nil }
        return Double(value) * Rational(FFmpeg.containerTimeBase).doubleValue
    }

    /// How many streams the container has.
    package var streamCount: Int { Int(pointer.pointee.nb_streams) }

    /// A snapshot of the parameters of stream `index` (0 ..< ``streamCount``).
    package func stream(at index: Int) -> StreamParameters {
        StreamParameters(streamPointer(at: index))
    }

    /// FFmpeg's stream `index` (0 ..< ``streamCount``), owned by this context.
    func streamPointer(at index: Int) -> FFmpeg.StreamPointer {
        precondition(index >= 0 && index < streamCount, "stream index \(index) out of range")
        guard let streams = pointer.pointee.streams, let stream = streams[index] else {
            preconditionFailure("FFmpeg listed stream \(index) but has no stream there")
        }
        return stream
    }

    /// Stream `index`'s time base: the unit of its timestamps, in seconds.
    package func timeBase(ofStream index: Int) -> Rational {
        Rational(streamPointer(at: index).pointee.time_base)
    }

    /// Stream `index`'s first timestamp (its time base), or nil when the container does not say.
    package func startTimestamp(ofStream index: Int) -> Int64? {
        let value = streamPointer(at: index).pointee.start_time
        return value == FFmpeg.noTimestamp ? nil : value
    }

    /// Stream `index`'s duration (its time base), or nil when the container does not say.
    package func durationTimestamp(ofStream index: Int) -> Int64? {
        let value = streamPointer(at: index).pointee.duration
        return value == FFmpeg.noTimestamp || value <= 0 ? nil : value
    }

    /// Whether the demuxer skips stream `index`'s non-keyframe packets (see
    /// ``FFmpeg/setSkipsNonKeyframes(_:_:)``).
    package func setSkipsNonKeyframes(ofStream index: Int, _ skips: Bool) {
        FFmpeg.setSkipsNonKeyframes(streamPointer(at: index), skips)
    }

    /// Makes the demuxer drop the packets of every stream but `index`, so that ``readPacket(into:)`` returns only
    /// that stream's (and packets it had already read, such as ``findStreamInfo()``'s).
    package func discardStreams(except index: Int) {
        for other in 0..<streamCount where other != index {
            FFmpeg.setDiscardsAll(streamPointer(at: other), true)
        }
    }

    /// Reads the next packet of any stream into `packet` (cleared by the caller).
    package func readPacket(into packet: Packet) -> FFmpeg.ReadResult {
        FFmpeg.readPacket(pointer, into: packet.pointer)
    }

    /// Seeks stream `index` to the keyframe at or before `timestamp` (its time base), or with
    /// `forward` at or after it.
    package func seek(streamIndex index: Int, to timestamp: Int64, forward: Bool = false) throws(FFmpegError) {
        try FFmpeg.seek(pointer, streamIndex: index, to: timestamp, forward: forward)
    }

    /// All streams' parameters, in container order.
    package var streams: [StreamParameters] { (0..<streamCount).map(stream(at:)) }

    /// The index of the best decodable video stream (see ``FFmpeg/bestVideoStream(in:)``).
    package func bestVideoStreamIndex() throws(FFmpegError) -> Int {
        try FFmpeg.bestVideoStream(in: pointer)
    }
}

internal import CFFmpeg

/// One opened input file, owning FFmpeg's format context and closing it in `deinit`.
///
/// Deliberately not `Sendable`: an FFmpeg format context must not be used from two threads at
/// once. A task opens one, reads what it needs and lets it go; values it hands out
/// (``StreamParameters``, durations, names) are plain Swift values.
final class FormatContext {
    private let pointer: FFmpeg.FormatContextPointer

    /// Opens `path` and reads the container header.
    init(path: String) throws(FFmpegError) {
        pointer = try FFmpeg.openInput(path: path)
    }

    deinit {
        FFmpeg.closeInput(pointer)
    }

    /// Reads packets to complete stream parameters the header left out.
    func findStreamInfo() throws(FFmpegError) {
        try FFmpeg.findStreamInfo(pointer)
    }

    /// FFmpeg's short name for the container format ("mov,mp4,m4a,3gp,3g2,mj2", "matroska,webm").
    var formatName: String {
        guard let name = pointer.pointee.iformat?.pointee.name else { return "unknown" }
        return String(cString: name)
    }

    /// The container's duration in seconds, or nil when it does not know.
    var duration: Double? {
        let value = pointer.pointee.duration
        guard value != FFmpeg.noTimestamp, value >= 0 else { return nil }
        return Double(value) * Rational(FFmpeg.containerTimeBase).doubleValue
    }

    /// The timestamp of the container's first frame in seconds, or nil when it does not say.
    var startTime: Double? {
        let value = pointer.pointee.start_time
        guard value != FFmpeg.noTimestamp else { return nil }
        return Double(value) * Rational(FFmpeg.containerTimeBase).doubleValue
    }

    /// How many streams the container has.
    var streamCount: Int { Int(pointer.pointee.nb_streams) }

    /// A snapshot of the parameters of stream `index` (0 ..< ``streamCount``).
    func stream(at index: Int) -> StreamParameters {
        precondition(index >= 0 && index < streamCount, "stream index \(index) out of range")
        guard let streams = pointer.pointee.streams, let stream = streams[index] else {
            preconditionFailure("FFmpeg listed stream \(index) but has no stream there")
        }
        return StreamParameters(stream)
    }

    /// All streams' parameters, in container order.
    var streams: [StreamParameters] { (0..<streamCount).map(stream(at:)) }

    /// The index of the best decodable video stream (see ``FFmpeg/bestVideoStream(in:)``).
    func bestVideoStreamIndex() throws(FFmpegError) -> Int {
        try FFmpeg.bestVideoStream(in: pointer)
    }
}

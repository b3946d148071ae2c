internal import CFFmpeg

/// A negative FFmpeg return code, kept raw, with named cases for the codes callers act on.
///
/// FFmpeg reports failures as negative `int`s: POSIX `errno` values negated (`AVERROR(e)`) or
/// four-character tags (`AVERROR_EOF`, `AVERROR_INVALIDDATA`). ``FFmpeg/check(_:)`` turns every
/// such return into this error in one place; `ThumbnailError` then classifies it for the public
/// API. Some codes are not failures at all: ``tryAgain`` from the send/receive calls means "feed
/// more input" (or "take output first"), and ``endOfFile`` ends a read loop or a drained decoder.
///
/// Two errors are equal when their codes are: ``loggedLines`` is context, not identity, so
/// `case .invalidData:` matches whatever FFmpeg logged.
package struct FFmpegError: Error, Sendable {
    /// The raw code FFmpeg returned (always negative).
    package let code: Int32
    /// Error lines FFmpeg logged while failing ("moov atom not found"), when the failing call ran
    /// inside ``FFmpeg/capturingLog(_:)``.
    package var loggedLines: [String] = []
    /// Why a guarded open refused the input, naming what it was ("an HLS playlist: refused, it would open other
    /// files"); set on ``refused`` only.
    package var refusal: String?

    package init(code: Int32) {
        self.code = code
    }

    /// FFmpeg's message for this code (`av_strerror`), followed by the lines it logged, if any:
    /// "Invalid data found when processing input (moov atom not found)".
    package var message: String {
        if let refusal { return refusal }
        let base = FFmpeg.message(for: code)
        return loggedLines.isEmpty ? base : "\(base) (\(loggedLines.joined(separator: "; ")))"
    }
}

extension FFmpegError: Hashable {
    package static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    package func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

extension FFmpegError {
    /// The input (or a drained decoder) has no more data. `AVERROR_EOF`.
    package static let endOfFile = FFmpegError(code: cffmpeg_error_end_of_file())
    /// Not a failure: feed more input, or take output first. `AVERROR(EAGAIN)`.
    package static let tryAgain = FFmpegError(code: cffmpeg_error_try_again())
    /// The data is not what its format claims, or no demuxer recognised it. `AVERROR_INVALIDDATA`.
    package static let invalidData = FFmpegError(code: cffmpeg_error_invalid_data())
    /// No stream of the requested kind. `AVERROR_STREAM_NOT_FOUND`.
    package static let streamNotFound = FFmpegError(code: cffmpeg_error_stream_not_found())
    /// A stream of the requested kind exists but nothing decodes it. `AVERROR_DECODER_NOT_FOUND`.
    package static let decoderNotFound = FFmpegError(code: cffmpeg_error_decoder_not_found())
    /// No encoder for the requested codec. `AVERROR_ENCODER_NOT_FOUND`.
    package static let encoderNotFound = FFmpegError(code: cffmpeg_error_encoder_not_found())
    /// No demuxer for the requested format. `AVERROR_DEMUXER_NOT_FOUND`.
    package static let demuxerNotFound = FFmpegError(code: cffmpeg_error_demuxer_not_found())
    /// An interrupt callback asked FFmpeg to stop. `AVERROR_EXIT`.
    package static let exit = FFmpegError(code: cffmpeg_error_exit())
    /// An allocation failed. `AVERROR(ENOMEM)`.
    package static let outOfMemory = FFmpegError(code: cffmpeg_error_from_errno(ENOMEM))
    /// The file does not exist. `AVERROR(ENOENT)`.
    package static let noSuchFile = FFmpegError(code: cffmpeg_error_from_errno(ENOENT))
    /// The file exists but may not be read. `AVERROR(EACCES)`.
    package static let permissionDenied = FFmpegError(code: cffmpeg_error_from_errno(EACCES))
    /// A directory where a file was expected. `AVERROR(EISDIR)`.
    package static let isDirectory = FFmpegError(code: cffmpeg_error_from_errno(EISDIR))
    /// The operation is not permitted: what a refused nested open returns. `AVERROR(EPERM)`.
    package static let notPermitted = FFmpegError(code: cffmpeg_error_from_errno(EPERM))
    /// Not an FFmpeg code: the input was refused by ``InputPolicy/selfContained`` before its header was read (a
    /// playlist, a script, a text file) or when it tried to open another file; ``refusal`` says what it was. The code
    /// is a tag FFmpeg does not use (`FFERRTAG('R','F','S','D')`).
    package static let refused = FFmpegError(code: -(0x52 | 0x46 << 8 | 0x53 << 16 | 0x44 << 24))
    /// An argument FFmpeg rejected. `AVERROR(EINVAL)`.
    package static let invalidArgument = FFmpegError(code: cffmpeg_error_from_errno(EINVAL))
}

extension FFmpegError: CustomStringConvertible {
    package var description: String { "\(message) (FFmpeg error \(code))" }
}

import Foundation
import MediaCore

/// Why a media file could not be opened, described or turned into a cover.
///
/// ``kind`` says what went wrong in terms a caller can act on; ``reason`` is one line for
/// people (a log, a command-line error, an error column), naming the file and including FFmpeg's
/// own message where FFmpeg gave one. The reason never contains a line break.
public struct ThumbnailError: Error, Sendable, Hashable {
    /// The classes of failure.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// Nothing exists at the path.
        case fileNotFound
        /// The file exists but cannot be read (permissions, an I/O error).
        case notReadable
        /// The input was refused as a risk to the machine making its cover, before FFmpeg read more than its start:
        /// a playlist, manifest or script that would open other files (unless
        /// ``CoverOptions/allowsPlaylists``), a text or subtitle file, a demuxer that tried to open another file, or
        /// a header declaring frames larger than any decoder may allocate. The reason names what it was.
        case refused
        /// The file is empty, a directory, not a regular file (a FIFO, a device), or no demuxer
        /// recognises its contents (a text file).
        case notAMediaFile
        /// A media file without any video stream (audio only, subtitles only).
        case noVideoStream
        /// The file has video in a codec this FFmpeg build has no decoder for: one FFmpeg knows by name ("unsupported
        /// codec vvc"), or a code FFmpeg does not know ("unsupported codec 'zzzz'").
        case unsupportedCodec
        /// The file is damaged or truncated: FFmpeg recognises its format but cannot read its header (an MP4 cut
        /// short before its index), its video stream names no codec, or none of its frames decodes. The reason
        /// starts "damaged or truncated file".
        case decodeFailed
        /// The request itself is wrong (not a file URL, an impossible size or time).
        case invalidArgument
        /// The picture could not be encoded as PNG or JPEG.
        case encodeFailed
        /// The encoded cover could not be written (no such folder, no permission, disk full).
        case writeFailed
        /// The request was cancelled (``CoverRequest/cancel()``, ``CoverGenerator/cancelAll()``,
        /// or the task's cancellation) before it finished. The async APIs throw
        /// `CancellationError` instead; completion handlers receive this kind.
        case cancelled
    }

    /// What went wrong.
    public let kind: Kind
    /// One line naming the file and the cause, with FFmpeg's message where there is one.
    public let reason: String

    /// An error of `kind` with a one-line `reason` (line breaks are replaced by spaces).
    public init(_ kind: Kind, reason: String) {
        self.kind = kind
        self.reason = reason.split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    /// An error whose reason ends with FFmpeg's message for `ffmpegError`.
    init(_ kind: Kind, reason: String, ffmpegError: FFmpegError) {
        self.init(kind, reason: "\(reason): \(ffmpegError.message)")
    }
}

extension ThumbnailError {
    /// The error of a cover that could not be written to `output`: `.invalidArgument` for a path naming a folder,
    /// `.writeFailed` otherwise, "OUTPUT: cannot write: No space left on device".
    init(_ failure: OutputFailure, writing output: FileSystemPath) {
        self.init(
            failure.isInvalidPath ? .invalidArgument : .writeFailed, reason: "\(output.escaped): \(failure.detail)")
    }
}

extension ThumbnailError: CustomStringConvertible {
    /// The ``reason``.
    public var description: String { reason }
}

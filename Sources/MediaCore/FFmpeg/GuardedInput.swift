import Foundation

/// Why the guarded opening refused an input: a neutral value that each caller (a cover's input, a composition's take)
/// words once in its own error type.
package enum InputRefusal: Error, Sendable {
    /// The path is not a readable, non-empty regular file: decided before FFmpeg sees it.
    case file(InputFileProblem)
    /// FFmpeg could not open the file, or refused it under the input policy or the limits (``FFmpegError/refused``,
    /// naming the limit); ``FFmpegError/exit`` when the interruption asked it to stop.
    case open(FFmpegError)
    /// A video stream states a frame larger than ``FrameLimits`` allows; the reason names it.
    case frameTooLarge(String)
}

/// What an input is opened from.
package enum InputSource: Sendable {
    /// A file, by its path's bytes (a name need not be UTF-8).
    case file(FileSystemPath)
    /// A media file held in memory.
    case bytes(Data)
}

/// The one guarded opening of an input, a file or bytes in memory, for covers and composition alike (the first
/// opening and any later one of the same input).
///
/// In order: the file itself (``InputFileProblem``: a regular, readable, non-empty file, never a FIFO, device or
/// folder, checked before FFmpeg sees the path); then FFmpeg's open under `policy` (``InputPolicy``: which demuxers, no
/// nested open of another resource) with every resource limit (``InputLimits``: the sample tables counted by
/// ``SampleTableCensus`` before the demuxer reads them, the number of streams, the index entries after the header).
/// The caller then checks the frame sizes the streams state (``checkFrameSizes(of:)``) before any decoder allocates,
/// and again once probing completed the streams' parameters.
package enum GuardedInput {
    /// Opens the file at `path` under the rules above (`status`: what the caller already read of the file, so it is
    /// not read again; nil to read it here).
    ///
    /// - Throws: ``InputRefusal`` `.file` or `.open`.
    package static func open(
        _ path: FileSystemPath, status: FileStatus? = nil, interruption: Interruption?, policy: InputPolicy
    ) throws(InputRefusal) -> FormatContext {
        if let problem = InputFileProblem(status ?? FileStatus(path: path)) { throw .file(problem) }
        do {
            return try FormatContext(path: path, interruption: interruption, policy: policy)
        } catch {
            throw .open(error)
        }
    }

    /// Opens `source` under the rules above: a file as ``open(_:status:interruption:policy:)``; bytes held in memory
    /// under the same policy and limits (empty bytes are refused as an empty file is, `.file(.empty)`).
    ///
    /// - Throws: ``InputRefusal`` `.file` or `.open`.
    package static func open(
        _ source: InputSource, status: FileStatus? = nil, interruption: Interruption?, policy: InputPolicy
    ) throws(InputRefusal) -> FormatContext {
        switch source {
        case .file(let path):
            return try open(path, status: status, interruption: interruption, policy: policy)
        case .bytes(let bytes):
            if bytes.isEmpty { throw .file(.empty) }
            do {
                return try FormatContext(bytes: bytes, interruption: interruption, policy: policy)
            } catch {
                throw .open(error)
            }
        }
    }

    /// Refuses `streams` when one of the video streams states a frame larger than ``FrameLimits`` allows.
    ///
    /// - Throws: ``InputRefusal`` `.frameTooLarge`.
    package static func checkFrameSizes(of streams: [StreamParameters]) throws(InputRefusal) {
        for stream in streams where stream.isVideo {
            if let refusal = FrameLimits.refusal(width: stream.width, height: stream.height, codec: stream.codecName) {
                throw .frameTooLarge(refusal)
            }
        }
    }
}

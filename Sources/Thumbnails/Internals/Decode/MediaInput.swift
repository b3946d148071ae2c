import Foundation
import MediaCore

/// A media file opened for reading, with its best video stream chosen: the first step of
/// every description and every cover.
///
/// Opening checks the path up front (exists, is a regular file, readable, not empty) so each
/// failure gets a precise ``ThumbnailError``, then lets FFmpeg read the header and probe the
/// streams. Not `Sendable`, like the `FormatContext` it owns.
final class MediaInput {
    /// The path as given (for messages).
    let path: String
    /// The opened container (replaced by ``reopen()``).
    private(set) var format: FormatContext
    /// The chosen video stream.
    let video: StreamParameters

    /// When to read packets to complete the stream parameters (`avformat_find_stream_info`).
    enum ProbePolicy {
        /// Always: a description wants every field (pixel format, bit depth, frame rate).
        case always
        /// Only when the header leaves out what decoding needs: the codec, the frame size or the
        /// stream's start time. MP4 and AVI headers state all three, so a cover skips the probe
        /// (the decoder finds the pixel format in the first frame anyway); MPEG-TS and WebM
        /// are probed.
        case whenIncomplete
    }

    /// Whether the probe ran (``reopen()`` probes again when it did).
    let probed: Bool

    /// What the input was opened from, so ``reopen()`` can open it again.
    private let source: InputSource
    private let interruption: Interruption?
    /// What FFmpeg may open besides the input (kept for ``reopen()``).
    private let policy: InputPolicy

    /// Clockwise degrees to turn frames upright: 0, 90, 180 or 270.
    var rotation: Int {
        MediaDescription.clockwiseQuarterTurns(fromCounterclockwise: video.displayRotation ?? 0)
    }

    /// Opens the file at `url`.
    ///
    /// - Throws: ``ThumbnailError`` `.invalidArgument` for a URL that is not a file URL,
    ///   `.fileNotFound`, `.notReadable`, `.notAMediaFile` (empty, a directory, a FIFO or device, unrecognised
    ///   contents), `.noVideoStream`, `.unsupportedCodec`.
    convenience init(
        contentsOf url: URL,
        probe: ProbePolicy = .always,
        interruption: Interruption? = nil,
        policy: InputPolicy = .selfContained
    ) throws(ThumbnailError) {
        guard url.isFileURL else {
            throw ThumbnailError(.invalidArgument, reason: "\(url.absoluteString): not a file URL")
        }
        try self.init(fileAt: FileSystemPath(url), probe: probe, interruption: interruption, policy: policy)
    }

    /// Opens the file at `path`, its bytes handed to the system unchanged (a name that is not
    /// UTF-8 opens); error reasons name it by its `FileSystemPath.escaped` form.
    ///
    /// - Parameter status: what the caller already read of the file (``FileStatus/init(identity:path:)``),
    ///   so it is not read again; nil to read it here (one `stat`).
    /// - Throws: as ``init(contentsOf:probe:interruption:)``.
    convenience init(
        fileAt file: FileSystemPath,
        probe: ProbePolicy = .always,
        interruption: Interruption? = nil,
        status: FileStatus? = nil,
        policy: InputPolicy = .selfContained
    ) throws(ThumbnailError) {
        try self.init(
            source: .file(file), name: file.escaped, probe: probe, interruption: interruption, status: status,
            policy: policy)
    }

    /// Opens a media file held in memory; `name` stands for it in error reasons. The bytes are opened under the same
    /// policy and limits as a file (``GuardedInput``).
    ///
    /// - Throws: ``ThumbnailError`` `.notAMediaFile` (empty or unrecognised bytes), `.refused`,
    ///   `.noVideoStream`, `.unsupportedCodec`, `.decodeFailed`.
    convenience init(
        bytes: Data,
        name: String,
        probe: ProbePolicy = .always,
        interruption: Interruption? = nil,
        policy: InputPolicy = .selfContained
    ) throws(ThumbnailError) {
        try self.init(source: .bytes(bytes), name: name, probe: probe, interruption: interruption, policy: policy)
    }

    /// Opens `source` through the one guarded opening, then chooses its video stream.
    private convenience init(
        source: InputSource,
        name: String,
        probe: ProbePolicy,
        interruption: Interruption?,
        status: FileStatus? = nil,
        policy: InputPolicy
    ) throws(ThumbnailError) {
        let format = try Self.open(source, name: name, status: status, interruption: interruption, policy: policy)
        try self.init(
            format: format, path: name, source: source, probe: probe, interruption: interruption, policy: policy)
    }

    private init(
        format: FormatContext,
        path: String,
        source: InputSource,
        probe: ProbePolicy,
        interruption: Interruption?,
        policy: InputPolicy
    ) throws(ThumbnailError) {
        self.path = path
        self.format = format
        self.source = source
        self.interruption = interruption
        self.policy = policy
        // A header that declares frames no decoder may allocate is refused before anything decodes.
        if let headerIndex = try? format.bestVideoStreamIndex() {
            try Self.checkFrameSize(format.stream(at: headerIndex), path: path)
        }

        // Fill in what the header leaves out (AVI and MPEG-TS state no pixel format, MP4 may
        // state no frame rate). A failed probe is not fatal by itself: what matters is whether
        // the video stream ends up with a usable size, checked below.
        var probeFailure: FFmpegError?
        var probed = false
        // No video stream in the header is not an answer yet (MPEG-TS finds its streams by
        // probing); the probe runs and the choice below reports the real failure.
        let headerIndex = try? format.bestVideoStreamIndex()
        if probe == .always || !Self.headerIsComplete(format, videoIndex: headerIndex) {
            probed = true
            do {
                try format.findStreamInfo()
            } catch .exit {
                throw ThumbnailError(.cancelled, reason: "\(path): cancelled")
            } catch {
                probeFailure = error
            }
        }
        self.probed = probed

        let index: Int
        do {
            index = try format.bestVideoStreamIndex()
        } catch {
            throw Self.streamFailure(error, format: format, path: path)
        }
        let video = format.stream(at: index)
        guard video.width > 0, video.height > 0 else {
            let reason = "\(path): the \(video.codecName) video stream states no frame size"
            if let probeFailure {
                throw ThumbnailError(.decodeFailed, reason: reason, ffmpegError: probeFailure)
            }
            throw ThumbnailError(.decodeFailed, reason: reason)
        }
        try Self.checkFrameSize(video, path: path)
        self.video = video
    }

    /// Opens the input again from its start, replacing ``format``: what a demuxer that cannot seek
    /// back (a raw elementary stream, a still picture, an audio file's cover art) needs before it
    /// is read a second time, and what a failed seek needs, since FFmpeg drops the packets it had
    /// buffered when a seek fails. Decoders opened on the old input stay valid (they hold a copy
    /// of the stream parameters); the video stream keeps its index.
    ///
    /// - Throws: ``ThumbnailError`` as the first opening, and `.decodeFailed` when the video
    ///   stream is no longer where it was (the file changed in between).
    func reopen() throws(ThumbnailError) {
        // The same guarded opening as the first: the file checked again (it may have been replaced meanwhile by a
        // FIFO or a folder), the same policy and limits.
        let reopened = try Self.open(source, name: path, interruption: interruption, policy: policy)
        if probed {
            do {
                try reopened.findStreamInfo()
            } catch .exit {
                throw ThumbnailError(.cancelled, reason: "\(path): cancelled")
            } catch {
                // As at the first opening: what matters is that the stream is still there.
            }
        }
        guard video.index < reopened.streamCount, reopened.stream(at: video.index).codecName == video.codecName else {
            throw ThumbnailError(.decodeFailed, reason: "\(path): the video stream changed while it was read")
        }
        format = reopened
    }

    /// Whether the header alone states what decoding the video stream needs.
    private static func headerIsComplete(_ format: FormatContext, videoIndex: Int?) -> Bool {
        guard let videoIndex else { return false }
        let video = format.stream(at: videoIndex)
        return video.hasDecoder && video.width > 0 && video.height > 0
            && format.startTimestamp(ofStream: videoIndex) != nil
    }

    /// Opens `source` through ``GuardedInput``, wording its refusal once: each case its own error kind.
    private static func open(
        _ source: InputSource, name: String, status: FileStatus? = nil, interruption: Interruption?,
        policy: InputPolicy
    ) throws(ThumbnailError) -> FormatContext {
        do throws(InputRefusal) {
            return try GuardedInput.open(source, status: status, interruption: interruption, policy: policy)
        } catch {
            switch (error, source) {
            case (.file(.empty), .bytes):
                throw ThumbnailError(.notAMediaFile, reason: "\(name): the data is empty (0 bytes)")
            case (.file(let problem), _): throw fileFailure(problem, name: name)
            case (.open(let error), .file(let file)):
                throw openFailure(error, path: name) { FormatContext.probe(fileAt: file) }
            case (.open(let error), .bytes(let bytes)):
                throw openFailure(error, path: name) { FormatContext.probe(bytes: bytes) }
            case (.frameTooLarge(let refusal), _): throw ThumbnailError(.refused, reason: "\(name): \(refusal)")
            }
        }
    }

    /// The error of a path refused before FFmpeg saw it (``InputFileProblem``): each case its own error kind.
    private static func fileFailure(_ problem: InputFileProblem, name path: String) -> ThumbnailError {
        let kind: ThumbnailError.Kind =
            switch problem {
            case .missing: .fileNotFound
            case .directory, .special, .empty: .notAMediaFile
            case .unreadable, .failed: .notReadable
            }
        return ThumbnailError(kind, reason: "\(path): \(problem.reason)")
    }

    /// Refuses a video stream whose stated frame size exceeds ``FrameLimits`` (before any decoder allocates a frame).
    private static func checkFrameSize(_ video: StreamParameters, path: String) throws(ThumbnailError) {
        do throws(InputRefusal) {
            try GuardedInput.checkFrameSizes(of: [video])
        } catch {
            guard case .frameTooLarge(let refusal) = error else { return }
            throw ThumbnailError(.refused, reason: "\(path): \(refusal)")
        }
    }

    /// The error for a failed `avformat_open_input`. A file that FFmpeg's probe recognises (`probe`: a format's
    /// signature at its start, or an extension its bytes do not contradict) but whose header cannot be read is a
    /// damaged or truncated media file (`.decodeFailed`, naming the format); one it does not recognise is not a
    /// media file.
    private static func openFailure(
        _ error: FFmpegError, path: String, probe: () -> (demuxer: String, score: Int)?
    ) -> ThumbnailError {
        switch error {
        case .refused:
            ThumbnailError(.refused, reason: "\(path): \(error.message)")
        case .exit:
            ThumbnailError(.cancelled, reason: "\(path): cancelled")
        case .noSuchFile:
            ThumbnailError(.fileNotFound, reason: "\(path): cannot open", ffmpegError: error)
        case .permissionDenied:
            ThumbnailError(.notReadable, reason: "\(path): cannot open", ffmpegError: error)
        case .isDirectory:
            ThumbnailError(.notAMediaFile, reason: "\(path): cannot open", ffmpegError: error)
        default:
            if let recognised = probe(), recognised.score >= FormatContext.recognisedScore {
                ThumbnailError(
                    .decodeFailed, reason: "\(path): damaged or truncated file (\(recognised.demuxer))",
                    ffmpegError: error)
            } else {
                ThumbnailError(.notAMediaFile, reason: "\(path): not a media file FFmpeg can read", ffmpegError: error)
            }
        }
    }

    /// The error for video `streams` no decoder of this FFmpeg takes: `.unsupportedCodec` naming the codec FFmpeg
    /// knows but cannot decode ("unsupported codec vvc"), or the container's code for one FFmpeg does not know
    /// ("unsupported codec 'zzzz'"); `.decodeFailed`, a damaged file, when the stream names no codec at all (no
    /// code, or bytes that are not one).
    static func noDecoder(for streams: [StreamParameters], path: String) -> ThumbnailError {
        let known = Set(streams.filter(\.codecIsIdentified).map(\.codecName)).sorted()
        if !known.isEmpty {
            return ThumbnailError(
                .unsupportedCodec,
                reason:
                    "\(path): unsupported codec \(known.joined(separator: ", ")) (this FFmpeg has no decoder for it)")
        }
        let tags = Set(streams.compactMap(\.codecTag)).sorted()
        if !tags.isEmpty {
            return ThumbnailError(
                .unsupportedCodec,
                reason:
                    "\(path): unsupported codec \(tags.map { "'\($0)'" }.joined(separator: ", ")) (a codec FFmpeg does not know)"
            )
        }
        return ThumbnailError(
            .decodeFailed, reason: "\(path): damaged or truncated file (its video stream names no codec)")
    }

    /// The error for a failed choice of video stream, listing what the file has instead.
    private static func streamFailure(
        _ error: FFmpegError,
        format: FormatContext,
        path: String
    ) -> ThumbnailError {
        let streams = format.streams
        let contents =
            streams.isEmpty
            ? "no streams"
            : streams.map { "\($0.mediaType) (\($0.codecName))" }.joined(separator: ", ")
        switch error {
        case .decoderNotFound:
            return noDecoder(for: streams.filter(\.isVideo), path: path)
        case .streamNotFound:
            return ThumbnailError(.noVideoStream, reason: "\(path): no video stream; it has \(contents)")
        default:
            return ThumbnailError(.notAMediaFile, reason: "\(path): cannot choose a video stream", ffmpegError: error)
        }
    }
}

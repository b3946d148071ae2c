import Foundation

/// A media file opened for reading, with its best video stream chosen: the first step of
/// every description and every cover.
///
/// Opening checks the path up front (exists, is a regular file, readable, not empty) so each
/// failure gets a precise ``ThumbnailError``, then lets FFmpeg read the header and probe the
/// streams. Not `Sendable`, like the ``FormatContext`` it owns.
final class MediaInput {
    /// The path as given (for messages).
    let path: String
    /// The opened container.
    let format: FormatContext
    /// The chosen video stream.
    let video: StreamParameters

    /// Opens the file at `url`.
    ///
    /// - Throws: ``ThumbnailError`` `.invalidArgument` for a URL that is not a file URL,
    ///   `.fileNotFound`, `.notReadable`, `.notAMediaFile` (empty, a directory, unrecognised
    ///   contents), `.noVideoStream`, `.unsupportedCodec`.
    init(contentsOf url: URL) throws(ThumbnailError) {
        guard url.isFileURL else {
            throw ThumbnailError(.invalidArgument, reason: "\(url.absoluteString): not a file URL")
        }
        let path = url.path
        self.path = path
        try Self.checkFile(at: path)

        let format: FormatContext
        do {
            format = try FormatContext(path: path)
        } catch {
            throw Self.openFailure(error, path: path)
        }
        self.format = format

        // Fill in what the header leaves out (AVI and MPEG-TS state no pixel format, MP4 may
        // state no frame rate). A failed probe is not fatal by itself: what matters is whether
        // the video stream ends up with a usable size, checked below.
        let probeFailure: FFmpegError?
        do {
            try format.findStreamInfo()
            probeFailure = nil
        } catch {
            probeFailure = error
        }

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
        self.video = video
    }

    /// Classifies the path before FFmpeg sees it, so each case gets its own error.
    private static func checkFile(at path: String) throws(ThumbnailError) {
        let files = FileManager.default
        var isDirectory: ObjCBool = false
        guard files.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ThumbnailError(.fileNotFound, reason: "\(path): no such file")
        }
        guard !isDirectory.boolValue else {
            throw ThumbnailError(.notAMediaFile, reason: "\(path): is a directory, not a media file")
        }
        guard files.isReadableFile(atPath: path) else {
            throw ThumbnailError(.notReadable, reason: "\(path): permission denied")
        }
        let size: Int
        do {
            let attributes = try files.attributesOfItem(atPath: path)
            size = (attributes[.size] as? NSNumber)?.intValue ?? -1
        } catch {
            throw ThumbnailError(.notReadable, reason: "\(path): \(error.localizedDescription)")
        }
        guard size != 0 else {
            throw ThumbnailError(.notAMediaFile, reason: "\(path): the file is empty (0 bytes)")
        }
    }

    /// The error for a failed `avformat_open_input`.
    private static func openFailure(_ error: FFmpegError, path: String) -> ThumbnailError {
        switch error {
        case .noSuchFile:
            ThumbnailError(.fileNotFound, reason: "\(path): cannot open", ffmpegError: error)
        case .permissionDenied:
            ThumbnailError(.notReadable, reason: "\(path): cannot open", ffmpegError: error)
        case .isDirectory:
            ThumbnailError(.notAMediaFile, reason: "\(path): cannot open", ffmpegError: error)
        default:
            ThumbnailError(.notAMediaFile, reason: "\(path): not a media file FFmpeg can read", ffmpegError: error)
        }
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
            let codecs = streams.filter(\.isVideo).map(\.codecName)
            let names = Set(codecs).sorted().joined(separator: ", ")
            return ThumbnailError(
                .unsupportedCodec,
                reason: "\(path): no decoder for its video codec \(names)",
                ffmpegError: error
            )
        case .streamNotFound:
            return ThumbnailError(.noVideoStream, reason: "\(path): no video stream; it has \(contents)")
        default:
            return ThumbnailError(.notAMediaFile, reason: "\(path): cannot choose a video stream", ffmpegError: error)
        }
    }
}

import Foundation
import MediaCore
import Pixels

/// One take opened for composition: what its file holds (its video and audio streams, its length) and the tracks
/// that read them. Opening all of a plan's takes is the first step of a composition, so a missing or corrupt take
/// fails it before anything is written.
///
/// The file is opened twice: the context that probed its streams (``probe(_:order:shouldStop:)``) goes on to read its
/// video, on the take's feed thread; its audio, read on the composing thread, has a context of its own.
final class TakeSource {
    let canvas: Int
    let take: CompositionPlan.Take
    let path: FileSystemPath
    /// The video stream the take's tile shows (its pictures are read by a ``TileFeed``), nil for a take without one.
    let videoStream: StreamParameters?
    let audio: AudioTrack?
    /// Turns a reason into the take's error (naming its canvas and file).
    let fail: @Sendable (String) -> CompositionError
    /// Where the take's time 0 falls on the output's timeline, in seconds.
    let offset: Double
    /// The take's length in seconds.
    let duration: Double
    let zIndex: Int
    let order: Int

    /// Opens `take`'s file (number `order` in the plan) and reads enough of it to know its streams
    /// (``open(_:interruption:fail:)``); `shouldStop` interrupts FFmpeg's reads. The context returned is the one the
    /// take's video is then read from: its reads start at the beginning of the file (the packets probing read are
    /// kept in the context and come first).
    static func probe(
        _ take: CompositionPlan.Take, order: Int, shouldStop: @escaping @Sendable () -> Bool
    ) throws(CompositionError) -> FormatContext {
        let fail = failing(take, order: order)
        do {
            return try open(FileSystemPath(take.file), interruption: Interruption(isRequested: shouldStop), fail: fail)
        } catch {
            throw failure(error, fail)
        }
    }

    /// The take `take` (number `order` in the plan), whose file ``probe(_:order:shouldStop:)`` found to hold
    /// `streams` (read by the demuxer `container`), start at `startTime` and last `length` seconds; opens its audio
    /// track (a context of its own, read on the composing thread), `shouldStop` interrupting FFmpeg's reads.
    init(
        take: CompositionPlan.Take, order: Int, origin: Double, streams: [StreamParameters], container: String,
        startTime: Double?, length: Double?, shouldStop: @escaping @Sendable () -> Bool
    ) throws(CompositionError) {
        canvas = take.canvasIndex ?? order
        self.take = take
        self.order = order
        zIndex = take.zIndex
        offset = take.start - origin
        let fail = Self.failing(take, order: order)
        self.fail = fail
        let path = FileSystemPath(take.file)
        self.path = path
        let videoStream = streams.first { $0.isVideo && !$0.isAttachedPicture && $0.hasDecoder && $0.width > 0 }
        let audioStream = streams.first { $0.mediaType == "audio" && $0.hasDecoder }
        guard videoStream != nil || audioStream != nil else {
            throw fail("has no video or audio stream FFmpeg can decode")
        }
        guard let length, length.isFinite, length > 0 else {
            if let picture = videoStream, audioStream == nil, Self.isStillPicture(container: container) {
                throw fail("is a still picture (\(picture.codecName)), not a video: a take is a video or audio file")
            }
            throw fail("has no duration (an empty or broken file)")
        }
        duration = length
        self.videoStream = videoStream
        if let audioStream {
            audio = try AudioTrack(
                path: path, stream: audioStream, origin: startTime ?? 0,
                offsetSamples: Int((offset * Double(CompositionPlan.AudioSettings.sampleRate)).rounded()),
                gain: take.gain, pan: take.pan, interruption: Interruption(isRequested: shouldStop), fail: fail)
        } else {
            audio = nil
        }
    }

    /// Whether FFmpeg's demuxer `container` reads single pictures (PNG, JPEG, GIF and the other image formats).
    static func isStillPicture(container: String) -> Bool {
        container == "image2" || container.hasSuffix("_pipe") || container == "gif"
    }

    /// What turns a reason into the error of `take` (number `order` in the plan): it names the canvas and the file.
    static func failing(_ take: CompositionPlan.Take, order: Int) -> @Sendable (String) -> CompositionError {
        let canvas = take.canvasIndex ?? order
        let name = take.file.lastPathComponent
        return { @Sendable (reason: String) in CompositionError(.take(canvas: canvas, file: name), reason) }
    }

    /// Opens `path` under the rules every input of the package is opened under, and reads enough of it to know its
    /// streams: a regular, non-empty file (never a FIFO, device or folder); FFmpeg reads that file and nothing else
    /// (``InputPolicy/selfContained``: no playlist, manifest or script, no nested open, only the `file` protocol); a
    /// video stream whose stated frame exceeds ``FrameLimits`` is refused from the header, before any decoder opens,
    /// and again once probing has completed the streams' parameters.
    static func open(
        _ path: FileSystemPath, interruption: Interruption, fail: (String) -> CompositionError
    ) throws -> FormatContext {
        if let problem = InputFileProblem(FileStatus(path: path)) { throw fail(problem.reason) }
        let format = try FormatContext(path: path, interruption: interruption, policy: .selfContained)
        try checkFrameSizes(format.streams, fail: fail)
        try format.findStreamInfo()
        try checkFrameSizes(format.streams, fail: fail)
        return format
    }

    /// Refuses the take when a video stream states a frame larger than ``FrameLimits`` allows.
    private static func checkFrameSizes(
        _ streams: [StreamParameters], fail: (String) -> CompositionError
    ) throws(CompositionError) {
        for stream in streams where stream.isVideo {
            if let refusal = FrameLimits.refusal(width: stream.width, height: stream.height, codec: stream.codecName) {
                throw fail(refusal)
            }
        }
    }

    /// The error of a take that failed with `error`: cancellation when FFmpeg was interrupted, the take's error
    /// otherwise.
    static func failure(_ error: any Error, _ fail: (String) -> CompositionError) -> CompositionError {
        if let error = error as? CompositionError { return error }
        if let error = error as? FFmpegError, error == .exit { return .cancelled }
        return fail(reason(error))
    }

    /// A one-line reason for an FFmpeg or picture error reading a take.
    static func reason(_ error: any Error) -> String {
        if let error = error as? FFmpegError {
            switch error {
            case .refused: return error.message
            case .noSuchFile: return "no such file"
            case .permissionDenied: return "permission denied"
            case .invalidData: return "not a media file FFmpeg can read (invalid data)"
            case .exit: return "cancelled"
            default:
                let logged = error.loggedLines.last.map { ": \($0)" } ?? ""
                return error.message + logged
            }
        }
        return String(describing: error).split(separator: "\n").first.map(String.init) ?? "unreadable"
    }
}

import Foundation
import MediaCore
import Pixels

/// One take opened for composition: what its files hold (each segment's video and audio streams and length, placed
/// back to back by ``TakeSegment``'s join rule) and the tracks that read them. Opening all of a plan's takes is the
/// first step of a composition, so a missing or corrupt take (any of its segments) fails it before anything is
/// written.
///
/// The first segment is opened twice: the context that probed its streams (``probe(_:order:shouldStop:)``) goes on
/// to read its video, on the take's feed thread; its audio, read on the composing thread, has a context of its own.
/// Every other segment is probed here and closed, then opened again by each track when it reaches it, so a take
/// holds open only the segment each track is reading.
final class TakeSource {
    let canvas: Int
    let take: CompositionPlan.Take
    /// The take's segments, placed on its clock.
    let segments: [TakeSegment]
    let audio: AudioTrack?
    /// Turns a reason into the take's error (naming its canvas and first file).
    let fail: @Sendable (String) -> CompositionError
    /// Where the take's time 0 falls on the output's timeline, in seconds.
    let offset: Double
    /// The take's length in seconds.
    let duration: Double
    let zIndex: Int
    let order: Int

    /// Opens `take`'s first file (number `order` in the plan) and reads enough of it to know its streams
    /// (``open(_:interruption:fail:)``); `shouldStop` interrupts FFmpeg's reads. The context returned is the one the
    /// take's first video is then read from: its reads start at the beginning of the file (the packets probing read
    /// are kept in the context and come first).
    static func probe(
        _ take: CompositionPlan.Take, order: Int, shouldStop: @escaping @Sendable () -> Bool
    ) throws(CompositionError) -> FormatContext {
        let fail = failing(take, file: take.file, order: order)
        do {
            return try open(FileSystemPath(take.file), interruption: Interruption(isRequested: shouldStop), fail: fail)
        } catch {
            throw failure(error, fail)
        }
    }

    /// The take `take` (number `order` in the plan), whose first file ``probe(_:order:shouldStop:)`` found to hold
    /// `first`; probes its other segments and opens its audio track (a context of its own, read on the composing
    /// thread), `shouldStop` interrupting FFmpeg's reads.
    ///
    /// - Throws: the take's error naming the segment at fault: one that cannot be read, or whose picture has
    ///   another shape than the take's first picture (a take's tile has one placement).
    init(
        take: CompositionPlan.Take, order: Int, origin: Double, first: TakeSegment,
        shouldStop: @escaping @Sendable () -> Bool
    ) throws(CompositionError) {
        canvas = take.canvasIndex ?? order
        self.take = take
        self.order = order
        zIndex = take.zIndex
        offset = take.start - origin
        fail = first.fail
        var probed = [first]
        for file in take.segments.dropFirst() {
            let fail = Self.failing(take, file: file, order: order)
            do {
                let format = try Self.open(
                    FileSystemPath(file), interruption: Interruption(isRequested: shouldStop), fail: fail)
                probed.append(try TakeSegment(format, file: file, fail: fail))
            } catch {
                throw Self.failure(error, fail)
            }
        }
        try Self.checkShapes(probed)
        let segments = TakeSegment.joined(probed)
        self.segments = segments
        duration = segments.last.map { $0.start + $0.length } ?? 0
        let offsetSamples = Int((offset * Double(CompositionPlan.AudioSettings.sampleRate)).rounded())
        let pieces = AudioPiece.pieces(of: segments, offsetSamples: offsetSamples)
        audio =
            pieces.isEmpty
            ? nil
            : try AudioTrack(
                pieces: pieces, loops: false, gain: take.gain, pan: take.pan,
                interruption: Interruption(isRequested: shouldStop))
    }

    /// Whether any segment has video (the take then has a tile).
    var hasVideo: Bool { segments.contains { $0.video != nil } }

    /// Refuses a take whose segments' pictures differ in shape (display aspect ratio, by more than 1%) from its first
    /// picture: a tile has one placement, and a picture of another shape would be stretched.
    private static func checkShapes(_ segments: [TakeSegment]) throws(CompositionError) {
        let sized = segments.compactMap { segment in segment.displaySize.map { (segment, $0) } }
        guard let (_, first) = sized.first else { return }
        for (segment, size) in sized.dropFirst() {
            let ratio = Double(size.width * first.height) / Double(max(1, size.height * first.width))
            if abs(ratio - 1) > 0.01 {
                throw segment.fail(
                    "its picture is \(size.width)x\(size.height), another shape than the take's first "
                        + "(\(first.width)x\(first.height)): a take's segments share one shape")
            }
        }
    }

    /// Whether FFmpeg's demuxer `container` reads single pictures (PNG, JPEG, GIF and the other image formats).
    static func isStillPicture(container: String) -> Bool {
        container == "image2" || container.hasSuffix("_pipe") || container == "gif"
    }

    /// What turns a reason into the error of `take` (number `order` in the plan) about its segment `file`: it names
    /// the canvas and the file.
    static func failing(
        _ take: CompositionPlan.Take, file: URL, order: Int
    ) -> @Sendable (String) -> CompositionError {
        let canvas = take.canvasIndex ?? order
        let name = file.lastPathComponent
        return { @Sendable (reason: String) in CompositionError(.take(canvas: canvas, file: name), reason) }
    }

    /// Opens `path` under the rules every input of the package is opened under, and reads enough of it to know its
    /// streams: a regular, non-empty file (never a FIFO, device or folder); FFmpeg reads that file and nothing else
    /// (``InputPolicy/selfContained``: no playlist, manifest or script, no nested open, only the `file` protocol); a
    /// video stream whose stated frame exceeds ``FrameLimits`` is refused from the header, before any decoder opens,
    /// and again once probing has completed the streams' parameters. `probing` false reads the header only, for a
    /// file probed before whose header names the stream wanted (the caller checks): probing decodes frames.
    static func open(
        _ path: FileSystemPath, interruption: Interruption, fail: (String) -> CompositionError, probing: Bool = true
    ) throws -> FormatContext {
        let format = try guarded(fail) { () throws(InputRefusal) in
            let format = try GuardedInput.open(path, interruption: interruption, policy: .selfContained)
            try GuardedInput.checkFrameSizes(of: format.streams)
            return format
        }
        guard probing else { return format }
        try format.findStreamInfo()
        try guarded(fail) { () throws(InputRefusal) in try GuardedInput.checkFrameSizes(of: format.streams) }
        return format
    }

    /// Runs a step of the guarded opening; a refusal becomes the take's error, worded here once. FFmpeg's own
    /// failures are thrown as they are, for ``failure(_:_:)`` (an interruption is a cancellation).
    private static func guarded<Value>(
        _ fail: (String) -> CompositionError, _ step: () throws(InputRefusal) -> Value
    ) throws -> Value {
        do throws(InputRefusal) {
            return try step()
        } catch {
            switch error {
            case .file(let problem): throw fail(problem.reason)
            case .open(let error): throw error
            case .frameTooLarge(let reason): throw fail(reason)
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
            // The message holds the lines FFmpeg logged ("End of file (error reading header)").
            case .endOfFile: return "damaged or truncated file: \(error.message)"
            default: return error.message
            }
        }
        return String(describing: error).split(separator: "\n").first.map(String.init) ?? "unreadable"
    }
}

import Foundation
import MediaCore
import Pixels

/// One take opened for composition: what its file holds (its video and audio streams, its length) and the tracks
/// that read them. Opening all of a plan's takes is the first step of a composition, so a missing or corrupt take
/// fails it before anything is written.
final class TakeSource {
    let canvas: Int
    let video: VideoTrack?
    let audio: AudioTrack?
    /// Where the take's time 0 falls on the output's timeline, in seconds.
    let offset: Double
    /// The take's length in seconds.
    let duration: Double
    let zIndex: Int
    let order: Int

    init(
        take: CompositionPlan.Take, order: Int, plan: CompositionPlan, origin: Double, interruption: Interruption
    ) throws(CompositionError) {
        let canvas = take.canvasIndex ?? order
        self.canvas = canvas
        self.order = order
        zIndex = take.zIndex
        offset = take.start - origin
        let name = take.file.lastPathComponent
        let fail = { (reason: String) in CompositionError(.take(canvas: canvas, file: name), reason) }
        let path = FileSystemPath(take.file)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: take.file.path, isDirectory: &isDirectory) else {
            throw fail("no such file")
        }
        guard !isDirectory.boolValue else { throw fail("is a folder, not a video file") }
        let streams: [StreamParameters]
        let length: Double?
        do {
            let probe = try FormatContext(path: path, interruption: interruption)
            try probe.findStreamInfo()
            streams = probe.streams
            length = probe.duration
        } catch {
            if error == .exit { throw .cancelled }
            throw fail(Self.reason(error))
        }
        let videoStream = streams.first { $0.isVideo && !$0.isAttachedPicture && $0.hasDecoder && $0.width > 0 }
        let audioStream = streams.first { $0.mediaType == "audio" && $0.hasDecoder }
        guard videoStream != nil || audioStream != nil else {
            throw fail("has no video or audio stream FFmpeg can decode")
        }
        guard let length, length.isFinite, length > 0 else { throw fail("has no duration (an empty or broken file)") }
        duration = length
        if let videoStream {
            video = try VideoTrack(
                path: path, stream: videoStream, region: take.region, output: plan.size, scaling: take.scaling,
                interruption: interruption, fail: fail)
        } else {
            video = nil
        }
        if let audioStream {
            audio = try AudioTrack(
                path: path, stream: audioStream,
                offsetSamples: Int((offset * Double(CompositionPlan.AudioSettings.sampleRate)).rounded()),
                gain: take.gain, pan: take.pan, interruption: interruption, fail: fail)
        } else {
            audio = nil
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

import Foundation
import MediaCore
import Pixels

/// One segment of a take as probing found it, and where it falls on the take's own clock.
///
/// **The join rule.** A take's segments play back to back: segment k starts where segment k-1 ends, on the take's
/// clock. A segment ends at the end of its video (the last frame's time plus its duration, as the container states
/// the stream's length, edit list applied), not of its sound: its sound is cut there when it runs longer (AAC's last
/// frame is padded, so a segment's decoded sound is usually a few milliseconds longer than its picture) and silence
/// fills the rest when it runs shorter. So the pictures of consecutive segments never leave a gap or overlap, and the
/// sound of each segment stays where it was recorded against its pictures: sync never drifts by a segment's
/// mismatch, however many there are. A segment without video ends at the end of its file. The last segment plays
/// whole, as a take of one file does (its sound to its end, its last picture held).
struct TakeSegment: Sendable {
    /// The segment's file.
    let file: URL
    /// The video stream its pictures come from, nil when it has none.
    let video: StreamParameters?
    /// The audio stream its sound comes from, nil when it has none.
    let audio: StreamParameters?
    /// The file's start time (seconds): its time 0 is the first instant of its streams.
    let origin: Double
    /// Its length in seconds on the take's clock: where its video ends (or its file, for a segment without video,
    /// and for the last segment, which plays whole).
    var length: Double
    /// Where its time 0 falls on the take's clock, in seconds: the sum of the lengths of the segments before it.
    var start: Double = 0
    /// Turns a reason into the take's error, naming this segment's file.
    let fail: @Sendable (String) -> CompositionError

    /// What `format` (the probed file of a segment of a take, `fail` naming it) holds.
    ///
    /// - Throws: the take's error when the file has neither video nor audio FFmpeg can decode, or no duration.
    init(
        _ format: FormatContext, file: URL, fail: @escaping @Sendable (String) -> CompositionError
    ) throws(CompositionError) {
        let streams = format.streams
        let video = streams.first { $0.isVideo && !$0.isAttachedPicture && $0.hasDecoder && $0.width > 0 }
        let audio = streams.first { $0.mediaType == "audio" && $0.hasDecoder }
        guard video != nil || audio != nil else { throw fail("has no video or audio stream FFmpeg can decode") }
        guard let length = format.duration, length.isFinite, length > 0 else {
            if let picture = video, audio == nil, TakeSource.isStillPicture(container: format.formatName) {
                throw fail("is a still picture (\(picture.codecName)), not a video: a take is a video or audio file")
            }
            throw fail("has no duration (an empty or broken file)")
        }
        self.file = file
        self.video = video
        self.audio = audio
        self.fail = fail
        let origin = format.startTime ?? 0
        self.origin = origin
        self.length = length
        if let video, let start = format.startTimestamp(ofStream: video.index),
            let duration = format.durationTimestamp(ofStream: video.index), duration > 0
        {
            let end = Double(start + duration) * format.timeBase(ofStream: video.index).doubleValue - origin
            videoEnd = end > 0 && end.isFinite ? end : nil
        } else {
            videoEnd = nil
        }
    }

    /// Where its video ends on its own clock, when the container says.
    private let videoEnd: Double?

    /// `segments` (a take's, in order) placed back to back by the join rule: every segment but the last ends where
    /// its video ends.
    static func joined(_ segments: [TakeSegment]) -> [TakeSegment] {
        var start = 0.0
        return segments.enumerated().map { index, segment in
            var placed = segment
            placed.start = start
            if index < segments.count - 1, let end = segment.videoEnd { placed.length = end }
            start += placed.length
            return placed
        }
    }

    /// The picture size it shows (the display picture: pixel aspect ratio and rotation applied), nil without video.
    var displaySize: PixelSize? {
        video.map { stream in
            FrameConverter.sizes(
                frameWidth: stream.width, frameHeight: stream.height, pixelAspectRatio: stream.sampleAspectRatio,
                rotation: stream.orientation.rotation, maximum: .zero
            ).output
        }
    }
}

import Foundation
import MediaCore
import Pixels

/// One take's pictures on their way to its tile: decodes the take's segments in order, picks the frame shown at each
/// output frame's time and scales it to the tile, and holds it after the take's last frame (the hold policy: a shorter
/// take shows its last frame until the end).
///
/// Each segment's frames are placed at the segment's start on the take's clock (``TakeSegment``'s join rule) plus
/// their own time; a segment is opened (and probed again) when the track reaches it, the one before closed.
///
/// Memory: the decoder's frames and one decoded frame waiting, whatever the take's length; the scaled pictures are
/// the feed's (``TileSlots``).
final class VideoTrack {
    let placement: TilePlacement
    /// The segments with video, in order, and the next one to open.
    private let segments: [TakeSegment]
    private var nextSegment = 0
    /// The segment being read: its decoded frames and how their times are read.
    private var reading: (frames: DecodedStream, segment: TakeSegment, stream: StreamParameters, timeBase: Double)?
    private var frameDuration = 1.0 / 30
    /// The next decoded frame, not shown yet, its take time and the stream it comes from.
    private var pending: (frame: Frame, time: Double, stream: StreamParameters, timeBase: Double)?
    /// The stream of the frame ``advance(to:)`` returned last.
    private var shownStream: StreamParameters?
    private var decodedCount = 0
    private var endOfInput = false
    /// Whether a frame has been shown.
    private var started = false
    private var scaler: (key: [Int], scaler: Scaler)?
    private let interruption: Interruption
    private let fail: (String) -> CompositionError

    /// Reads the video of `segments` (a take's, placed on its clock; those without video are passed over) for a
    /// tile in `region`; `first` is the first segment's file, opened and probed by
    /// ``TakeSource/open(_:interruption:fail:)`` with nothing read from it since, when that segment has video.
    /// `fail` turns a reason into the take's error.
    init(
        first: FormatContext?, segments: [TakeSegment], region: NormalizedRect, output: PixelSize,
        scaling: CompositionPlan.Scaling, decoderThreads: Int, interruption: Interruption,
        fail: @escaping (String) -> CompositionError
    ) throws(CompositionError) {
        self.fail = fail
        self.interruption = interruption
        self.segments = segments.filter { $0.video != nil }
        self.decoderThreads = decoderThreads
        guard let shape = self.segments.first, let display = shape.displaySize else {
            throw fail("has no video stream FFmpeg can decode")
        }
        placement = TilePlacement(region: region, output: output, pictureSize: display, scaling: scaling)
        if let first, segments.first?.video != nil { try read(shape, from: first) }
    }

    private let decoderThreads: Int

    /// Opens `segment`'s file again (probed when the composition began) and starts reading its video: from its header
    /// alone when the header names the stream probing found with its size, as an MP4's does (probing decodes
    /// frames), probed again otherwise.
    private func open(_ segment: TakeSegment) throws(CompositionError) {
        guard let stream = segment.video else { return }
        let path = FileSystemPath(segment.file)
        do {
            let format = try TakeSource.open(path, interruption: interruption, fail: segment.fail, probing: false)
            if stream.index < format.streamCount {
                let header = format.stream(at: stream.index)
                if header.codecName == stream.codecName, header.width == stream.width, header.height == stream.height {
                    return try read(segment, from: format)
                }
            }
            try read(segment, from: TakeSource.open(path, interruption: interruption, fail: segment.fail))
        } catch {
            throw TakeSource.failure(error, segment.fail)
        }
    }

    /// Starts reading `segment`'s video from `format`, its file opened (and probed, or its header naming the stream).
    private func read(_ segment: TakeSegment, from format: FormatContext) throws(CompositionError) {
        guard let stream = segment.video else { return }
        do {
            guard stream.index < format.streamCount, format.stream(at: stream.index).codecName == stream.codecName
            else { throw segment.fail("its video stream changed between two reads of the file") }
            format.discardStreams(except: stream.index)
            let decoder = try Decoder(format: format, streamIndex: stream.index, threadCount: decoderThreads)
            let frames = try DecodedStream(format: format, decoder: decoder, streamIndex: stream.index)
            reading = (frames, segment, stream, format.timeBase(ofStream: stream.index).doubleValue)
        } catch {
            throw TakeSource.failure(error, segment.fail)
        }
        frameDuration = 1 / (stream.frameRate.map(\.doubleValue).flatMap { $0 > 0 ? $0 : nil } ?? 30)
        decodedCount = 0
        nextSegment += 1
    }

    /// The frame the tile shows at `time` (take time, seconds) when it is another than at the time asked before, nil
    /// when the tile is unchanged: the last frame whose time is at most `time`; before the first frame's time, the
    /// first frame once `time` reaches 0; after the last, the last. Times must not decrease from call to call.
    func advance(to time: Double) throws(CompositionError) -> Frame? {
        guard !placement.visible.isEmpty else { return nil }
        var shown: Frame?
        while true {
            if pending == nil, !endOfInput { pending = try decodeNext() }
            guard let next = pending else { break }
            // The first frame shows from time 0; a later one from its own time, give or take half a tick of the
            // stream's time base (a container that stores milliseconds rounds 1/30 s to 0.033 or 0.034).
            let slack = next.timeBase / 2 + 1e-7
            guard time + slack >= 0, next.time <= time + slack || (!started && shown == nil) else { break }
            shown = next.frame
            shownStream = next.stream
            pending = nil
        }
        if shown != nil { started = true }
        return shown
    }

    /// Whether the take has no frame left: the last picture ``advance(to:)`` returned is its last for good.
    var isFinished: Bool { endOfInput && pending == nil }

    /// Decodes the next frame, or nil at the end of the take: moves on to the next segment at the end of one.
    private func decodeNext() throws(CompositionError) -> (
        frame: Frame, time: Double, stream: StreamParameters, timeBase: Double
    )? {
        while true {
            guard let current = reading else {
                guard nextSegment < segments.count else {
                    endOfInput = true
                    return nil
                }
                try open(segments[nextSegment])
                continue
            }
            do {
                let frame = try Frame()
                guard try current.frames.next(into: frame) else {
                    reading = nil
                    continue
                }
                decodedCount += 1
                // A frame stamped before its segment's start (B-frames without an edit list) shows from that start.
                let own =
                    frame.timestamp.map { Double($0) * current.timeBase - current.segment.origin }
                    ?? Double(decodedCount - 1) * frameDuration
                let time = current.segment.start + (nextSegment > 1 ? max(0, own) : own)
                return (frame, time, current.stream, current.timeBase)
            } catch {
                throw TakeSource.failure(error, current.segment.fail)
            }
        }
    }

    /// Scales `frame` into `tile`, a 4:2:0 picture of ``TilePlacement/scaledSize``: straight to 4:2:0 for a plain
    /// frame (a turned or mirrored one turned upright first, plane by plane, as the ffmpeg CLI turns it), through the
    /// cover rules' upright SDR picture for an interlaced or HDR one.
    func scale(_ frame: Frame, into tile: Frame) throws(CompositionError) {
        do {
            let stream = shownStream
            var frame = frame
            var orientation = stream?.orientation ?? .upright
            var ratio = stream?.sampleAspectRatio
            if let turned = try frame.turnedUpright(by: orientation) {
                if orientation.transposes { ratio = ratio?.reciprocal }
                frame = turned
                orientation = .upright
            }
            if frame.needsPictureRules(orientation: orientation) {
                let picture = try FrameConverter.makePicture(
                    from: frame, pixelAspectRatio: ratio, orientation: orientation, maximum: .zero,
                    layout: .rgb, untaggedMatrix: .bt709)
                let rgb = try Frame.rgb(width: picture.width, height: picture.height)
                if let plane = rgb.plane(0) {
                    picture.pixels.withUnsafeBufferPointer { pixels in
                        for row in 0..<picture.height {
                            (plane.base + row * plane.stride).update(
                                from: pixels.baseAddress! + row * picture.bytesPerRow, count: picture.bytesPerRow)
                        }
                    }
                }
                try scaler(
                    from: .rgb(width: picture.width, height: picture.height), key: [-1, picture.width, picture.height]
                )
                .scale(rgb, into: tile)
            } else if !frame.halve(into: tile) {
                let key = [
                    frame.width, frame.height, Int(frame.pixelFormat), frame.isFullRange ? 1 : 0, Int(frame.colorSpace),
                ]
                try scaler(from: .source(frame), key: key).scale(frame, into: tile)
            }
        } catch {
            throw fail("cannot scale a frame: \(TakeSource.reason(error))")
        }
    }

    private func scaler(from side: FFmpeg.ScaleSide, key: [Int]) throws -> Scaler {
        if let scaler, scaler.key == key { return scaler.scaler }
        let size = placement.scaledSize
        let made = try Scaler(from: side, to: .yuv420(width: size.width, height: size.height))
        scaler = (key, made)
        return made
    }
}

import Foundation
import MediaCore
import Pixels

/// One take's pictures on their way to its tile: decodes the take in order, picks the frame shown at each output
/// frame's time and scales it to the tile, and holds it after the take's last frame (the hold policy: a shorter take
/// shows its last frame until the end).
///
/// Memory: the decoder's frames and one decoded frame waiting, whatever the take's length; the scaled pictures are
/// the feed's (``TileSlots``).
final class VideoTrack {
    let placement: TilePlacement
    private let frames: DecodedStream
    private let timeBase: Double
    /// The take time of the file's first instant (the container's start time).
    private let origin: Double
    private let orientation: Orientation
    private let pixelAspectRatio: Rational?
    private let frameDuration: Double
    /// The next decoded frame, not shown yet, and its take time.
    private var pending: (frame: Frame, time: Double)?
    private var decodedCount = 0
    private var endOfInput = false
    /// Whether a frame has been shown.
    private var started = false
    private var scaler: (key: [Int], scaler: Scaler)?
    private let fail: (String) -> CompositionError

    /// Reads the video `stream` of `format` (opened and probed by ``TakeSource/open(_:interruption:fail:)``, nothing
    /// read from it since) for a tile in `region`; `fail` turns a reason into the take's error.
    init(
        format: FormatContext, stream: StreamParameters, region: NormalizedRect, output: PixelSize,
        scaling: CompositionPlan.Scaling, decoderThreads: Int, fail: @escaping (String) -> CompositionError
    ) throws(CompositionError) {
        self.fail = fail
        do {
            let decoder = try Decoder(format: format, streamIndex: stream.index, threadCount: decoderThreads)
            frames = try DecodedStream(format: format, decoder: decoder, streamIndex: stream.index)
        } catch {
            throw TakeSource.failure(error, fail)
        }
        timeBase = format.timeBase(ofStream: stream.index).doubleValue
        origin = format.startTime ?? 0
        orientation = stream.orientation
        pixelAspectRatio = stream.sampleAspectRatio
        frameDuration = 1 / (stream.frameRate.map(\.doubleValue).flatMap { $0 > 0 ? $0 : nil } ?? 30)
        let display = FrameConverter.sizes(
            frameWidth: stream.width, frameHeight: stream.height, pixelAspectRatio: stream.sampleAspectRatio,
            rotation: stream.orientation.rotation, maximum: .zero
        ).output
        placement = TilePlacement(region: region, output: output, pictureSize: display, scaling: scaling)
    }

    /// The frame the tile shows at `time` (take time, seconds) when it is another than at the time asked before, nil
    /// when the tile is unchanged: the last frame whose time is at most `time`; before the first frame's time, the
    /// first frame once `time` reaches 0; after the last, the last. Times must not decrease from call to call.
    func advance(to time: Double) throws(CompositionError) -> Frame? {
        let slack = timeBase / 2 + 1e-7
        guard !placement.visible.isEmpty, time + slack >= 0 else { return nil }
        var shown: Frame?
        while true {
            if pending == nil, !endOfInput { pending = try decodeNext() }
            guard let next = pending else { break }
            // The first frame shows from time 0; a later one from its own time, give or take half a tick of the
            // stream's time base (a container that stores milliseconds rounds 1/30 s to 0.033 or 0.034).
            guard next.time <= time + slack || (!started && shown == nil) else { break }
            shown = next.frame
            pending = nil
        }
        if shown != nil { started = true }
        return shown
    }

    /// Whether the take has no frame left: the last picture ``advance(to:)`` returned is its last for good.
    var isFinished: Bool { endOfInput && pending == nil }

    /// Decodes the next frame, or nil at the end of the take.
    private func decodeNext() throws(CompositionError) -> (frame: Frame, time: Double)? {
        do {
            let frame = try Frame()
            guard try frames.next(into: frame) else {
                endOfInput = true
                return nil
            }
            decodedCount += 1
            let time =
                frame.timestamp.map { Double($0) * timeBase - origin } ?? Double(decodedCount - 1) * frameDuration
            return (frame, time)
        } catch {
            throw TakeSource.failure(error, fail)
        }
    }

    /// Scales `frame` into `tile`, a 4:2:0 picture of ``TilePlacement/scaledSize``: straight to 4:2:0 for a plain
    /// frame, through the cover rules' upright SDR picture for a turned, mirrored, interlaced or HDR one.
    func scale(_ frame: Frame, into tile: Frame) throws(CompositionError) {
        do {
            if frame.needsPictureRules(orientation: orientation) {
                let picture = try FrameConverter.makePicture(
                    from: frame, pixelAspectRatio: pixelAspectRatio, orientation: orientation, maximum: .zero,
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

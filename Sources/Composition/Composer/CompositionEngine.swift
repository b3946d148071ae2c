import Foundation
import MediaCore
import Pixels
import Synchronization

/// A flag a composition checks between frames and FFmpeg checks during blocking reads.
final class CancellationFlag: Sendable {
    private let value = Atomic<Bool>(false)

    func cancel() { value.store(true, ordering: .relaxed) }

    var isCancelled: Bool { value.load(ordering: .relaxed) }
}

/// One composition, start to finish, on the calling thread: opens the takes (each take's video then decodes and
/// scales on a thread of its own, a ``TileFeed``), so a bad take fails before anything is written; then, frame by
/// frame, draws the tiles' pictures over the background straight into the encoder's frame, mixes the sound, and
/// encodes both. The output goes to a temporary file beside it, renamed into place only when complete.
enum CompositionEngine {
    static func run(
        _ proposed: CompositionPlan, to output: URL, threadCount: Int, cancellation: CancellationFlag,
        progress: ((CompositionProgress) -> Void)?
    ) throws(CompositionError) -> CompositionResult {
        let began = Date()
        let plan: CompositionPlan
        do {
            plan = try proposed.validated()
        } catch {
            throw CompositionError(.plan, error.description)
        }
        let temporary = try OutputFile.temporaryPath(for: output, inputs: plan.takes.map(\.file))
        // Whatever happens here, every feed's thread is told to stop (it may be waiting for room or for a slot) and
        // has ended, its take closed, before the result is reported.
        let stopping = CancellationFlag()
        let shouldStop = { @Sendable in cancellation.isCancelled || stopping.isCancelled }
        var feeds: [TileFeed] = []
        defer {
            stopping.cancel()
            for feed in feeds { feed.stop() }
        }
        do {
            let origin = plan.timelineOrigin
            // Decoders share the cores with each other and with the encoder: frame threads only for a lone take.
            let decoderThreads = max(
                1, min(4, ProcessInfo.processInfo.activeProcessorCount / max(1, 2 * plan.takes.count)))
            var sources: [TakeSource] = []
            var tiles: [(source: TakeSource, feed: TileFeed)] = []
            for (order, take) in plan.takes.enumerated() {
                if cancellation.isCancelled { throw CompositionError.cancelled }
                // The context that probed the take reads its video: the take's feed starts decoding it at once, while
                // the next takes are opened.
                let input = try TakeSource.probe(take, order: order, shouldStop: shouldStop)
                let source = try TakeSource(
                    take: take, order: order, origin: origin, streams: input.streams, container: input.formatName,
                    startTime: input.startTime,
                    length: input.duration, shouldStop: shouldStop)
                sources.append(source)
                guard let stream = source.videoStream else { continue }
                input.discardStreams(except: stream.index)
                let feed = TileFeed(
                    input: input, stream: stream, region: take.region, output: plan.size, scaling: take.scaling,
                    offset: source.offset, frameRate: plan.frameRate, decoderThreads: decoderThreads,
                    shouldStop: shouldStop, fail: source.fail)
                feeds.append(feed)
                tiles.append((source, feed))
            }
            let duration = sources.map { $0.offset + $0.duration }.max() ?? 0
            guard duration <= CompositionPlan.maximumDuration else {
                throw CompositionError(
                    .plan,
                    "the output would last \(Int(duration.rounded(.up))) s: refused, an output may last at most "
                        + "\(Int(CompositionPlan.maximumDuration)) s")
            }
            let frameCount = max(1, plan.frameRate.frameCount(for: duration))
            let sampleRate = CompositionPlan.AudioSettings.sampleRate
            let sampleCount = Int((duration * Double(sampleRate)).rounded())
            // Every take's video opens (in parallel) before anything is written; the first failure, in plan order,
            // is the composition's.
            var layers: [TileLayer] = []
            for (source, feed) in tiles {
                switch feed.next() {
                case .opened(let slots):
                    layers.append(TileLayer(source: source, feed: feed, slots: slots))
                case .failure(let error):
                    throw error
                case .picture, .unchanged, .end:
                    throw CompositionError.cancelled
                }
            }
            layers.sort { ($0.source.zIndex, $0.source.order) < ($1.source.zIndex, $1.source.order) }
            let mixing = sources.filter { $0.audio != nil }
            let background = YUVColor(plan.background)
            // Tiles that cover the whole frame (a grid) leave no background to draw while each shows a picture.
            let showing = layers.filter { !$0.slots.placement.visible.isEmpty }
            let covering = Compositor.cover(showing.map(\.slots.placement.visible), plan.size)

            var finished = false
            defer { if !finished { OutputFile.remove(temporary) } }
            let video = try Encoder.h264(
                width: plan.size.width, height: plan.size.height, frames: plan.frameRate.frames,
                perSeconds: plan.frameRate.seconds, crf: plan.video.constantRateFactor, preset: plan.video.preset,
                threadCount: threadCount)
            let audio = try Encoder.aac(sampleRate: sampleRate, channels: 2, bitRate: plan.audio.bitRate)
            let muxer = try Muxer(path: FileSystemPath(temporary))
            let videoStream = try muxer.addStream(for: video)
            let audioStream = try muxer.addStream(for: audio)
            do {
                try muxer.start(faststart: true)
            } catch {
                throw CompositionError(.output, "cannot write \(output.path): \(TakeSource.reason(error))")
            }
            let packet = try Packet()
            func drain(_ encoder: Encoder, stream: Int) throws {
                while true {
                    packet.clear()
                    guard try encoder.receive(into: packet) == .done else { return }
                    // Each picture lasts one tick of the video encoder's time base (one frame); without it the MP4
                    // would give the last one no time, and players would drop it.
                    if stream == videoStream, packet.duration == nil { packet.setDuration(1) }
                    try muxer.write(packet, stream: stream)
                }
            }
            let picture = try Frame.yuv420(width: plan.size.width, height: plan.size.height)
            let chunk = audio.frameSize > 0 ? audio.frameSize : 1024
            var pendingSound: [Float] = []
            var samplesEncoded = 0
            var samplesMixed = 0
            var limited = 0
            func encodeSound(final: Bool) throws {
                while pendingSound.count >= 2 * chunk || (final && !pendingSound.isEmpty) {
                    let count = min(chunk, pendingSound.count / 2)
                    let frame = try Frame.planarFloatAudio(samples: count, channels: 2, sampleRate: sampleRate)
                    Compositor.deinterleave(pendingSound[0..<(2 * count)], into: frame)
                    pendingSound.removeFirst(2 * count)
                    frame.presentationTimestamp = Int64(samplesEncoded)
                    samplesEncoded += count
                    _ = try audio.send(frame)
                    try drain(audio, stream: audioStream)
                }
            }
            for index in 0..<frameCount {
                if cancellation.isCancelled { throw CompositionError.cancelled }
                for layer in layers.indices { try layers[layer].advance() }
                // libx264 copies each picture it is sent, so the one frame is drawn again for every output frame.
                try picture.makeWritable()
                if !covering || showing.contains(where: { !$0.isShowing }) {
                    Compositor.fill(picture, with: background)
                }
                for layer in layers { layer.draw(into: picture) }
                picture.presentationTimestamp = Int64(index)
                _ = try video.send(picture)
                try drain(video, stream: videoStream)
                // The sound up to the end of this frame (all of it with the last frame).
                let soundEnd =
                    index == frameCount - 1
                    ? sampleCount
                    : min(sampleCount, Int((plan.frameRate.time(ofFrame: index + 1) * Double(sampleRate)).rounded()))
                var mix = StereoMixBuffer(frameCount: max(0, soundEnd - samplesMixed))
                if mix.frameCount > 0 {
                    for source in mixing { try source.audio?.mix(into: &mix, from: samplesMixed) }
                }
                limited += mix.limit()
                samplesMixed = max(samplesMixed, soundEnd)
                pendingSound += mix.samples
                try encodeSound(final: false)
                if let progress {
                    let elapsed = Date().timeIntervalSince(began)
                    progress(
                        CompositionProgress(
                            frame: index + 1, frameCount: frameCount,
                            framesPerSecond: elapsed > 0 ? Double(index + 1) / elapsed : 0))
                }
            }
            try encodeSound(final: true)
            _ = try video.send(nil)
            try drain(video, stream: videoStream)
            _ = try audio.send(nil)
            try drain(audio, stream: audioStream)
            do {
                try muxer.finish()
            } catch {
                throw CompositionError(.output, "cannot write \(output.path): \(TakeSource.reason(error))")
            }
            if cancellation.isCancelled { throw CompositionError.cancelled }
            try OutputFile.rename(temporary, to: output)
            finished = true
            return CompositionResult(
                output: output, duration: duration, frameCount: frameCount,
                secondsTaken: Date().timeIntervalSince(began), limitedSampleCount: limited)
        } catch let error as CompositionError {
            throw error
        } catch let error as FFmpegError {
            if error == .exit || cancellation.isCancelled { throw .cancelled }
            if error == .encoderNotFound {
                throw CompositionError(.encoding, "this FFmpeg has no libx264 or AAC encoder")
            }
            throw CompositionError(.output, "cannot write \(output.path): \(TakeSource.reason(error))")
        } catch {
            throw CompositionError(.output, "cannot write \(output.path): \(TakeSource.reason(error))")
        }
    }
}

/// One take's tile while composing: the slot of the picture its feed last handed over, drawn at its placement.
struct TileLayer {
    let source: TakeSource
    let feed: TileFeed
    let slots: TileSlots
    /// The slot of the picture shown now, nil before the take's first frame.
    private var shown: Int?
    private var ended = false

    init(source: TakeSource, feed: TileFeed, slots: TileSlots) {
        self.source = source
        self.feed = feed
        self.slots = slots
    }

    /// Takes the feed's word for the next output frame (handing the slot it replaces back to the feed); after the
    /// feed's end, the last picture holds.
    mutating func advance() throws(CompositionError) {
        guard !ended else { return }
        switch feed.next() {
        case .picture(let slot):
            if let shown { feed.release(shown) }
            shown = slot
        case .unchanged: break
        case .end: ended = true
        case .failure(let error): throw error
        case .opened: break
        }
    }

    /// Whether the tile shows a picture (the take has started).
    var isShowing: Bool { shown != nil }

    /// Draws the picture shown now (if any) into `picture`.
    func draw(into picture: Frame) {
        if let shown { slots.draw(shown, into: picture) }
    }
}

/// A colour in 8-bit BT.709 limited-range Y'CbCr.
struct YUVColor {
    let y: UInt8
    let cb: UInt8
    let cr: UInt8

    init(_ color: RGBColor) {
        let r = Double(color.red) / 255
        let g = Double(color.green) / 255
        let b = Double(color.blue) / 255
        func byte(_ value: Double) -> UInt8 { UInt8(min(255, max(0, value.rounded()))) }
        y = byte(16 + 219 * (0.2126 * r + 0.7152 * g + 0.0722 * b))
        cb = byte(128 + 224 * (-0.114572 * r - 0.385428 * g + 0.5 * b))
        cr = byte(128 + 224 * (0.5 * r - 0.454153 * g - 0.045847 * b))
    }
}

/// Writes the background and the sound into the encoders' frames.
enum Compositor {
    /// Fills `frame`, a 4:2:0 picture, with `color`.
    static func fill(_ frame: Frame, with color: YUVColor) {
        for index in 0..<3 {
            guard let plane = frame.plane(index) else { continue }
            let width = index == 0 ? frame.width : frame.width / 2
            let rows = index == 0 ? frame.height : frame.height / 2
            let value = index == 0 ? color.y : index == 1 ? color.cb : color.cr
            for row in 0..<rows {
                (plane.base + row * plane.stride).update(repeating: value, count: width)
            }
        }
    }

    /// Whether `rectangles` together cover every pixel of a picture of `size`: true when, cut to the picture, no
    /// two overlap and their areas add up to the picture's (a grid's tiles). Rectangles that overlap count as not
    /// covering it, so the background is drawn under them as always.
    static func cover(_ rectangles: [PixelRect], _ size: PixelSize) -> Bool {
        let cut = rectangles.map { rectangle in
            let left = max(0, rectangle.x)
            let top = max(0, rectangle.y)
            let right = min(size.width, rectangle.x + rectangle.width)
            let bottom = min(size.height, rectangle.y + rectangle.height)
            return PixelRect(x: left, y: top, width: max(0, right - left), height: max(0, bottom - top))
        }
        guard cut.reduce(0, { $0 + $1.width * $1.height }) == size.width * size.height else { return false }
        for (index, first) in cut.enumerated() {
            for second in cut[(index + 1)...]
            where first.x < second.x + second.width && second.x < first.x + first.width
                && first.y < second.y + second.height && second.y < first.y + first.height
            {
                return false
            }
        }
        return true
    }

    /// Writes interleaved stereo `samples` into `frame`'s two planar float channels.
    static func deinterleave(_ samples: ArraySlice<Float>, into frame: Frame) {
        guard let left = frame.plane(0), let right = frame.plane(1) else { return }
        let leftSamples = UnsafeMutableRawPointer(left.base).assumingMemoryBound(to: Float.self)
        let rightSamples = UnsafeMutableRawPointer(right.base).assumingMemoryBound(to: Float.self)
        samples.withUnsafeBufferPointer { buffer in
            for index in 0..<(buffer.count / 2) {
                leftSamples[index] = buffer[2 * index]
                rightSamples[index] = buffer[2 * index + 1]
            }
        }
    }
}

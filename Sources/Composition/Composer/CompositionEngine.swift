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

/// What the composing thread hands the encoding thread.
enum ComposedItem: Sendable {
    /// The takes are open: the output's length.
    case header(frameCount: Int, duration: Double, sampleCount: Int)
    /// One output frame (4:2:0 planes, tightly packed: Y, then Cb, then Cr) and the mix up to its end (interleaved
    /// stereo), with the number of samples the knee bent.
    case frame(picture: [UInt8], sound: [Float], limited: Int)
    /// Every frame was handed over.
    case end
    /// The composing side failed (a take, or cancellation).
    case failure(CompositionError)
}

/// One composition, start to finish: one thread opens, decodes and composes the takes (so a bad take fails before
/// anything is written) while the calling thread encodes, two frames apart; the output goes to a temporary file
/// beside it, renamed into place only when complete.
enum CompositionEngine {
    /// Output frames composed ahead of the encoder (each `width * height * 3 / 2` bytes).
    static let framesInFlight = 3

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
        let temporary = try OutputFile.temporaryPath(for: output)
        let queue = FrameQueue<ComposedItem>(capacity: framesInFlight)
        let composed = DispatchSemaphore(value: 0)
        let composing = Thread {
            compose(plan, into: queue, cancellation: cancellation)
            composed.signal()
        }
        composing.name = "Composition"
        composing.start()
        // Whatever happens here, the composing thread is told to stop (it may be waiting for room) and has ended, its
        // takes closed, before the result is reported.
        defer {
            queue.close()
            composed.wait()
        }
        let frameCount: Int
        let duration: Double
        switch queue.pop() {
        case .header(let frames, let length, _):
            frameCount = frames
            duration = length
        case .failure(let error):
            throw error
        case .frame, .end:
            throw CompositionError.cancelled
        }
        var finished = false
        defer { if !finished { OutputFile.remove(temporary) } }
        let sampleRate = CompositionPlan.AudioSettings.sampleRate
        do {
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
            var index = 0
            loop: while true {
                switch queue.pop() {
                case .frame(let pixels, let sound, let bent):
                    try picture.makeWritable()
                    Compositor.copy(pixels, into: picture)
                    picture.presentationTimestamp = Int64(index)
                    _ = try video.send(picture)
                    try drain(video, stream: videoStream)
                    pendingSound += sound
                    limited += bent
                    try encodeSound(final: false)
                    index += 1
                    if let progress {
                        let elapsed = Date().timeIntervalSince(began)
                        progress(
                            CompositionProgress(
                                frame: index, frameCount: frameCount,
                                framesPerSecond: elapsed > 0 ? Double(index) / elapsed : 0))
                    }
                case .end:
                    break loop
                case .failure(let error):
                    throw error
                case .header:
                    break
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

    /// The composing thread: opens the takes, starts a ``TileFeed`` per take with video (each decodes and scales its
    /// take on a thread of its own), then composes every output frame from the feeds' tiles, mixes its sound, and
    /// hands both to `queue`, ending with `.end` or `.failure`. Stops early when the encoding side closes the queue;
    /// every feed's thread has ended when it returns.
    static func compose(_ plan: CompositionPlan, into queue: FrameQueue<ComposedItem>, cancellation: CancellationFlag) {
        var feeds: [TileFeed] = []
        defer { for feed in feeds { feed.stop() } }
        do {
            let shouldStop = { @Sendable in cancellation.isCancelled || queue.isClosed }
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
                    take: take, order: order, origin: origin, streams: input.streams, length: input.duration,
                    shouldStop: shouldStop)
                sources.append(source)
                guard let stream = source.videoStream else { continue }
                let feed = TileFeed(
                    input: input, stream: stream, region: take.region, output: plan.size, scaling: take.scaling,
                    offset: source.offset, frameRate: plan.frameRate, decoderThreads: decoderThreads,
                    shouldStop: shouldStop, fail: source.fail)
                feeds.append(feed)
                tiles.append((source, feed))
            }
            let duration = sources.map { $0.offset + $0.duration }.max() ?? 0
            let frameCount = max(1, plan.frameRate.frameCount(for: duration))
            let sampleRate = CompositionPlan.AudioSettings.sampleRate
            let sampleCount = Int((duration * Double(sampleRate)).rounded())
            // Every take's video opens (in parallel) before anything is written; the first failure, in plan order,
            // is the composition's.
            var layers: [TileLayer] = []
            for (source, feed) in tiles {
                switch feed.next() {
                case .opened(let placement):
                    layers.append(TileLayer(source: source, feed: feed, placement: placement))
                case .failure(let error):
                    throw error
                case .picture, .unchanged, .end:
                    throw CompositionError.cancelled
                }
            }
            layers.sort { ($0.source.zIndex, $0.source.order) < ($1.source.zIndex, $1.source.order) }
            guard queue.push(.header(frameCount: frameCount, duration: duration, sampleCount: sampleCount)) else {
                return
            }
            let mixing = sources.filter { $0.audio != nil }
            let background = YUVColor(plan.background)
            var samplesMixed = 0
            for index in 0..<frameCount {
                if cancellation.isCancelled { throw CompositionError.cancelled }
                for layer in layers.indices { try layers[layer].advance() }
                var canvas = PackedPicture(size: plan.size, filledWith: background)
                for layer in layers {
                    if let pixels = layer.pixels { canvas.draw(pixels, layer.placement) }
                }
                // The sound up to the end of this frame (all of it with the last frame).
                let soundEnd =
                    index == frameCount - 1
                    ? sampleCount
                    : min(sampleCount, Int((plan.frameRate.time(ofFrame: index + 1) * Double(sampleRate)).rounded()))
                var mix = StereoMixBuffer(frameCount: max(0, soundEnd - samplesMixed))
                if mix.frameCount > 0 {
                    for source in mixing { try source.audio?.mix(into: &mix, from: samplesMixed) }
                }
                let bent = mix.limit()
                samplesMixed = max(samplesMixed, soundEnd)
                guard queue.push(.frame(picture: canvas.bytes, sound: mix.samples, limited: bent)) else { return }
            }
            queue.push(.end)
        } catch let error as CompositionError {
            queue.push(.failure(error))
        } catch {
            queue.push(.failure(CompositionError(.output, TakeSource.reason(error))))
        }
    }
}

/// One take's tile in the composing thread: the picture its feed last handed over, drawn at its placement.
struct TileLayer {
    let source: TakeSource
    let feed: TileFeed
    let placement: TilePlacement
    /// The visible part of the tile shown now (packed 4:2:0), nil before the take's first frame.
    private(set) var pixels: [UInt8]?
    private var ended = false

    init(source: TakeSource, feed: TileFeed, placement: TilePlacement) {
        self.source = source
        self.feed = feed
        self.placement = placement
    }

    /// Takes the feed's word for the next output frame; after the feed's end, the last picture holds.
    mutating func advance() throws(CompositionError) {
        guard !ended else { return }
        switch feed.next() {
        case .picture(let picture): pixels = picture
        case .unchanged: break
        case .end: ended = true
        case .failure(let error): throw error
        case .opened: break
        }
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

/// An output picture being composed, in Swift memory: 8-bit 4:2:0 planes packed without padding (Y, Cb, Cr), so it
/// can be handed to the encoding thread as a value.
struct PackedPicture {
    let width: Int
    let height: Int
    private(set) var bytes: [UInt8]

    /// A picture of `size` filled with `color`.
    init(size: PixelSize, filledWith color: YUVColor) {
        width = size.width
        height = size.height
        let lumaCount = width * height
        bytes = [UInt8](unsafeUninitializedCapacity: lumaCount * 3 / 2) { buffer, count in
            let base = buffer.baseAddress!
            base.initialize(repeating: color.y, count: lumaCount)
            (base + lumaCount).initialize(repeating: color.cb, count: lumaCount / 4)
            (base + lumaCount + lumaCount / 4).initialize(repeating: color.cr, count: lumaCount / 4)
            count = lumaCount * 3 / 2
        }
    }

    /// Where plane `index` starts in `bytes`, and its width and height.
    func layout(ofPlane index: Int) -> (offset: Int, width: Int, height: Int) {
        let lumaCount = width * height
        switch index {
        case 0: return (0, width, height)
        case 1: return (lumaCount, width / 2, height / 2)
        default: return (lumaCount + lumaCount / 4, width / 2, height / 2)
        }
    }

    /// Copies `pixels`, the visible part of a tile packed as 4:2:0 planes, to where `placement` shows it (even
    /// offsets and sizes: chroma is exact).
    mutating func draw(_ pixels: [UInt8], _ placement: TilePlacement) {
        let visible = placement.visible
        guard !visible.isEmpty else { return }
        var sourceOffset = 0
        let planes = (0..<3).map(layout(ofPlane:))
        pixels.withUnsafeBufferPointer { source in
            bytes.withUnsafeMutableBufferPointer { buffer in
                for index in 0..<3 {
                    let plane = planes[index]
                    let shift = index == 0 ? 0 : 1
                    let count = visible.width >> shift
                    let rows = visible.height >> shift
                    let base =
                        buffer.baseAddress! + plane.offset + (visible.y >> shift) * plane.width
                        + (visible.x >> shift)
                    for row in 0..<rows {
                        (base + row * plane.width).update(
                            from: source.baseAddress! + sourceOffset + row * count, count: count)
                    }
                    sourceOffset += count * rows
                }
            }
        }
    }
}

/// Copies composed pictures and sound into the encoders' frames.
enum Compositor {
    /// Copies packed 4:2:0 `pixels` into `frame`'s padded planes.
    static func copy(_ pixels: [UInt8], into frame: Frame) {
        let picture = (width: frame.width, height: frame.height)
        let lumaCount = picture.width * picture.height
        pixels.withUnsafeBufferPointer { buffer in
            for index in 0..<3 {
                guard let target = frame.plane(index) else { continue }
                let width = index == 0 ? picture.width : picture.width / 2
                let rows = index == 0 ? picture.height : picture.height / 2
                let offset = index == 0 ? 0 : index == 1 ? lumaCount : lumaCount + lumaCount / 4
                for row in 0..<rows {
                    (target.base + row * target.stride).update(
                        from: buffer.baseAddress! + offset + row * width, count: width)
                }
            }
        }
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

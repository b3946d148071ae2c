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

/// One composition, start to finish, on the calling thread: opens every take (so a bad one fails before anything is
/// written), encodes into a temporary file beside the output, and renames it into place only when it is complete.
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
        let temporary = try OutputFile.temporaryPath(for: output)
        let interruption = Interruption { cancellation.isCancelled }
        let origin = plan.timelineOrigin
        var sources: [TakeSource] = []
        for (order, take) in plan.takes.enumerated() {
            if cancellation.isCancelled { throw .cancelled }
            sources.append(
                try TakeSource(take: take, order: order, plan: plan, origin: origin, interruption: interruption))
        }
        let duration = sources.map { $0.offset + $0.duration }.max() ?? 0
        let frameCount = max(1, plan.frameRate.frameCount(for: duration))
        let sampleRate = CompositionPlan.AudioSettings.sampleRate
        let sampleCount = Int((duration * Double(sampleRate)).rounded())
        let drawOrder = sources.filter { $0.video != nil }.sorted { ($0.zIndex, $0.order) < ($1.zIndex, $1.order) }
        let mixing = sources.filter { $0.audio != nil }

        var finished = false
        defer { if !finished { OutputFile.remove(temporary) } }
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
                    try muxer.write(packet, stream: stream)
                }
            }
            let picture = try Frame.yuv420(width: plan.size.width, height: plan.size.height)
            let background = YUVColor(plan.background)
            let chunk = audio.frameSize > 0 ? audio.frameSize : 1024
            let sound = try Frame.planarFloatAudio(samples: chunk, channels: 2, sampleRate: sampleRate)
            var samplesWritten = 0
            var limited = 0
            for index in 0..<frameCount {
                if cancellation.isCancelled { throw CompositionError.cancelled }
                let time = plan.frameRate.time(ofFrame: index)
                for source in drawOrder { try source.video?.advance(to: time - source.offset) }
                try picture.makeWritable()
                Compositor.fill(picture, with: background)
                for source in drawOrder {
                    if let track = source.video, let tile = track.tile {
                        Compositor.draw(tile, track.placement, on: picture)
                    }
                }
                picture.presentationTimestamp = Int64(index)
                _ = try video.send(picture)
                try drain(video, stream: videoStream)

                // The sound up to the end of this frame (all of it after the last frame).
                let soundEnd =
                    index == frameCount - 1
                    ? sampleCount
                    : min(sampleCount, Int((plan.frameRate.time(ofFrame: index + 1) * Double(sampleRate)).rounded()))
                while samplesWritten < soundEnd, samplesWritten + chunk <= soundEnd || index == frameCount - 1 {
                    let count = min(chunk, sampleCount - samplesWritten)
                    var mix = StereoMixBuffer(frameCount: count)
                    for source in mixing { try source.audio?.mix(into: &mix, from: samplesWritten) }
                    limited += mix.limit()
                    let frame =
                        count == chunk
                        ? sound
                        : try Frame.planarFloatAudio(
                            samples: count, channels: 2, sampleRate: sampleRate)
                    try frame.makeWritable()
                    Compositor.deinterleave(mix, into: frame)
                    frame.presentationTimestamp = Int64(samplesWritten)
                    _ = try audio.send(frame)
                    try drain(audio, stream: audioStream)
                    samplesWritten += count
                }
                if let progress {
                    let elapsed = Date().timeIntervalSince(began)
                    progress(
                        CompositionProgress(
                            frame: index + 1, frameCount: frameCount,
                            framesPerSecond: elapsed > 0 ? Double(index + 1) / elapsed : 0))
                }
            }
            _ = try video.send(nil)
            try drain(video, stream: videoStream)
            _ = try audio.send(nil)
            try drain(audio, stream: audioStream)
            do {
                try muxer.finish()
            } catch {
                throw CompositionError(.output, "cannot write \(output.path): \(TakeSource.reason(error))")
            }
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

/// The pixel work of composing: filling the background, copying a tile's window into the frame, and laying the mix out
/// as the encoder's planes.
enum Compositor {
    static func fill(_ frame: Frame, with color: YUVColor) {
        for (index, value) in [color.y, color.cb, color.cr].enumerated() {
            guard let plane = frame.plane(index) else { continue }
            let rows = index == 0 ? frame.height : (frame.height + 1) / 2
            let width = index == 0 ? frame.width : (frame.width + 1) / 2
            for row in 0..<rows { (plane.base + row * plane.stride).update(repeating: value, count: width) }
        }
    }

    /// Copies the window of `tile` that `placement` shows into `frame` (even offsets and sizes: chroma is exact).
    static func draw(_ tile: Frame, _ placement: TilePlacement, on frame: Frame) {
        let visible = placement.visible
        guard !visible.isEmpty else { return }
        for index in 0..<3 {
            guard let source = tile.plane(index), let target = frame.plane(index) else { continue }
            let shift = index == 0 ? 0 : 1
            let width = visible.width >> shift
            let rows = visible.height >> shift
            let sourceX = placement.cropOrigin.x >> shift
            let sourceY = placement.cropOrigin.y >> shift
            let targetX = visible.x >> shift
            let targetY = visible.y >> shift
            for row in 0..<rows {
                (target.base + (targetY + row) * target.stride + targetX).update(
                    from: source.base + (sourceY + row) * source.stride + sourceX, count: width)
            }
        }
    }

    /// Writes the interleaved stereo `mix` into `frame`'s two planar float channels.
    static func deinterleave(_ mix: StereoMixBuffer, into frame: Frame) {
        guard let left = frame.plane(0), let right = frame.plane(1) else { return }
        let leftSamples = UnsafeMutableRawPointer(left.base).assumingMemoryBound(to: Float.self)
        let rightSamples = UnsafeMutableRawPointer(right.base).assumingMemoryBound(to: Float.self)
        mix.samples.withUnsafeBufferPointer { samples in
            for index in 0..<mix.frameCount {
                leftSamples[index] = samples[2 * index]
                rightSamples[index] = samples[2 * index + 1]
            }
        }
    }
}

import Foundation
import MediaCore
import Pixels

/// One composition, start to finish, on the calling thread: opens the takes (each take's video then decodes and
/// scales on a thread of its own, a ``TileFeed``), so a bad take fails before anything is written; then, frame by
/// frame, draws the tiles' pictures over the background straight into the encoder's frame, mixes the sound, and
/// encodes both. The output goes to a temporary file beside it, renamed into place only when complete.
enum CompositionEngine {
    static func run(
        _ proposed: CompositionPlan, to output: URL, threadCount: Int, cancellation: CancellationToken,
        progress: ((CompositionProgress) -> Void)?
    ) throws(CompositionError) -> CompositionResult {
        let began = Date()
        let plan: CompositionPlan
        do {
            plan = try proposed.validated()
        } catch {
            throw CompositionError(.plan, error.description)
        }
        try checkOtherInputs(of: plan, against: output)
        // Removed when not committed: an error, a cancellation, the end of the process.
        let file = try OutputFile.create(for: output, takes: plan.takes.map(\.file))
        // The muxer writes the temporary file by its name: the writer lives until the end, whatever path is taken.
        defer { withExtendedLifetime(file) {} }
        let takes = try OpenedTakes(plan, cancellation: cancellation)
        defer { takes.stop() }
        do {
            let duration = takes.duration
            guard duration <= CompositionPlan.maximumDuration else {
                throw CompositionError(
                    .plan,
                    "the output would last \(Int(duration.rounded(.up))) s: refused, an output may last at most "
                        + "\(Int(CompositionPlan.maximumDuration)) s")
            }
            if let problem = plan.target?.durationProblem(duration) { throw CompositionError(.plan, problem) }
            let frameCount = max(1, plan.frameRate.frameCount(for: duration))
            var stack = TileStack(takes.layers, background: plan.background, size: plan.size)
            var mixer = SoundMixer(
                takes.sources, music: takes.music, duration: duration, frameRate: plan.frameRate,
                frameCount: frameCount)
            let streams = try OutputStreams(
                plan, duration: duration, temporary: file.temporary, output: output, threadCount: threadCount)
            let picture = try Frame.yuv420(width: plan.size.width, height: plan.size.height)
            for index in 0..<frameCount {
                if cancellation.isCancelled { throw CompositionError.cancelled }
                try stack.advance()
                // libx264 copies each picture it is sent, so the one frame is drawn again for every output frame.
                try picture.makeWritable()
                stack.draw(into: picture)
                try streams.write(picture, index: index, sound: try mixer.sound(throughFrame: index))
                let elapsed = Date().timeIntervalSince(began)
                progress?(
                    CompositionProgress(
                        frame: index + 1, frameCount: frameCount,
                        framesPerSecond: elapsed > 0 ? Double(index + 1) / elapsed : 0))
            }
            try streams.finish()
            if cancellation.isCancelled { throw CompositionError.cancelled }
            try OutputFile.commit(file, output: output)
            return CompositionResult(
                output: output, duration: duration, frameCount: frameCount,
                secondsTaken: Date().timeIntervalSince(began), limitedSampleCount: mixer.limitedSampleCount)
        } catch {
            throw failure(error, output: output, cancellation: cancellation)
        }
    }

    /// Refuses `output` when it is a take's later segment or the soundtrack (the same file under any name: compared
    /// by device and inode), as ``OutputFile/temporaryPath(for:inputs:)`` refuses a take's first file.
    private static func checkOtherInputs(of plan: CompositionPlan, against output: URL) throws(CompositionError) {
        guard let existing = FileIdentity(path: output.path) else { return }
        let others =
            plan.takes.enumerated().flatMap { index, take in take.segments.dropFirst().map { ("take \(index)", $0) } }
            + (plan.soundtrack.map { [("the soundtrack", $0.file)] } ?? [])
        for (owner, file) in others {
            if let identity = FileIdentity(path: file.path),
                (identity.device, identity.inode) == (existing.device, existing.inode)
            {
                throw CompositionError(
                    .output,
                    "cannot write \(output.path): it is a file of \(owner) (\(file.path)); an output never replaces "
                        + "an input")
            }
        }
    }

    /// The composition's error for `error`, thrown while writing `output`.
    private static func failure(
        _ error: any Error, output: URL, cancellation: CancellationToken
    ) -> CompositionError {
        if let error = error as? CompositionError { return error }
        if let error = error as? FFmpegError {
            if error == .exit || cancellation.isCancelled { return .cancelled }
            if error == .encoderNotFound {
                return CompositionError(.encoding, "this FFmpeg has no libx264 or AAC encoder")
            }
        }
        return CompositionError(.output, "cannot write \(output.path): \(TakeSource.reason(error))")
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

/// Covers from one opened input: picks the frame for a requested time (keyframe mode, or
/// decoding forward to the frame shown at that time), steps past dark frames when asked, and
/// converts the result. Several times can be taken from one session without reopening.
///
/// Deliberately not `Sendable`: it owns the input and decoder of one job.
final class CoverSession {
    let input: MediaInput
    let options: CoverOptions
    private let reader: VideoReader
    /// Whether the reader has moved since opening (then every cover starts with a seek).
    private var used = false

    /// A slack for comparing timestamps converted to seconds.
    private static let epsilon = 1e-5

    init(
        input: MediaInput,
        options: CoverOptions,
        checkCancellation: @escaping () throws(ThumbnailError) -> Void
    ) throws(ThumbnailError) {
        try options.validate()
        self.input = input
        self.options = options
        // One thread decodes a lone keyframe fastest; decoding forward to an exact frame can
        // decode a whole group of pictures, where frame threads pay off.
        reader = try VideoReader(
            input: input, threadCount: options.isKeyframeMode ? 1 : 0, checkCancellation: checkCancellation)
    }

    /// The video's length in seconds, when known.
    var duration: Double? { reader.duration }

    /// The cover for `time`.
    func cover(at time: CoverTime) throws(ThumbnailError) -> CoverImage {
        let target = try seconds(for: time)
        reader.forgetProblems()
        var picked = try pick(at: target)
        if options.skipsDarkFrames {
            picked = try skippingDarkFrames(from: picked)
        }
        var warnings = reader.warnings
        if picked.isLast, let duration = reader.duration {
            let end = picked.time + (reader.frameDuration ?? 0)
            let expected = min(target, duration)
            if end < expected - max(reader.frameDuration ?? 0, 0.01) {
                warnings.append(
                    "the file ends at \(Self.format(end)) s although its index says \(Self.format(duration)) s; "
                        + "this is its last decodable frame")
            }
        }
        return try FrameConverter.makeImage(
            from: picked.frame, pixelAspectRatio: input.video.sampleAspectRatio, orientation: input.video.orientation,
            options: options, actualTime: picked.time, warnings: warnings, name: input.path
        )
    }

    /// Seconds from the start for a requested time.
    private func seconds(for time: CoverTime) throws(ThumbnailError) -> Double {
        switch time {
        case .seconds(let seconds):
            guard seconds.isFinite, seconds >= 0 else {
                throw ThumbnailError(.invalidArgument, reason: "\(input.path): time \(seconds) s is not in the video")
            }
            return seconds
        case .fraction(let fraction):
            guard fraction.isFinite, (0...1).contains(fraction) else {
                throw ThumbnailError(.invalidArgument, reason: "\(input.path): fraction \(fraction) is outside 0...1")
            }
            guard let duration = reader.duration else {
                throw ThumbnailError(
                    .invalidArgument,
                    reason: "\(input.path): the duration is unknown, so a fraction of it cannot be placed")
            }
            return fraction * duration
        }
    }

    // MARK: Picking a frame

    /// A chosen frame, its time, and whether it is the last one before the end of the input.
    private struct Picked {
        var frame: Frame
        var time: Double
        var isLast: Bool
    }

    /// The frame for `target` seconds.
    ///
    /// Seeking lands on the keyframe at or before the seek point in indexed containers; MPEG-TS
    /// and other unindexed ones seek by bisecting timestamps and may land after it. When the
    /// first frame decoded starts after `target`, the seek is retried from further back (1, 2,
    /// 4, ... seconds, finally the start), so keyframe mode keeps its "at or before" promise and
    /// exact mode finds the frame shown at `target`.
    private func pick(at target: Double) throws(ThumbnailError) -> Picked {
        let pastEnd = reader.duration.map { target >= $0 } ?? false
        let keyframeMode = options.isKeyframeMode && !pastEnd
        let toleranceBefore = pastEnd ? 0 : options.toleranceBefore
        if !keyframeMode, !pastEnd, options.toleranceAfter > 0, let keyframe = try keyframeWithinTolerance(of: target) {
            return keyframe
        }
        var seekPoint = pastEnd ? (reader.duration ?? target) : target
        var backoff = 1.0
        var seeked = false
        var overshot: Picked?
        while true {
            if used || seekPoint > 0 {
                seeked = reader.seek(to: seekPoint)
            }
            used = true
            let found =
                keyframeMode ? try nextKeyframe() : try decodeForward(to: target, toleranceBefore: toleranceBefore)
            guard let found else { break }
            let landedAfter = found.time > target + Self.epsilon && !found.isLast
            guard landedAfter, seeked, seekPoint > 0 else { return found }
            overshot = overshot ?? found
            seekPoint = max(0, min(seekPoint, target) - backoff)
            backoff *= 2
        }
        if let overshot { return overshot }
        // Nothing decodes from the seek point on: the file ends before it (an index listing
        // data that is missing). Decode from the start to the last frame there is.
        if seeked, reader.seek(to: 0), let last = try decodeForward(to: target, toleranceBefore: 0) {
            return last
        }
        throw reader.decodeFailure()
    }

    /// A keyframe within the tolerances of `target`, decoded alone, when there is one next to it:
    /// the keyframe at or before `target` when it is within ``CoverOptions/toleranceBefore``, else
    /// the one after it when it is within ``CoverOptions/toleranceAfter``. Costs at most two
    /// keyframe decodes, and spares decoding forward from the keyframe before.
    private func keyframeWithinTolerance(of target: Double) throws(ThumbnailError) -> Picked? {
        used = true
        if reader.seek(to: target), let before = try nextKeyframe(),
            before.time <= target + Self.epsilon, before.time >= target - options.toleranceBefore - Self.epsilon
        {
            return before
        }
        if reader.seek(to: target, forward: true), let after = try nextKeyframe(),
            after.time >= target - Self.epsilon, after.time <= target + options.toleranceAfter + Self.epsilon
        {
            return after
        }
        return nil
    }

    /// The next keyframe, decoded alone.
    private func nextKeyframe() throws(ThumbnailError) -> Picked? {
        let frame = try Self.makeFrame()
        guard try reader.nextKeyframe(into: frame) else { return nil }
        return Picked(frame: frame, time: reader.seconds(of: frame) ?? 0, isLast: false)
    }

    /// Decodes forward to the frame shown at `target` (the last one starting at or before it),
    /// or an earlier one within `toleranceBefore`, whichever comes first. The first frame is
    /// taken when it already starts after `target`; at the end of the input, the last frame.
    private func decodeForward(to target: Double, toleranceBefore: Double) throws(ThumbnailError) -> Picked? {
        var current = try Self.makeFrame()
        var previous = try Self.makeFrame()
        var previousTime: Double?
        let frameDuration = reader.frameDuration
        while try reader.nextFrame(into: current) {
            let time =
                reader.seconds(of: current) ?? previousTime.map { $0 + (frameDuration ?? 0) } ?? target
            if time <= target + Self.epsilon {
                // The frame's own duration where the container gives one (variable frame rates),
                // else the stream's average.
                let duration =
                    current.duration.map { VideoReader.seconds(ofUnits: Double($0), timeBase: reader.timeBase) }
                    ?? frameDuration
                let shownAtTarget = duration.map { time + $0 > target + Self.epsilon } ?? false
                if shownAtTarget || time >= target - toleranceBefore - Self.epsilon {
                    return Picked(frame: current, time: time, isLast: false)
                }
                swap(&current, &previous)
                previousTime = time
            } else if let previousTime {
                return Picked(frame: previous, time: previousTime, isLast: false)
            } else {
                return Picked(frame: current, time: time, isLast: false)
            }
        }
        guard let previousTime else { return nil }
        return Picked(frame: previous, time: previousTime, isLast: true)
    }

    /// When `picked` is dark or flat, the first of the following keyframes (up to the limit)
    /// that is not; else the liveliest frame seen.
    private func skippingDarkFrames(from picked: Picked) throws(ThumbnailError) -> Picked {
        guard let statistics = LumaStatistics(picked.frame), statistics.isDarkOrFlat else { return picked }
        var best = picked
        var bestLiveliness = statistics.liveliness
        var candidate = try Self.makeFrame()
        for _ in 0..<options.darkFrameLimit {
            guard try reader.nextKeyframe(into: candidate) else { break }
            let time = reader.seconds(of: candidate) ?? best.time
            guard let measured = LumaStatistics(candidate) else { continue }
            if !measured.isDarkOrFlat {
                return Picked(frame: candidate, time: time, isLast: false)
            }
            if measured.liveliness > bestLiveliness {
                bestLiveliness = measured.liveliness
                let replaced = best.frame
                best = Picked(frame: candidate, time: time, isLast: false)
                candidate = replaced
            }
        }
        return best
    }

    private static func makeFrame() throws(ThumbnailError) -> Frame {
        do {
            return try Frame()
        } catch {
            throw ThumbnailError(.decodeFailed, reason: "cannot allocate a frame", ffmpegError: error)
        }
    }

    /// Seconds with two decimals for a message ("1.52"); any value a damaged file yields is
    /// written, never trapping on a conversion.
    static func format(_ seconds: Double) -> String {
        guard seconds.isFinite, abs(seconds) < 1e12 else { return "\(seconds)" }
        let hundredths = Int((abs(seconds) * 100).rounded())
        let fraction = hundredths % 100
        let text = "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
        return seconds < 0 && hundredths > 0 ? "-" + text : text
    }
}

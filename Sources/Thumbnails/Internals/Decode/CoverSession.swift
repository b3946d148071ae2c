import MediaCore

/// Covers from one opened input: picks the frame for a requested time (keyframe mode, or
/// decoding forward to the frame shown at that time), steps past dark frames when asked, and
/// converts the result. Several times can be taken from one session without reopening.
///
/// Deliberately not `Sendable`: it owns the input and decoder of one job.
final class CoverSession {
    let input: MediaInput
    let options: ValidatedCoverOptions
    private let reader: VideoReader
    /// Whether the reader has moved since opening (then every cover starts with a seek).
    private var used = false

    /// A slack for comparing timestamps converted to seconds.
    private static let epsilon = 1e-5

    init(
        input: MediaInput,
        options: ValidatedCoverOptions,
        checkCancellation: @escaping () throws(ThumbnailError) -> Void
    ) throws(ThumbnailError) {
        // The options were validated once, at the public entry, before the input was opened.
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
    func cover(at time: ValidatedCoverTime) throws(ThumbnailError) -> CoverImage {
        reader.forgetProblems()
        var warnings: [String] = []
        let target = try seconds(for: time, warnings: &warnings)
        var picked = try pick(at: target)
        if options.skipsDarkFrames {
            picked = try skippingDarkFrames(from: picked)
        }
        warnings = reader.warnings + warnings
        if picked.isLast, !input.video.isAttachedPicture, !reader.readFromStart, let duration = reader.duration {
            let end = max(picked.time, reader.lastPacketTime ?? 0) + (reader.frameDuration ?? 0)
            let expected = min(target, duration)
            if end < expected - max(reader.frameDuration ?? 0, 0.01) {
                let what = options.isKeyframeMode ? "keyframe" : "frame"
                warnings.append(
                    "the file ends at \(Self.format(end)) s although its index says \(Self.format(duration)) s; "
                        + "this is its last decodable \(what)")
            }
        }
        if target > 0 {
            if input.video.isAttachedPicture {
                warnings.append("the only picture is the file's cover art; it stands for every time")
            } else if reader.readFromStart {
                warnings.append(
                    "this input cannot seek (\(reader.isUntimed ? "it has no timestamps" : "the seek failed")); "
                        + "it was read from its start and its nearest frame, at \(Self.format(picked.time)) s, is used")
            }
        }
        return try CoverImage.make(
            from: picked.frame, pixelAspectRatio: input.video.sampleAspectRatio, orientation: input.video.orientation,
            options: options, actualTime: picked.time, warnings: warnings, name: input.path
        )
    }

    /// Seconds from the start for a requested time (checked at the public entry). A fraction of a video whose container states no duration is placed in the
    /// duration estimated from its last timestamps, with a warning saying so.
    private func seconds(for time: ValidatedCoverTime, warnings: inout [String]) throws(ThumbnailError) -> Double {
        switch time.time {
        case .seconds(let seconds):
            return seconds
        case .fraction(let fraction):
            if let duration = reader.duration { return fraction * duration }
            // The estimate reads the packets at the end: the cover seeks back afterwards.
            used = true
            guard let estimate = try reader.estimateDuration() else {
                throw ThumbnailError(
                    .invalidArgument,
                    reason: "\(input.path): the duration is unknown, so a fraction of it cannot be placed")
            }
            warnings.append(
                "the container states no duration; \(Self.format(estimate)) s was estimated from its last timestamps")
            return fraction * estimate
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
    /// Seeking lands on the keyframe at or before the seek point in MP4/MOV (by its sample table);
    /// other demuxers may land on an earlier keyframe (then keyframe mode reads on to the last one
    /// at or before `target`) or after it (MPEG-TS bisects timestamps): when the frame found
    /// starts after `target`, or nothing is found from the seek point on (past the last keyframe,
    /// or a file whose data ends before its index does), the seek is retried from further back
    /// (1, 2, 4, ... seconds, finally the start), so keyframe mode keeps its "last keyframe at or
    /// before" promise and exact mode finds the frame shown at `target`. An input that cannot
    /// seek is read from its start.
    private func pick(at target: Double) throws(ThumbnailError) -> Picked {
        let pastEnd = reader.duration.map { target >= $0 } ?? false
        let keyframeMode = options.isKeyframeMode && !pastEnd
        let toleranceBefore = pastEnd ? 0 : options.toleranceBefore
        if !keyframeMode, !pastEnd, options.toleranceAfter > 0, let keyframe = try keyframeWithinTolerance(of: target) {
            return keyframe
        }
        var seekPoint = pastEnd ? (reader.duration ?? target) : target
        var backoff = 1.0
        var overshot: Picked?
        var readsOn = !input.format.seeksBySampleTable
        while true {
            var landed = false
            if used || seekPoint > 0 {
                landed = try reader.seek(to: seekPoint) == .landed
            }
            used = true
            let found =
                keyframeMode
                ? try lastKeyframe(atOrBefore: target, readsOn: readsOn)
                : try decodeForward(to: target, toleranceBefore: toleranceBefore)
            if let found {
                let landedAfter = found.time > target + Self.epsilon && !found.isLast
                guard landedAfter, landed, seekPoint > 0 else { return found }
                overshot = overshot ?? found
            } else if !landed || seekPoint <= 0 {
                break
            } else {
                // Nothing from the seek point on: read on from further back, to the end if need be
                // (which also tells where a file cut short ends).
                readsOn = true
            }
            seekPoint = max(0, min(seekPoint, target) - backoff)
            backoff *= 2
        }
        if let overshot { return overshot }
        // Seeks that reported success and left nothing to read (a still picture's demuxer): read
        // the input once more from its start.
        try reader.restart()
        let found =
            keyframeMode
            ? try lastKeyframe(atOrBefore: target, readsOn: true)
            : try decodeForward(to: target, toleranceBefore: toleranceBefore)
        if let found { return found }
        throw reader.decodeFailure()
    }

    /// A keyframe within the tolerances of `target`, decoded alone, when there is one next to it:
    /// the keyframe at or before `target` when it is within ``CoverOptions/toleranceBefore``, else
    /// the one after it when it is within ``CoverOptions/toleranceAfter``. Costs at most two
    /// keyframe decodes, and spares decoding forward from the keyframe before.
    private func keyframeWithinTolerance(of target: Double) throws(ThumbnailError) -> Picked? {
        used = true
        _ = try reader.seek(to: target)
        if let before = try lastKeyframe(atOrBefore: target, readsOn: !input.format.seeksBySampleTable),
            before.time <= target + Self.epsilon, before.time >= target - options.toleranceBefore - Self.epsilon
        {
            return before
        }
        _ = try reader.seek(to: target, forward: true)
        if let after = try nextKeyframe(), after.time >= target - Self.epsilon,
            after.time <= target + options.toleranceAfter + Self.epsilon
        {
            return after
        }
        return nil
    }

    /// The last keyframe at or before `target` from where the reader is, decoded alone.
    private func lastKeyframe(atOrBefore target: Double, readsOn: Bool) throws(ThumbnailError) -> Picked? {
        if reader.isUntimed { return try lastKeyframeInOrder(atOrBefore: target) }
        let frame = try Self.makeFrame()
        guard try reader.lastKeyframe(atOrBefore: target, readsOn: readsOn, into: frame) else { return nil }
        return Picked(frame: frame, time: reader.lastFrameTime ?? 0, isLast: reader.reachedEnd)
    }

    /// The last keyframe at or before `target`, decoding every frame in order from where the
    /// reader is: for an untimed stream (raw HEVC), whose frames are placed by counting in
    /// display order; packets in decode order cannot place an open-GOP keyframe.
    private func lastKeyframeInOrder(atOrBefore target: Double) throws(ThumbnailError) -> Picked? {
        var current = try Self.makeFrame()
        var kept: Picked?
        while try reader.nextFrame(into: current) {
            let time = reader.lastFrameTime ?? 0
            if time > target + Self.epsilon, kept != nil { return kept }
            guard current.isKeyframe else { continue }
            let spare = kept?.frame
            kept = Picked(frame: current, time: time, isLast: false)
            if time > target + Self.epsilon { return kept }
            if let spare { current = spare } else { current = try Self.makeFrame() }
        }
        kept?.isLast = true
        return kept
    }

    /// The next keyframe, decoded alone.
    private func nextKeyframe() throws(ThumbnailError) -> Picked? {
        let frame = try Self.makeFrame()
        guard try reader.nextKeyframe(into: frame) else { return nil }
        return Picked(frame: frame, time: reader.lastFrameTime ?? 0, isLast: false)
    }

    /// Decodes forward to the frame shown at `target`: the last one starting at or before it,
    /// which the next frame's start proves (frame durations are not trusted: MP4 with B-frames
    /// may state none, variable frame rates make the average wrong); or an earlier one within
    /// `toleranceBefore`, whichever comes first. The first frame is taken when it already starts
    /// after `target`; at the end of the input, the last frame.
    private func decodeForward(to target: Double, toleranceBefore: Double) throws(ThumbnailError) -> Picked? {
        var current = try Self.makeFrame()
        var previous = try Self.makeFrame()
        var previousTime: Double?
        let frameDuration = reader.frameDuration
        while try reader.nextFrame(into: current) {
            let time = reader.lastFrameTime ?? previousTime.map { $0 + (frameDuration ?? 0) } ?? target
            if time <= target + Self.epsilon {
                if time >= target - toleranceBefore - Self.epsilon {
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
            let time = reader.lastFrameTime ?? best.time
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

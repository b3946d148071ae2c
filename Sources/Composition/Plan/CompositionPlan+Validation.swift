import Foundation
import Pixels

/// A plan that cannot be composed, with a one-line reason naming what is wrong.
public struct CompositionPlanError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The canvas index of the take the problem is about (its index in the plan unless the plan names its canvas),
    /// or nil when it is about the whole plan.
    public let canvasIndex: Int?
    /// The reason, e.g. `canvas 2: gain must be a number from 0 to 1000, got -1.0`.
    public let description: String

    init(canvas: Int? = nil, _ reason: String) {
        canvasIndex = canvas
        description = canvas.map { "canvas \($0): \(reason)" } ?? reason
    }
}

extension CompositionPlan {
    /// The largest side of an output picture, in pixels.
    public static let maximumSide = 16_384
    /// The most takes a plan may have: far more than any board shows (a 3x3 board has nine), few enough that every
    /// take's decoder and thread fit one machine.
    public static let maximumTakes = 64
    /// The longest output, in seconds (one hour), and so the widest span of the takes' starts.
    public static let maximumDuration: Double = 3600
    /// The most segments a take may have: more than a recorder's pause and resume make in practice, few enough
    /// that probing each before anything is written stays quick.
    public static let maximumSegments = 100

    /// The plan itself when it can be composed.
    ///
    /// - Throws: ``CompositionPlanError`` for the first problem: no takes or more than ``maximumTakes``; a size that
    ///   is odd, smaller than 2 or larger than ``maximumSide``; a frame rate outside ``FrameRate/allowedRange``; a
    ///   CRF outside 0-51 or an unknown preset; an audio bit rate outside 8-512 kbit/s; a take whose rectangle is
    ///   empty or outside 0-1, whose start is not finite, whose gain is not a finite number >= 0, or whose pan is
    ///   outside -1...1, or whose segments are none or more than ``maximumSegments``; starts further apart than
    ///   ``maximumDuration``; a soundtrack whose start is not within ±``maximumDuration`` or whose gain is not a
    ///   number from 0 to 1000; a plan that contradicts its ``target`` (another size, a frame rate outside the
    ///   target's range, CRF 0, a take that does not fill its tile).
    public func validated() throws(CompositionPlanError) -> CompositionPlan {
        guard !takes.isEmpty else { throw CompositionPlanError("a plan needs at least one take") }
        guard takes.count <= Self.maximumTakes else {
            throw CompositionPlanError(
                "the plan has \(takes.count) takes: refused, a plan may have at most \(Self.maximumTakes)")
        }
        guard FrameRate.allowedRange.contains(frameRate.framesPerSecond) else {
            throw CompositionPlanError(
                "the frame rate \(frameRate) is outside 1-240 frames per second")
        }
        for side in [size.width, size.height] where side < 2 || side > Self.maximumSide || side % 2 != 0 {
            throw CompositionPlanError(
                "the output size \(size) must have even sides from 2 to \(Self.maximumSide) (H.264 4:2:0)")
        }
        guard (0...51).contains(video.constantRateFactor) else {
            throw CompositionPlanError("CRF must be 0-51, got \(video.constantRateFactor)")
        }
        guard VideoSettings.presets.contains(video.preset) else {
            throw CompositionPlanError(
                "unknown preset \(video.preset) (one of \(VideoSettings.presets.joined(separator: ", ")))")
        }
        guard (8_000...512_000).contains(audio.bitRate) else {
            throw CompositionPlanError("the audio bit rate must be 8000-512000 bit/s, got \(audio.bitRate)")
        }
        for (index, take) in takes.enumerated() {
            if let problem = take.region.problem {
                throw CompositionPlanError(canvas: take.canvasIndex ?? index, problem)
            }
            guard take.start.isFinite, abs(take.start) < 1e7 else {
                throw CompositionPlanError(
                    canvas: take.canvasIndex ?? index, "start must be a finite number of seconds, got \(take.start)")
            }
            guard take.gain.isFinite, take.gain >= 0, take.gain <= 1000 else {
                throw CompositionPlanError(
                    canvas: take.canvasIndex ?? index, "gain must be a number from 0 to 1000, got \(take.gain)")
            }
            guard take.pan.isFinite, (-1...1).contains(take.pan) else {
                throw CompositionPlanError(
                    canvas: take.canvasIndex ?? index, "pan must be from -1 (left) to 1 (right), got \(take.pan)")
            }
            guard (1...Self.maximumSegments).contains(take.segments.count) else {
                throw CompositionPlanError(
                    canvas: take.canvasIndex ?? index,
                    take.segments.isEmpty
                        ? "a take needs at least one file"
                        : "the take has \(take.segments.count) segments: refused, a take may have at most "
                            + "\(Self.maximumSegments)")
            }
        }
        try soundtrack?.check()
        let starts = takes.map(\.start)
        if let first = starts.min(), let last = starts.max(), last - first > Self.maximumDuration {
            throw CompositionPlanError(
                "the takes' starts span \(last - first) s: refused, an output may last at most "
                    + "\(Int(Self.maximumDuration)) s")
        }
        if let target { try check(against: target) }
        return self
    }

    /// Where the composed video starts on the board's timeline: the earliest take start. The output's time 0 is this
    /// instant, so no take is cut at its beginning and no video opens on an empty stretch.
    public var timelineOrigin: Double {
        takes.map(\.start).min() ?? 0
    }
}

extension CompositionPlan.Soundtrack {
    /// Throws when the soundtrack's start or gain is out of range.
    func check() throws(CompositionPlanError) {
        guard start.isFinite, abs(start) <= CompositionPlan.maximumDuration else {
            throw CompositionPlanError(
                "music: start must be a number of seconds from -\(Int(CompositionPlan.maximumDuration)) to "
                    + "\(Int(CompositionPlan.maximumDuration)), got \(start)")
        }
        guard gain.isFinite, gain >= 0, gain <= 1000 else {
            throw CompositionPlanError("music: gain must be a number from 0 to 1000, got \(gain)")
        }
    }
}

import Foundation

/// Why a composition failed, with a one-line reason. Nothing is left at the output path when one is thrown.
public struct CompositionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What failed.
    public enum Kind: Sendable, Hashable {
        /// The plan cannot be composed (``CompositionPlanError``).
        case plan
        /// A take is missing, unreadable, corrupt or has neither video nor audio; `canvas` is its canvas index.
        case take(canvas: Int, file: String)
        /// The soundtrack's file is missing, unreadable, corrupt or has no audio.
        case music(file: String)
        /// The output cannot be written (its folder, a full disk, a name that is a folder or a device).
        case output
        /// FFmpeg refused to encode (for example a build without libx264).
        case encoding
        /// The composition was cancelled.
        case cancelled
    }

    /// What failed.
    public let kind: Kind
    /// The one-line reason, e.g. `canvas 2 (b.mp4): no such file`.
    public let description: String

    init(_ kind: Kind, _ reason: String) {
        self.kind = kind
        switch kind {
        case .take(let canvas, let file): description = "canvas \(canvas) (\(file)): \(reason)"
        case .music(let file): description = "music (\(file)): \(reason)"
        case .output, .encoding, .plan: description = reason
        case .cancelled: description = "cancelled"
        }
    }

    /// The error of a cancelled composition.
    public static let cancelled = CompositionError(.cancelled, "cancelled")
}

/// How far a composition has come.
public struct CompositionProgress: Sendable, Hashable {
    /// Output frames written so far.
    public let frame: Int
    /// Output frames in all.
    public let frameCount: Int
    /// Output frames written per second of wall-clock time so far.
    public let framesPerSecond: Double
    /// `frame / frameCount`, 0-1.
    public var fraction: Double { frameCount == 0 ? 1 : Double(frame) / Double(frameCount) }
    /// The seconds left at the rate so far (nil until a rate is known).
    public var secondsLeft: Double? {
        framesPerSecond > 0 ? Double(frameCount - frame) / framesPerSecond : nil
    }
}

/// What a finished composition wrote.
public struct CompositionResult: Sendable, Hashable {
    /// The output file.
    public let output: URL
    /// Its duration in seconds (the earliest take start to the latest take end).
    public let duration: Double
    /// Its video frames.
    public let frameCount: Int
    /// Wall-clock seconds the composition took.
    public let secondsTaken: Double
    /// Mix samples the anti-clipping knee bent (``AudioMix``); 0 when the sum never came near full scale.
    public let limitedSampleCount: Int
}

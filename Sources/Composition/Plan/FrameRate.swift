/// A frame rate as a fraction, so that 29.97 (30000/1001) is exact.
public struct FrameRate: Sendable, Hashable, CustomStringConvertible {
    /// Frames per `seconds`.
    public let frames: Int
    /// The seconds in which `frames` frames are shown.
    public let seconds: Int

    /// `frames` frames every `seconds` seconds. - Precondition: both are positive.
    public init(frames: Int, per seconds: Int = 1) {
        precondition(frames > 0 && seconds > 0, "a frame rate is positive, got \(frames)/\(seconds)")
        self.frames = frames
        self.seconds = seconds
    }

    /// The rate nearest `value` frames per second: the NTSC rates (23.976, 29.97, 59.94) as their exact
    /// fractions (24000/1001, ...), whole numbers as themselves, anything else to a thousandth. Nil when `value` is
    /// not a positive finite number of at most 1,000.
    public init?(_ value: Double) {
        guard value.isFinite, value > 0, value <= 1000, (value * 1000).rounded() >= 1 else { return nil }
        let ntsc = (value * 1.001).rounded()
        if value.rounded() != value, ntsc >= 1, abs(ntsc / 1.001 - value) < 0.005 {
            self.init(frames: Int(ntsc) * 1000, per: 1001)
        } else if value.rounded() == value {
            self.init(frames: Int(value))
        } else {
            self.init(frames: Int((value * 1000).rounded()), per: 1000)
        }
    }

    /// The rate `text` spells: a fraction of positive whole numbers (`24000/1001`), or a number as ``init(_:)``
    /// reads it (`30`, `29.97`). Nil for anything else, never a trap.
    public init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count == 2 {
            guard let frames = Int(parts[0]), let seconds = Int(parts[1]), frames > 0, seconds > 0 else { return nil }
            self.init(frames: frames, per: seconds)
        } else if parts.count == 1, let value = Double(text) {
            self.init(value)
        } else {
            return nil
        }
    }

    /// The rates a composition accepts, in frames per second: from one frame a second to 240.
    public static let allowedRange: ClosedRange<Double> = 1...240

    /// Frames per second as a number.
    public var framesPerSecond: Double { Double(frames) / Double(seconds) }

    /// The number of frames that start before `duration` seconds (each frame lasts `1 / framesPerSecond`).
    public func frameCount(for duration: Double) -> Int {
        guard duration > 0 else { return 0 }
        return Int((duration * Double(frames) / Double(seconds) - 1e-9).rounded(.up))
    }

    /// When frame `index` starts, in seconds.
    public func time(ofFrame index: Int) -> Double {
        Double(index) * Double(seconds) / Double(frames)
    }

    /// For example `30` or `30000/1001`.
    public var description: String { seconds == 1 ? "\(frames)" : "\(frames)/\(seconds)" }
}

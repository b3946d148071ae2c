import Foundation

/// One segment of a take: a file the recorder wrote between a `record` (or `resume`) and its `stop`.
///
/// A canvas's take is an ordered list of segments that play back to back; an empty list is no take. The first
/// segment's first frame is the take's cover, and its start is the take's place on the board's timeline.
public struct TakeSegment: Sendable, Hashable, CustomStringConvertible {
    /// The segment's file.
    public var url: URL
    /// Where its first frame lies on the board's timeline, in seconds (what its `stop` event carried).
    public var start: Double
    /// How long it is, in seconds (what its `stop` event carried; 0 when the recorder did not say).
    public var duration: Double
    /// Whether its file is marked missing: the take's first file a restore (or the app) found gone
    /// (``CanvasEvent/markMissing(_:_:)``), until the app says the files are back (``CanvasEvent/relink(_:)``).
    public var isMissing: Bool

    /// A segment of the file at `url`, starting at `start` on the timeline and lasting `duration` seconds, its file
    /// marked missing or not.
    public init(url: URL, start: Double = 0, duration: Double = 0, isMissing: Bool = false) {
        self.url = url
        self.start = start
        self.duration = duration
        self.isMissing = isMissing
    }

    /// For example `a.mov 2.5s`, or `a.mov 2.5s missing`.
    public var description: String {
        "\(TakeName.describe(url)) \(TakeLength.describe(duration))" + (isMissing ? " missing" : "")
    }
}

/// How take lengths are written in descriptions and transcripts.
package enum TakeLength {
    /// Seconds with up to three decimals and no trailing zeros, then `s`: `2.5s`, `3s`.
    package static func describe(_ seconds: Double) -> String {
        var text = String(format: "%.3f", seconds)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text + "s"
    }
}

/// The board's soundtrack: a file that plays under every take, in step with the board's timeline.
///
/// The soundtrack plays while a canvas records (started at the same host time as the takes, see
/// ``SyncedPlayback/soundtrack``) and is mixed under the takes when the board is composed.
public struct Soundtrack: Sendable, Hashable, CustomStringConvertible {
    /// The sound file.
    public var url: URL
    /// The point of the file, in seconds, that plays at timeline time 0.
    public var start: Double
    /// The gain it is mixed with (1: as recorded, 0: silent).
    public var gain: Double
    /// Whether it starts over when it ends.
    public var loops: Bool

    /// The file at `url`, played from `start` seconds into it at timeline time 0, with `gain`, looping or not.
    public init(url: URL, start: Double = 0, gain: Double = 1, loops: Bool = false) {
        self.url = url
        self.start = start
        self.gain = gain
        self.loops = loops
    }

    /// What to hand `AVPlayer.setRate(_:time:atHostTime:)` so that the soundtrack plays in step when the timeline is
    /// at `position` at host time `hostTime`: the time in the file (`itemTime`, seconds; a looping soundtrack's player
    /// wraps it by the file's length) and the host time to start it at.
    public func playerStart(at position: Double, hostTime: HostTime) -> (itemTime: Double, hostTime: HostTime) {
        let itemTime = start + position
        return itemTime >= 0 ? (itemTime, hostTime) : (0, hostTime + -itemTime)
    }

    /// The soundtrack in the script language, e.g. `music song.m4a 12 gain 0.5 loop`.
    public var description: String {
        var text = "music \(TakeName.scriptWord(for: url))"
        if start != 0 { text += " \(Self.number(start))" }
        if gain != 1 { text += " gain \(Self.number(gain))" }
        if loops { text += " loop" }
        return text
    }

    /// A number as the script language writes it: no trailing `.0`.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
    }
}

/// What the recorder needs besides the file to record a segment: carried by the `startRecording` effect.
public struct RecordingSettings: Sendable, Hashable {
    /// The segment about to be recorded, counting from 0: 0 starts a new take (`record`), more continues the take
    /// (`resume`).
    public var segment: Int
    /// Whether the take records its own sound (the board's microphone setting); false: the picture only.
    public var recordsSound: Bool
    /// The longest this segment may be, in seconds, when the board has a maximum take length (what is left of it);
    /// the recorder stops by itself then (`AVCaptureFileOutput.maxRecordedDuration`). Nil: no limit.
    public var maximumDuration: Double?

    /// Settings for recording segment `segment` with or without sound, at most `maximumDuration` seconds.
    public init(segment: Int = 0, recordsSound: Bool = true, maximumDuration: Double? = nil) {
        self.segment = segment
        self.recordsSound = recordsSound
        self.maximumDuration = maximumDuration
    }
}

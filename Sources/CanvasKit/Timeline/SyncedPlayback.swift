import Foundation

/// The one clock of a recording: the takes that play while a canvas records, all started together, and where each
/// sits on the board's timeline.
///
/// When a canvas starts recording, every other canvas with a take shows it playing. The board's timeline starts at
/// ``hostTime``: at that host time each take plays from the point that lies at timeline time 0, so the takes play
/// in step with each other, as they will in the composed video; the new take's place on the timeline is where the
/// playback stood when its recording began, less the capture latency (``takeStart(recordingBeganAt:captureLatency:)``),
/// and it goes back to the board with the take (`CanvasEvent.stop(_:start:duration:)`). When a canvas records the next
/// segment of its take (`resume`), the timeline does not start over: it is at ``position`` (where the take ends) at
/// ``hostTime``, so the new segment follows the take in step with the others. The board's soundtrack, if any, starts
/// at the same host time (``soundtrack``).
///
/// An app starts each player with `AVPlayer.setRate(1, time:atHostTime:)`, passing ``Take/playerStart(from:)``
/// (Docs/Apps.md shows the code).
public struct SyncedPlayback: Sendable, Hashable {
    /// One take that plays.
    public struct Take: Sendable, Hashable {
        /// The canvas that shows it.
        public var index: Int
        /// The take's segments, in order: they play back to back from `start` (`url` is the first one's file). Never
        /// empty: a take has at least one segment.
        public var segments: [TakeSegment]

        /// The take's file (its first segment's).
        public var url: URL {
            get { segments[0].url }
            set { segments[0].url = newValue }
        }

        /// Where its first frame lies on the board's timeline, in seconds (negative: before timeline 0): its first
        /// segment's start.
        public var start: Double {
            get { segments[0].start }
            set { segments[0].start = newValue }
        }

        /// A take of one segment of the canvas at `index`, whose first frame lies at `start` on the timeline.
        public init(index: Int, url: URL, start: Double) {
            self.init(index: index, segments: [TakeSegment(url: url, start: start)])
        }

        /// A take of the canvas at `index` made of `segments`, placed on the timeline where the first one starts.
        /// - Precondition: `segments` is not empty.
        public init(index: Int, segments: [TakeSegment]) {
            precondition(!segments.isEmpty, "a take has at least one segment")
            self.index = index
            self.segments = segments
        }

        /// What to hand `AVPlayer.setRate(_:time:atHostTime:)` so that this take plays in step when the timeline
        /// starts at `timelineStart`: the time in the take (`itemTime`, seconds) and the host time to start it at.
        /// A take that starts before timeline 0 starts at `timelineStart`, `-start` seconds into its file; one that
        /// starts later starts from its beginning, `start` seconds after `timelineStart`.
        public func playerStart(from timelineStart: HostTime) -> (itemTime: Double, hostTime: HostTime) {
            start <= 0 ? (-start, timelineStart) : (0, timelineStart + start)
        }

        /// As ``playerStart(from:)`` for a playback whose timeline is at `position` at `hostTime` (a `resume`): the
        /// time in the take (its segments played back to back) and the host time to start it at.
        public func playerStart(at position: Double, hostTime: HostTime) -> (itemTime: Double, hostTime: HostTime) {
            start <= position ? (position - start, hostTime) : (0, hostTime + (start - position))
        }
    }

    /// The host time at which the board's timeline is at 0: the instant every take starts playing together.
    public var hostTime: HostTime
    /// The takes that play, in canvas order (every canvas with a take but the recording one).
    public var takes: [Take]
    /// The takes that can play: ``takes`` without those with a file found missing at a restore
    /// (``TakeSegment/isMissing``), which show as missing instead until the app relinks them. The players, their
    /// preroll and their starts (``playerStarts(ready:margin:)``) are for these.
    public var playableTakes: [Take] { takes.filter { take in !take.segments.contains(where: \.isMissing) } }
    /// The timeline time at ``hostTime``: 0 for a new take, where the take ends for its next segment (`resume`).
    public var position: Double
    /// The board's soundtrack, which starts at ``hostTime`` too (``Soundtrack/playerStart(at:hostTime:)``), or nil.
    public var soundtrack: Soundtrack?

    /// Playback of `takes` (and `soundtrack`) starting together at `hostTime`, when the timeline is at `position`.
    public init(hostTime: HostTime, takes: [Take], position: Double = 0, soundtrack: Soundtrack? = nil) {
        self.hostTime = hostTime
        self.takes = takes
        self.position = position
        self.soundtrack = soundtrack
    }

    /// The timeline time at host time `time`.
    public func timelineTime(at time: HostTime) -> Double {
        position + (time - hostTime)
    }

    /// The new take's start on the timeline: where the playback stood when its recording began (the host time of its
    /// first captured sample), less `captureLatency` (the seconds from the moment the camera saw a picture to the
    /// moment it was stamped; the performer measures it, 0 when it does not know).
    public func takeStart(recordingBeganAt time: HostTime, captureLatency: Double = 0) -> Double {
        timelineTime(at: time) - captureLatency
    }
}

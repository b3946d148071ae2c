import Foundation

/// The one clock of a recording: the takes that play while a canvas records, all started together, and where each
/// sits on the board's timeline.
///
/// When a canvas starts recording, every other canvas with a take shows it playing. The board's timeline starts at
/// ``hostTime``: at that host time each take plays from the point that lies at timeline time 0, so the takes play
/// in step with each other, as they will in the composed video; the new take's place on the timeline is where the
/// playback stood when its recording began, less the capture latency (``takeStart(recordingBeganAt:captureLatency:)``),
/// and it goes back to the board with the take (`CanvasEvent.stop(_:start:)`).
///
/// An app starts each player with `AVPlayer.setRate(1, time:atHostTime:)`, passing ``Take/playerStart(from:)``
/// (Docs/Apps.md shows the code).
public struct SyncedPlayback: Sendable, Hashable {
    /// One take that plays.
    public struct Take: Sendable, Hashable {
        /// The canvas that shows it.
        public var index: Int
        /// The take's file.
        public var url: URL
        /// Where its first frame lies on the board's timeline, in seconds (negative: before timeline 0).
        public var start: Double

        /// A take of the canvas at `index`, whose first frame lies at `start` on the timeline.
        public init(index: Int, url: URL, start: Double) {
            self.index = index
            self.url = url
            self.start = start
        }

        /// What to hand `AVPlayer.setRate(_:time:atHostTime:)` so that this take plays in step when the timeline
        /// starts at `timelineStart`: the time in the take (`itemTime`, seconds) and the host time to start it at.
        /// A take that starts before timeline 0 starts at `timelineStart`, `-start` seconds into its file; one that
        /// starts later starts from its beginning, `start` seconds after `timelineStart`.
        public func playerStart(from timelineStart: HostTime) -> (itemTime: Double, hostTime: HostTime) {
            start <= 0 ? (-start, timelineStart) : (0, timelineStart + start)
        }
    }

    /// The host time at which the board's timeline is at 0: the instant every take starts playing together.
    public var hostTime: HostTime
    /// The takes that play, in canvas order (every canvas with a take but the recording one).
    public var takes: [Take]

    /// Playback of `takes` starting together at `hostTime`.
    public init(hostTime: HostTime, takes: [Take]) {
        self.hostTime = hostTime
        self.takes = takes
    }

    /// The timeline time at host time `time`.
    public func timelineTime(at time: HostTime) -> Double {
        time - hostTime
    }

    /// The new take's start on the timeline: where the playback stood when its recording began (the host time of its
    /// first captured sample), less `captureLatency` (the seconds from the moment the camera saw a picture to the
    /// moment it was stamped; the performer measures it, 0 when it does not know).
    public func takeStart(recordingBeganAt time: HostTime, captureLatency: Double = 0) -> Double {
        timelineTime(at: time) - captureLatency
    }
}

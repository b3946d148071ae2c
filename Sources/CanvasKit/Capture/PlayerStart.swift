import Foundation

/// When and where one take's player starts, for `AVPlayer.setRate(1, time: segmentTime, atHostTime: hostTime)` on
/// a player whose current item is the take's segment ``segment`` (a take of one segment: `itemTime` in its file).
public struct PlayerStart: Sendable, Hashable {
    /// The canvas that shows the take.
    public var index: Int
    /// The take's file (its first segment's).
    public var url: URL
    /// Where in the take to start, in seconds (its segments played back to back).
    public var itemTime: Double
    /// The host time to start at.
    public var hostTime: HostTime
    /// The segment ``itemTime`` falls in, counting from 0.
    public var segment: Int
    /// Where in that segment's file to start, in seconds.
    public var segmentTime: Double

    /// A start of the take of the canvas at `index` at `itemTime` into it, at `hostTime`, in segment `segment` at
    /// `segmentTime` into its file (by default the first, at `itemTime`).
    public init(
        index: Int, url: URL, itemTime: Double, hostTime: HostTime, segment: Int = 0, segmentTime: Double? = nil
    ) {
        self.index = index
        self.url = url
        self.itemTime = itemTime
        self.hostTime = hostTime
        self.segment = segment
        self.segmentTime = segmentTime ?? itemTime
    }
}

extension SyncedPlayback.Take {
    /// The segment that `itemTime` seconds into the take falls in, and where in its file: the segments play back to
    /// back, each for its ``TakeSegment/duration``. A time at a join is the next segment's start; a time past the end
    /// is in the last segment, past its end. When a segment before it has no known length (0: a take from before
    /// segments had lengths), the take cannot be placed: the first segment, at `itemTime`.
    public func segmentStart(at itemTime: Double) -> (segment: Int, time: Double) {
        var time = itemTime
        for (number, segment) in segments.enumerated() {
            if number == segments.count - 1 || time < segment.duration { return (number, time) }
            guard segment.duration > 0 else { return (0, itemTime) }
            time -= segment.duration
        }
        return (0, itemTime)
    }
}

extension SyncedPlayback {
    /// When each playable take's player starts (``playableTakes``), once every player has prerolled (`AVPlayer.preroll(atRate:completionHandler:)`)
    /// at host time `ready`: no player starts before all are ready, so that they start together.
    ///
    /// Each take starts where the timeline is at ``hostTime`` (``position``: 0 for a new take, where the resumed take
    /// ends for its next segment; ``Take/playerStart(at:hostTime:)``). The board's timeline keeps its origin, so the
    /// new take's start stays right: a player whose planned start is less than `margin` seconds after `ready` (the
    /// preroll took longer than the board's lead) starts `margin` after `ready` instead, that much further into its
    /// take; a take that starts later on the timeline keeps its planned host time.
    public func playerStarts(ready: HostTime, margin: Double = 0.05) -> [PlayerStart] {
        let earliest = ready + margin
        return playableTakes.map { take in
            var (itemTime, start) = take.playerStart(at: position, hostTime: hostTime)
            if start < earliest {
                itemTime += earliest - start
                start = earliest
            }
            let (segment, segmentTime) = take.segmentStart(at: itemTime)
            return PlayerStart(
                index: take.index, url: take.url, itemTime: itemTime, hostTime: start, segment: segment,
                segmentTime: segmentTime)
        }
    }

    /// The segments to queue in a take's player before it prerolls: the take's files from the segment its planned
    /// start falls in (``Take/segmentStart(at:)``), so that the player prerolls where it will play. When the players
    /// start late, a take's start (``playerStarts(ready:margin:)``) may fall in a later segment: the player then
    /// advances to it (`PlayerStart.segment` less `firstSegment` items).
    public func queue(for take: Take) -> (files: [URL], firstSegment: Int) {
        let planned = take.playerStart(at: position, hostTime: hostTime).itemTime
        let first = take.segmentStart(at: planned).segment
        return (take.segments[first...].map(\.url), first)
    }
}

extension CanvasEffect {
    /// Whether the effect ends a recording (finished, discarded, failed to start or cut short): the takes that played
    /// beside it stop, and the cells show their covers again.
    public var endsRecording: Bool {
        switch self {
        case .takeFinished, .takeDiscarded, .recordingFailed, .recordingCutShort: true
        default: false
        }
    }
}

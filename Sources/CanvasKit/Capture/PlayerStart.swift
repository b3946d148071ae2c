import Foundation

/// When and where one take's player starts, for `AVPlayer.setRate(1, time: itemTime, atHostTime: hostTime)`.
public struct PlayerStart: Sendable, Hashable {
    /// The canvas that shows the take.
    public var index: Int
    /// The take's file.
    public var url: URL
    /// Where in the take to start, in seconds.
    public var itemTime: Double
    /// The host time to start at.
    public var hostTime: HostTime
}

extension SyncedPlayback {
    /// When each take's player starts, once every player has prerolled (`AVPlayer.preroll(atRate:completionHandler:)`)
    /// at host time `ready`: no player starts before all are ready, so that they start together.
    ///
    /// Each take starts where the timeline is at ``hostTime`` (``position``: 0 for a new take, where the resumed take
    /// ends for its next segment; ``Take/playerStart(at:hostTime:)``). The board's timeline keeps its origin, so the
    /// new take's start stays right: a player whose planned start is less than `margin` seconds after `ready` (the
    /// preroll took longer than the board's lead) starts `margin` after `ready` instead, that much further into its
    /// take; a take that starts later on the timeline keeps its planned host time.
    public func playerStarts(ready: HostTime, margin: Double = 0.05) -> [PlayerStart] {
        let earliest = ready + margin
        return takes.map { take in
            var (itemTime, start) = take.playerStart(at: position, hostTime: hostTime)
            if start < earliest {
                itemTime += earliest - start
                start = earliest
            }
            return PlayerStart(index: take.index, url: take.url, itemTime: itemTime, hostTime: start)
        }
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

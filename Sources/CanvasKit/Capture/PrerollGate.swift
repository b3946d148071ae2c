/// When the players of a synced playback preroll and when they start, as the Apple layer's `SyncedPlayers` carries it
/// out: a player is prerolled once it is ready to play, never before (`AVPlayer.preroll(atRate:completionHandler:)`
/// raises an exception before that), and only once; a player that fails counts as prerolled, so the others still
/// start; all start together once every take's player prerolled, exactly once. The board's soundtrack (an
/// `AVAudioPlayer`, prepared at once) starts with them, and at once when no take plays (``begin()``).
public struct PrerollGate: Sendable, Hashable {
    /// A player's status, as `AVPlayer.status` reports it.
    public enum PlayerStatus: Sendable, Hashable {
        /// Not ready yet.
        case unknown
        /// Ready to play: it may be prerolled.
        case readyToPlay
        /// It cannot play.
        case failed
    }

    /// What the player's owner does next.
    public enum Action: Sendable, Hashable {
        /// Nothing.
        case none
        /// Preroll the player that reported.
        case preroll
        /// Start every player (`SyncedPlayback.playerStarts(ready:margin:)`).
        case startAll
    }

    private let takes: Set<Int>
    private var asked: Set<Int> = []
    private var prerolled: Set<Int> = []
    private var started = false

    /// A gate for the players of the takes of the canvases at `takes`.
    public init(takes: some Sequence<Int>) {
        self.takes = Set(takes)
    }

    /// Called once the players are made: ``Action/startAll`` when there is no take to wait for (the soundtrack, if any,
    /// starts alone), ``Action/none`` otherwise.
    public mutating func begin() -> Action {
        guard takes.isEmpty, !started else { return .none }
        started = true
        return .startAll
    }

    /// The player of the take at `index` reports `status`: ``Action/preroll`` the first time it is ready to play; a
    /// failed player counts as prerolled (``Action/startAll`` when it was the last one). Reports of an index that is
    /// not a take say nothing.
    public mutating func statusChanged(_ index: Int, to status: PlayerStatus) -> Action {
        guard takes.contains(index) else { return .none }
        switch status {
        case .unknown:
            return .none
        case .readyToPlay:
            guard !asked.contains(index) else { return .none }
            asked.insert(index)
            return .preroll
        case .failed:
            return prerollEnded(index)
        }
    }

    /// The preroll of the take at `index` ended, finished or not: ``Action/startAll`` once every take's player
    /// prerolled (once only).
    public mutating func prerollEnded(_ index: Int) -> Action {
        guard takes.contains(index) else { return .none }
        prerolled.insert(index)
        guard !started, prerolled == takes else { return .none }
        started = true
        return .startAll
    }
}

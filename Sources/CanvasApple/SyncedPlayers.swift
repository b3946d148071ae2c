#if canImport(UIKit) && canImport(AVFoundation)
    @preconcurrency import AVFoundation
    import CanvasKit
    import CoreMedia
    import Dispatch
    import Foundation

    /// The other canvases' takes playing while one canvas records, started together on the board's timeline.
    ///
    /// ``start(_:)`` takes the `SyncedPlayback` of the board's `startRecording` effect: one `AVQueuePlayer` per
    /// playable take (`SyncedPlayback.playableTakes`: a take whose file was found missing does not play), whose queue
    /// holds the take's segments from the one where it starts (`SyncedPlayback.queue(for:)`), so a take of several
    /// segments plays them back to back. As
    /// `PrerollGate` decides (CanvasKit), each player is prerolled once its `status` is `readyToPlay`
    /// (`preroll(atRate:completionHandler:)` raises an exception before that); a player that fails counts as
    /// prerolled and starts with the others. Once every player has prerolled, each starts with `setRate(1, time:atHostTime:)` at the times
    /// `SyncedPlayback.playerStarts(ready:margin:)` decides (CanvasKit). The board's soundtrack, if any, plays in an
    /// `AVAudioPlayer` (it loops without a gap): prepared at ``start(_:)``, it starts with the takes (at once when no
    /// take plays, as `PrerollGate.begin()` says) at the file time, device time, volume and loop count
    /// `SyncedPlayback.soundtrackPlayerStart(ready:deviceNow:margin:fileDuration:)` decides; a file it cannot read
    /// plays no soundtrack, and the takes still play. ``stop()`` pauses and drops the takes' players and stops the
    /// soundtrack (when the recording ends).
    ///
    /// A cell showing a take playing shows ``player(playing:)`` in an `AVPlayerLayer`. The board changes the cells to
    /// `.playback(url)` before it asks for the recording, so a cell asks for its player before ``start(_:)``: the
    /// player is made then, and ``start(_:)`` starts that same player.
    @MainActor
    public final class SyncedPlayers {
        /// The players by take file, made by ``player(playing:)`` or ``start(_:)``, dropped by ``stop()``.
        private var players: [URL: AVQueuePlayer] = [:]
        /// The segment each take's queue starts with, by canvas index.
        private var firstSegments: [Int: Int] = [:]
        /// The soundtrack's player and its file, kept from one recording to the next while the file stays the same.
        private var soundtrack: (url: URL, player: AVAudioPlayer)?
        private var playback: SyncedPlayback?
        /// The observations of the players' `status`, dropped by every start and stop.
        private var statusObservations: [NSKeyValueObservation] = []
        /// When each player prerolls and when they all start (CanvasKit).
        private var gate = PrerollGate(takes: [])
        /// Bumped by every start and stop, so an answer (status or preroll) of an earlier playback is ignored.
        private var generation = 0
        /// Seconds between the last preroll and the players' start when the board's lead was too short.
        public var margin: Double = 0.05

        /// No players.
        public init() {}

        /// The player of the take of the canvas at `index`, while it plays.
        public func player(for index: Int) -> AVPlayer? {
            queuePlayer(for: index)
        }

        private func queuePlayer(for index: Int) -> AVQueuePlayer? {
            playback?.playableTakes.first { $0.index == index }.flatMap { players[$0.url] }
        }

        /// The player of the take at `url` (what a cell showing `.playback(url)` shows): made the first time it is
        /// asked for, and the one ``start(_:)`` starts when the playback has that take; dropped by ``stop()``.
        public func player(playing url: URL) -> AVPlayer {
            queuePlayer(playing: url)
        }

        private func queuePlayer(playing url: URL) -> AVQueuePlayer {
            if let player = players[url] { return player }
            let player = AVQueuePlayer(items: [AVPlayerItem(url: url)])
            // `setRate(_:time:atHostTime:)` requires it.
            player.automaticallyWaitsToMinimizeStalling = false
            players[url] = player
            return player
        }

        /// Prerolls a player per take once it is ready to play and starts them together (replacing any playback in
        /// progress); a take's player made earlier by ``player(playing:)`` is the one that plays.
        public func start(_ playback: SyncedPlayback) {
            halt()
            self.playback = playback
            gate = PrerollGate(takes: playback.playableTakes.map(\.index))
            let files = Set(playback.playableTakes.map(\.url))
            players = players.filter { files.contains($0.key) }
            let generation = self.generation
            firstSegments = [:]
            statusObservations = playback.playableTakes.map { take in
                let index = take.index
                let player = queuePlayer(playing: take.url)
                let (files, first) = playback.queue(for: take)
                firstSegments[index] = first
                if files != [take.url] {
                    player.removeAllItems()
                    for file in files { player.insert(AVPlayerItem(url: file), after: nil) }
                }
                // Key-value observation calls on any thread: the handler only hops to the main actor.
                return player.observe(\.status, options: [.initial, .new]) { @Sendable _, _ in
                    DispatchQueue.main.async {
                        MainActor.assumeIsolated { self.statusChanged(index: index, generation: generation) }
                    }
                }
            }
            prepareSoundtrack(playback.soundtrack)
            if gate.begin() == .startAll { startAll() }
        }

        /// Makes (for a new file) and prepares the soundtrack's player, or drops it when the board has none.
        private func prepareSoundtrack(_ wanted: Soundtrack?) {
            guard let wanted else {
                soundtrack = nil
                return
            }
            if soundtrack?.url != wanted.url {
                soundtrack = (try? AVAudioPlayer(contentsOf: wanted.url)).map { (wanted.url, $0) }
            }
            _ = soundtrack?.player.prepareToPlay()
        }

        /// Pauses and drops the takes' players and stops the soundtrack (its player is kept for the next recording).
        public func stop() {
            halt()
            players = [:]
        }

        /// Stops observing, cancels the prerolls and pauses every player, and forgets the playback.
        private func halt() {
            generation += 1
            for observation in statusObservations { observation.invalidate() }
            statusObservations = []
            for player in players.values {
                player.cancelPendingPrerolls()
                player.pause()
            }
            soundtrack?.player.stop()
            playback = nil
        }

        private func statusChanged(index: Int, generation: Int) {
            guard generation == self.generation, let player = player(for: index) else { return }
            let status: PrerollGate.PlayerStatus =
                switch player.status {
                case .readyToPlay: .readyToPlay
                case .failed: .failed
                default: .unknown
                }
            carryOut(gate.statusChanged(index, to: status), index: index, generation: generation)
        }

        private func carryOut(_ action: PrerollGate.Action, index: Int, generation: Int) {
            switch action {
            case .none:
                break
            case .preroll:
                player(for: index)?.preroll(atRate: 1) { _ in
                    // A failed preroll still starts with the others: the player catches up as it can.
                    DispatchQueue.main.async {
                        MainActor.assumeIsolated {
                            guard generation == self.generation else { return }
                            self.carryOut(self.gate.prerollEnded(index), index: index, generation: generation)
                        }
                    }
                }
            case .startAll:
                startAll()
            }
        }

        private func startAll() {
            guard let playback else { return }
            let now = HostTime(seconds: CMClockGetTime(CMClockGetHostTimeClock()).seconds)
            for start in playback.playerStarts(ready: now, margin: margin) {
                guard let player = queuePlayer(for: start.index) else { continue }
                // A late start may fall in a later segment than the queue starts with.
                for _ in 0..<max(0, start.segment - (firstSegments[start.index] ?? 0)) { player.advanceToNextItem() }
                player.setRate(
                    1, time: CMTime(seconds: start.segmentTime, preferredTimescale: 600),
                    atHostTime: CMTime(seconds: start.hostTime.seconds, preferredTimescale: 1_000_000_000))
            }
            // The audio device's clock, read with the host clock's `now`: the soundtrack starts on the same timeline.
            guard let player = soundtrack?.player,
                let start = playback.soundtrackPlayerStart(
                    ready: now, deviceNow: player.deviceCurrentTime, margin: margin, fileDuration: player.duration)
            else { return }
            player.currentTime = start.itemTime
            player.volume = start.volume
            player.numberOfLoops = start.numberOfLoops
            _ = player.play(atTime: start.deviceTime)
        }
    }
#endif

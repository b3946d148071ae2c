#if canImport(UIKit) && canImport(AVFoundation)
    @preconcurrency import AVFoundation
    import CanvasKit
    import CoreMedia
    import Dispatch
    import Foundation

    /// The other canvases' takes playing while one canvas records, started together on the board's timeline.
    ///
    /// ``start(_:)`` takes the `SyncedPlayback` of the board's `startRecording` effect: one `AVPlayer` per take, each
    /// prerolled; once every player has prerolled, each starts with `setRate(1, time:atHostTime:)` at the times
    /// `SyncedPlayback.playerStarts(ready:margin:)` decides (CanvasKit). ``stop()`` pauses and drops them (when the
    /// recording ends). A cell showing a take playing shows ``player(for:)`` in an `AVPlayerLayer`.
    @MainActor
    public final class SyncedPlayers {
        private var players: [(take: SyncedPlayback.Take, player: AVPlayer)] = []
        private var playback: SyncedPlayback?
        private var prerolled = 0
        /// Bumped by every start and stop, so a preroll answer of an earlier playback is ignored.
        private var generation = 0
        /// Seconds between the last preroll and the players' start when the board's lead was too short.
        public var margin: Double = 0.05

        /// No players.
        public init() {}

        /// The player of the take of the canvas at `index`, while it plays.
        public func player(for index: Int) -> AVPlayer? {
            players.first { $0.take.index == index }?.player
        }

        /// The player of the take at `url`, while it plays (what a cell showing `.playback(url)` shows).
        public func player(playing url: URL) -> AVPlayer? {
            players.first { $0.take.url == url }?.player
        }

        /// Prerolls a player per take and starts them together (replacing any playback in progress).
        public func start(_ playback: SyncedPlayback) {
            stop()
            self.playback = playback
            players = playback.takes.map { take in
                let player = AVPlayer(url: take.url)
                // `setRate(_:time:atHostTime:)` requires it.
                player.automaticallyWaitsToMinimizeStalling = false
                return (take, player)
            }
            let generation = self.generation
            for (_, player) in players {
                player.preroll(atRate: 1) { _ in
                    // A failed preroll still starts with the others: the player catches up as it can.
                    DispatchQueue.main.async { MainActor.assumeIsolated { self.didPreroll(generation: generation) } }
                }
            }
        }

        /// Pauses and drops every player.
        public func stop() {
            generation += 1
            for (_, player) in players {
                player.cancelPendingPrerolls()
                player.pause()
            }
            players = []
            playback = nil
            prerolled = 0
        }

        private func didPreroll(generation: Int) {
            guard generation == self.generation, let playback else { return }
            prerolled += 1
            guard prerolled == players.count else { return }
            let now = HostTime(seconds: CMClockGetTime(CMClockGetHostTimeClock()).seconds)
            for start in playback.playerStarts(ready: now, margin: margin) {
                player(for: start.index)?.setRate(
                    1, time: CMTime(seconds: start.itemTime, preferredTimescale: 600),
                    atHostTime: CMTime(seconds: start.hostTime.seconds, preferredTimescale: 1_000_000_000))
            }
        }
    }
#endif

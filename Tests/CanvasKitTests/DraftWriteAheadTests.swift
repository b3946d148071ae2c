import CanvasTestSupport
import Foundation
import Locking
import SeededRandom
import Testing

@testable import CanvasKit

/// Write-ahead: an effect that gives up a file reaches the performer only once the record of its event is durable, so
/// no power loss can bring back a take whose file the performer already removed.
@Suite("Drafts: write-ahead")
struct DraftWriteAheadTests {
    /// A performer that removes the files it is told to give up (in a list), as the documented performer does.
    final class RemovingPerformer: CanvasEffectPerformer, Sendable {
        private let state = LockedValue<(removed: [URL], performed: [CanvasEffect])>(([], []))

        var removed: [URL] { state.withLock { $0.removed } }
        var performed: [CanvasEffect] { state.withLock { $0.performed } }

        func perform(_ effect: CanvasEffect) {
            state.withLock { state in
                state.performed.append(effect)
                switch effect {
                case .takeReplaced, .takeRemoved, .segmentRemoved: state.removed += effect.givenUpFiles
                default: break
                }
            }
        }
    }

    /// The takes a restored board holds.
    static func takes(_ board: CanvasBoard) -> Set<URL> {
        Set(board.state.indices.compactMap(board.state.videoURL(at:)))
    }

    static func restore(_ image: [String: [UInt8]], at path: String, start: BoardState) throws -> CanvasBoard {
        try CanvasBoard(
            draftAt: URL(fileURLWithPath: path), newBoard: start,
            options: DraftTests.options(PowerLossStorage(files: image)))
    }

    @Test("a replaced or deleted take is given up only once its record is durable")
    func heldUntilDurable() async throws {
        let storage = PowerLossStorage()
        let start = BoardState(canvasCount: 3)
        let path = "/w/board.draft"
        let board = try CanvasBoard(
            draftAt: URL(fileURLWithPath: path), newBoard: start, options: DraftTests.options(storage))
        try await board.draft!.waitUntilDurable()
        let performer = RemovingPerformer()
        let (a, b, c) = (Boards.take("a.mov"), Boards.take("b.mov"), Boards.take("c.mov"))
        for event in [CanvasEvent.tap(0), .record, .stop(a)] {
            #expect(board.send(event, performingEffectsWith: performer).isAccepted)
        }
        try await board.draft!.waitUntilDurable()
        // The disk stops answering syncs: records are written, none becomes durable.
        storage.holdSyncs(true)
        var records: [UInt64] = []
        for event in [CanvasEvent.record, .stop(b), .tap(1), .record, .stop(c), .delete(1)] {
            let outcome = board.send(event, performingEffectsWith: performer)
            #expect(outcome.isAccepted)
            records.append(outcome.draftRecord ?? 0)
        }
        #expect(records == Array(4...9), "each outcome carries its record number")
        #expect(performer.removed == [], "nothing is given up before its record is durable")
        #expect(performer.performed.contains(.takeFinished(index: 1, url: c)), "other effects are not delayed")
        // The power goes now: the restored board holds a, and a's file is still there.
        var none: SplitMix64? = nil
        let lost = try Self.restore(storage.powerLossImage(tornTail: &none), at: path, start: start)
        #expect(Self.takes(lost) == [a])
        #expect(Set(performer.removed).isDisjoint(with: Self.takes(lost)))

        storage.holdSyncs(false)
        try await board.draft!.waitUntilDurable()
        await board.heldEffects.withLock { $0.tail }?.value
        #expect(performer.removed == [a, c], "given up in order once durable")
        let synced = try Self.restore(storage.powerLossImage(tornTail: &none), at: path, start: start)
        #expect(Self.takes(synced) == [b])
    }

    @Test("a restore's interrupted take reaches the performer only once the restore's own record is durable")
    func restoreHeldUntilDurable() async throws {
        let storage = PowerLossStorage()
        let start = BoardState(canvasCount: 2)
        let path = "/r/board.draft"
        let partial = Boards.take("partial.mov")
        let board = try CanvasBoard(
            draftAt: URL(fileURLWithPath: path), newBoard: start, options: DraftTests.options(storage))
        for event in [CanvasEvent.tap(0), .record] { #expect(board.send(event).isAccepted) }
        board.draft!.noteRecordingFile(partial)
        try await board.draft!.waitUntilDurable()
        // Killed while recording; the app starts again on a disk that does not answer syncs yet.
        let reopenedStorage = storage.afterKill()
        reopenedStorage.holdSyncs(true)
        let reopened = try CanvasBoard(
            draftAt: URL(fileURLWithPath: path), newBoard: start, options: DraftTests.options(reopenedStorage))
        let interrupted = CanvasEffect.takeInterrupted(index: 0, url: partial)
        #expect(reopened.draft!.restore.effects == [interrupted])
        let performer = RemovingPerformer()
        reopened.performRestoreEffects(with: performer)
        #expect(performer.performed == [], "the partial file is not handed out before the restore's cancel is durable")
        // A power loss now loses the cancel: the next restore reports the take again, and its file is still there.
        var none: SplitMix64? = nil
        let lost = try Self.restore(reopenedStorage.powerLossImage(tornTail: &none), at: path, start: start)
        #expect(lost.draft!.restore.effects == [interrupted])
        reopenedStorage.holdSyncs(false)
        try await reopened.draft!.waitUntilDurable()
        await reopened.heldEffects.withLock { $0.tail }?.value
        #expect(performer.performed == [interrupted])
        let synced = try Self.restore(reopenedStorage.powerLossImage(tornTail: &none), at: path, start: start)
        #expect(synced.draft!.restore.effects == [])
    }

    @Test("power loss at random moments: no file given up is on the restored board")
    func neverAheadOfItsRecord() async throws {
        var given = 0
        for seed in 0..<30 as Range<UInt64> {
            var random = SplitMix64(seed: seed &* 104_729 &+ 5)
            let storage = PowerLossStorage()
            let start = BoardState(canvasCount: 4)
            var generator = EventGenerator(seed: seed &+ 500)
            let events = generator.sequence(length: 150, start: start)
            let board = try CanvasBoard(
                draftAt: URL(fileURLWithPath: "/r/board.draft"), newBoard: start,
                options: DraftTests.options(storage, threshold: Int.random(in: 5...60, using: &random)))
            let performer = RemovingPerformer()
            let cut = Int.random(in: 0...events.count, using: &random)
            for (index, event) in events.enumerated() where index < cut {
                if Int.random(in: 0..<25, using: &random) == 0 { storage.holdSyncs(true) }
                if Int.random(in: 0..<25, using: &random) == 0 { storage.holdSyncs(false) }
                board.send(event, performingEffectsWith: performer)
            }
            var torn: SplitMix64? = seed % 2 == 0 ? SplitMix64(seed: seed) : nil
            let removed = performer.removed
            let restored = try Self.restore(storage.powerLossImage(tornTail: &torn), at: "/r/board.draft", start: start)
            let kept = Self.takes(restored).intersection(removed)
            #expect(kept.isEmpty, "seed \(seed): removed files back on the board: \(kept)")
            storage.holdSyncs(false)
            try await board.draft!.waitUntilDurable()
            await board.heldEffects.withLock { $0.tail }?.value
            given += performer.removed.count
        }
        // The seeds must exercise the rule: their events give files up.
        #expect(given > 0)
    }
}

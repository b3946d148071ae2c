import CanvasTestSupport
import Dispatch
import Foundation
import Locking
import SeededRandom
import Testing

@testable import CanvasKit

/// A slow or full disk: the calling thread never waits, what waits for the writer is bounded, and a full disk is
/// probed with one write per batch instead of a whole compaction.
@Suite("Drafts: slow and full disks")
struct DraftBoundTests {
    static let path = "/b/board.draft"
    static let url = URL(fileURLWithPath: path)

    /// The board a power loss at this moment would restore from `storage`'s files (the synced bytes, no torn tail).
    static func restoredAfterPowerLoss(_ storage: PowerLossStorage, newBoard start: BoardState) throws -> CanvasBoard {
        var none: SplitMix64? = nil
        return try CanvasBoard(
            draftAt: url, newBoard: start,
            options: DraftTests.options(PowerLossStorage(files: storage.powerLossImage(tornTail: &none))))
    }

    @Test("a stalled disk: the sender goes on, the draft is behind, fails past its bound, and is rewritten whole next")
    func stalledDisk() async throws {
        let storage = PowerLossStorage()
        var options = DraftTests.options(storage)
        options.pendingLimit = 2_000
        let start = BoardState(canvasCount: 3)
        let board = try CanvasBoard(draftAt: Self.url, newBoard: start, options: options)
        let draft = try #require(board.draft)
        try await draft.waitUntilDurable()
        storage.holdWrites(true)
        #expect(board.send(.tap(0)).isAccepted)
        // The writer took that record and waits in its write.
        while draft.progress.pendingBytes > 0 { await Task.yield() }
        var sawBehind = false
        for index in 1...300 {
            board.send(.tap(index % 3))
            sawBehind = sawBehind || draft.progress.isBehind
            #expect(draft.progress.pendingBytes <= 2_000)
        }
        #expect(sawBehind)
        #expect(draft.progress.isBehind)
        #expect(draft.progress.failure == .fellBehind(path: Self.path, limit: 2_000))
        #expect(draft.progress.durable < draft.progress.appended)
        storage.holdWrites(false)
        try await draft.waitUntilDurable()
        #expect(draft.progress.failure == nil && !draft.progress.isBehind)
        #expect(draft.progress.durable == draft.progress.appended)
        let restored = try Self.restoredAfterPowerLoss(storage, newBoard: start)
        #expect(restored.state == board.state)
        #expect(restored.draft!.restore.sequence == draft.progress.appended)
    }

    @Test("a full disk costs one probe per batch, no compaction, until a write fits again")
    func fullDisk() async throws {
        let storage = PowerLossStorage()
        let start = BoardState(canvasCount: 3)
        let board = try CanvasBoard(
            draftAt: Self.url, newBoard: start, options: DraftTests.options(storage, threshold: 3))
        let draft = try #require(board.draft)
        try await draft.waitUntilDurable()
        let compactions = storage.writes(endingWith: ".snapshot.tmp")
        storage.failOperations(true)
        var failures = 0
        for index in 0..<40 {
            board.send(.tap(index % 3))
            do { try await draft.waitUntilDurable() } catch { failures += 1 }
        }
        #expect(failures == 40)
        #expect(storage.writes(endingWith: ".snapshot.tmp") == compactions, "a compaction tried on a full disk")
        #expect(storage.writes(endingWith: ".draft.tmp") >= 39, "each batch probes")
        guard case .io(_, _, ENOSPC) = draft.progress.failure else {
            Issue.record("the failure is \(String(describing: draft.progress.failure))")
            return
        }
        storage.failOperations(false)
        board.send(.tap(1))
        try await draft.waitUntilDurable()
        let restored = try Self.restoredAfterPowerLoss(storage, newBoard: start)
        #expect(restored.state == board.state)
    }

    @Test("a compaction that finds no room is tried again after as many records again, not after every batch")
    func compactionBackoff() async throws {
        let storage = PowerLossStorage()
        let start = BoardState(canvasCount: 3)
        let board = try CanvasBoard(
            draftAt: Self.url, newBoard: start, options: DraftTests.options(storage, threshold: 3))
        let draft = try #require(board.draft)
        try await draft.waitUntilDurable()
        let before = storage.writes(endingWith: ".snapshot.tmp")
        storage.failWrites(endingWith: ".snapshot.tmp")
        for index in 0..<30 {
            #expect(board.send(.tap(index % 3)).isAccepted)
            // Each record its own batch: the appends and syncs go on, so every one becomes durable.
            try await draft.waitUntilDurable()
        }
        // Due at 3 records, then every 3 more: 10 tries, against one for each of the 28 batches from the third on.
        #expect(storage.writes(endingWith: ".snapshot.tmp") - before <= 10)
        storage.failWrites(endingWith: nil)
        for index in 0..<3 { board.send(.tap(index)) }
        try await draft.waitUntilDurable()
        let restored = try Self.restoredAfterPowerLoss(storage, newBoard: start)
        #expect(restored.state == board.state)
        #expect(restored.draft!.restore.snapshotSequence > 1, "a compaction succeeded once there was room")
    }

    /// Waiters for durability, each answer kept by its number; `pending` counts those not answered yet.
    final class Waiters: Sendable {
        let answers = DraftPipelineTests.Answers()
        let group = DispatchGroup()
        let targets = LockedValue<[UInt64]>([])

        /// Waits for every record `draft` has now, answered into `answers`.
        func wait(_ draft: BoardDraft) {
            let id = targets.withLock { targets in
                targets.append(draft.progress.appended)
                return targets.count - 1
            }
            group.enter()
            draft.waitUntilDurable { error in
                self.answers.values.withLock { $0[id] = error }
                self.group.leave()
            }
        }

        /// Whether every waiter was answered (it gives a waiter left waiting a minute, instead of hanging).
        var allAnswered: Bool { group.wait(timeout: .now() + 60) == .success }
    }

    /// A board on a draft whose writer is stuck in a write, then pushed past a pending bound of 2,000 bytes, with
    /// waiters from before and after the bound was passed.
    static func overflowed(_ storage: PowerLossStorage) async throws -> (CanvasBoard, BoardDraft, Waiters) {
        var options = DraftTests.options(storage)
        options.pendingLimit = 2_000
        let board = try CanvasBoard(draftAt: Self.url, newBoard: BoardState(canvasCount: 3), options: options)
        let draft = try #require(board.draft)
        try await draft.waitUntilDurable()
        storage.holdWrites(true)
        #expect(board.send(.tap(0)).isAccepted)
        while draft.progress.pendingBytes > 0 { await Task.yield() }
        let waiters = Waiters()
        waiters.wait(draft)
        for index in 1...300 {
            board.send(.tap(index % 3))
            if index % 50 == 0 { waiters.wait(draft) }
        }
        #expect(draft.progress.failure == .fellBehind(path: Self.path, limit: 2_000))
        waiters.wait(draft)
        #expect(waiters.answers.values.withLock { $0.isEmpty }, "answered while the writer is stuck")
        return (board, draft, waiters)
    }

    @Test("past the pending bound every waiter is answered durable once the rewrite is, and the listeners run")
    func overflowAnswersWaiters() async throws {
        let storage = PowerLossStorage()
        let (board, draft, waiters) = try await Self.overflowed(storage)
        // A record dropped from memory at the bound: durable through the rewrite.
        let listener = Task { await draft.durable(through: 150) }
        storage.holdWrites(false)
        #expect(waiters.allAnswered, "waiters left waiting")
        let answers = waiters.answers.values.withLock { $0 }
        #expect(answers.count == 8 && answers.values.allSatisfy { $0 == nil })
        #expect(waiters.targets.withLock { $0.allSatisfy { $0 <= draft.progress.durable } })
        await listener.value
        let restored = try Self.restoredAfterPowerLoss(storage, newBoard: BoardState(canvasCount: 3))
        #expect(restored.state == board.state)
    }

    @Test("past the pending bound on a disk that is then full: every waiter is answered with the error")
    func overflowOnFullDisk() async throws {
        let storage = PowerLossStorage()
        let (board, draft, waiters) = try await Self.overflowed(storage)
        storage.failOperations(true)
        storage.holdWrites(false)
        #expect(waiters.allAnswered, "waiters left waiting")
        let answers = waiters.answers.values.withLock { $0 }
        #expect(answers.count == 8)
        for answer in answers.values {
            guard case .io(_, _, ENOSPC) = answer else {
                Issue.record("answered \(String(describing: answer))")
                continue
            }
        }
        storage.failOperations(false)
        try await draft.waitUntilDurable()
        let restored = try Self.restoredAfterPowerLoss(storage, newBoard: BoardState(canvasCount: 3))
        #expect(restored.state == board.state)
    }

    @Test("space back for the probe but not for the rewrite: one compaction tried, then probes only, until it fits")
    func partialSpace() async throws {
        let storage = PowerLossStorage()
        let start = BoardState(canvasCount: 3)
        let board = try CanvasBoard(draftAt: Self.url, newBoard: start, options: DraftTests.options(storage))
        let draft = try #require(board.draft)
        try await draft.waitUntilDurable()
        // The last snapshot is the new board's; the board grows past it in the journal.
        let snapshotSize = try #require(storage.killImage()[Self.path + ".snapshot"]).count
        for event in [CanvasEvent.tap(1), .record, .stop(Boards.take("a-take-with-a-long-name.mov"))] {
            #expect(board.send(event).isAccepted)
        }
        try await draft.waitUntilDurable()
        storage.setFreeSpace(0)
        board.send(.tap(0))
        await #expect(throws: DraftError.self) { try await draft.waitUntilDurable() }
        let compactions = storage.writes(endingWith: ".snapshot.tmp")
        let probes = storage.writes(endingWith: ".draft.tmp")
        // Room for a write of the last snapshot's size, not for the board's snapshot now.
        storage.setFreeSpace(snapshotSize)
        for index in 0..<10 {
            board.send(.tap(index % 3))
            await #expect(throws: DraftError.self) { try await draft.waitUntilDurable() }
        }
        #expect(storage.writes(endingWith: ".snapshot.tmp") - compactions == 1, "compactions while the probe fails")
        #expect(storage.writes(endingWith: ".draft.tmp") - probes >= 10, "each batch probes")
        storage.setFreeSpace(nil)
        board.send(.tap(2))
        try await draft.waitUntilDurable()
        let restored = try Self.restoredAfterPowerLoss(storage, newBoard: start)
        #expect(restored.state == board.state)
    }
}

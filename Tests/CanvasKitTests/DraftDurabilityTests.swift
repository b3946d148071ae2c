import CanvasTestSupport
import Foundation
import SeededRandom
import Testing

@testable import CanvasKit

/// Durable means synced through the drive's cache: every sync asks for it, and a draft opened counts nothing it read
/// as durable before it synced it.
@Suite("Drafts: durability")
struct DraftDurabilityTests {
    static let path = "/k/board.draft"
    static let url = URL(fileURLWithPath: path)

    /// Waits until the writer has written every record handed to it (not synced).
    static func waitWritten(_ draft: BoardDraft) async {
        while draft.progress.written < draft.progress.appended { await Task.yield() }
    }

    @Test("kill, reopen, power loss: what the reopened draft reports durable survives")
    func killReopenPowerLoss() async throws {
        let storage = PowerLossStorage()
        let start = BoardState(canvasCount: 3)
        let board = try CanvasBoard(draftAt: Self.url, newBoard: start, options: DraftTests.options(storage))
        try await board.draft!.waitUntilDurable()
        storage.holdSyncs(true)
        for event in [CanvasEvent.tap(0), .record, .stop(Boards.take("a.mov")), .tap(1)] {
            #expect(board.send(event).isAccepted)
        }
        await Self.waitWritten(board.draft!)
        #expect(board.draft!.progress.durable == 0)
        // Killed: the records are in the page cache, not on the disk. The app starts again on them.
        let reopenedStorage = storage.afterKill()
        reopenedStorage.holdSyncs(true)
        let reopened = try CanvasBoard(
            draftAt: Self.url, newBoard: start, options: DraftTests.options(reopenedStorage))
        #expect(reopened.draft!.restore.sequence == 4)
        let reported = reopened.draft!.progress.durable
        // The power goes before the reopened draft could sync.
        var none: SplitMix64? = nil
        let afterPowerLoss = try CanvasBoard(
            draftAt: Self.url, newBoard: start,
            options: DraftTests.options(PowerLossStorage(files: reopenedStorage.powerLossImage(tornTail: &none))))
        #expect(afterPowerLoss.draft!.restore.sequence >= reported, "reported \(reported) durable, kept fewer")
        // Once the reopened draft synced what it read, it is durable.
        reopenedStorage.holdSyncs(false)
        try await reopened.draft!.waitUntilDurable()
        #expect(reopened.draft!.progress.durable == 4)
        let synced = try CanvasBoard(
            draftAt: Self.url, newBoard: start,
            options: DraftTests.options(PowerLossStorage(files: reopenedStorage.powerLossImage(tornTail: &none))))
        #expect(synced.state == board.state)
        storage.holdSyncs(false)
    }

    @Test("every sync asks for the level the options give: files, folders and compactions")
    func syncLevels() async throws {
        for level in [DraftSync.full, .system] {
            let storage = PowerLossStorage()
            var options = DraftTests.options(storage, threshold: 3)
            options.sync = level
            let board = try CanvasBoard(draftAt: Self.url, newBoard: BoardState(canvasCount: 3), options: options)
            for event in [CanvasEvent.tap(0), .tap(1), .tap(2), .tap(0), .tap(1)] { board.send(event) }
            try await board.draft!.close()
            let reopened = try CanvasBoard(
                draftAt: Self.url, newBoard: BoardState(canvasCount: 3), options: options)
            try await reopened.draft!.waitUntilDurable()
            #expect(storage.syncLevels.count >= 4)
            #expect(storage.syncLevels.allSatisfy { $0 == level })
        }
        #expect(DraftOptions().sync == .full)
    }

    @Test("a full sync is F_FULLFSYNC, then fsync, on Apple platforms; fsync elsewhere")
    func fullSyncCalls() {
        #expect(FileDraftStorage.calls(for: .full, onApple: true) == [.fullFsync, .fsync])
        #expect(FileDraftStorage.calls(for: .full, onApple: false) == [.fsync])
        #expect(FileDraftStorage.calls(for: .system, onApple: true) == [.fsync])
        #expect(FileDraftStorage.calls(for: .system, onApple: false) == [.fsync])
    }
}

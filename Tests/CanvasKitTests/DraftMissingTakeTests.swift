import CanvasTestSupport
import Foundation
import TestSupport
import Testing

@testable import CanvasKit

/// A take whose file is missing on restore stays on its canvas and is reported; only the app's `delete` removes it.
@Suite("Drafts: missing takes")
struct DraftMissingTakeTests {
    /// A draft in a fresh folder with a take in canvas 0 (`a.mov`, beside the draft) and one in canvas 1 (`b.mov`).
    static func draft() async throws -> (folder: TemporaryFolder, url: URL, takes: [URL]) {
        let folder = try TemporaryFolder()
        let url = folder.url.appending(path: "board.draft")
        let takes = [folder.url.appending(path: "a.mov"), folder.url.appending(path: "b.mov")]
        for take in takes { try Data().write(to: take) }
        let board = try CanvasBoard(draftAt: url, newBoard: BoardState(canvasCount: 2))
        DraftRootTests.record(takes, on: board)
        try await board.draft!.close()
        return (folder, url, takes)
    }

    /// `state` after a tap on the canvas at `index`, which holds the preview.
    static func deselected(_ state: BoardState, _ index: Int) -> BoardState {
        BoardState.transition(from: state, on: .tap(index)).next!
    }

    static func open(_ url: URL) throws -> CanvasBoard {
        try CanvasBoard(draftAt: url, newBoard: BoardState(canvasCount: 1))
    }

    @Test("a removed take file is reported at every restore, stays on its canvas, and goes once the app confirms")
    func confirmRemoval() async throws {
        let (folder, url, takes) = try await Self.draft()
        defer { withExtendedLifetime(folder) {} }
        try FileManager.default.removeItem(at: takes[1])
        for _ in 0..<2 {
            let board = try Self.open(url)
            #expect(board.draft!.restore.effects == [.takeMissing(index: 1, url: takes[1])])
            #expect(board.state.videoURL(at: 1) == takes[1])
            try await board.draft!.close()
        }
        let board = try Self.open(url)
        // The app confirms: `delete` is journaled like any event.
        let outcome = board.send(.delete(1))
        #expect(outcome.effects == [.takeRemoved(index: 1, urls: [takes[1]])])
        try await board.draft!.close()
        let after = try Self.open(url)
        #expect(after.draft!.restore.effects == [])
        #expect(after.state.videoURL(at: 1) == nil && after.state.videoURL(at: 0) == takes[0])
        try await after.draft!.close()
    }

    @Test("a take file that comes back (a volume mounted again) is on its canvas at the next restore")
    func fileReturns() async throws {
        let (folder, url, takes) = try await Self.draft()
        let aside = folder.url.appending(path: "aside.mov")
        try FileManager.default.moveItem(at: takes[0], to: aside)
        let missing = try Self.open(url)
        #expect(missing.draft!.restore.effects == [.takeMissing(index: 0, url: takes[0])])
        #expect(missing.send(.tap(1)).isAccepted)
        try await missing.draft!.close()

        try FileManager.default.moveItem(at: aside, to: takes[0])
        let back = try Self.open(url)
        // The restore finds it back: it relinks the take (journaled) and wants its cover again.
        #expect(back.draft!.restore.effects == [.coverWanted(index: 0, url: takes[0])])
        #expect(back.state.missingFile(at: 0) == nil)
        #expect(back.state.timelineTakes.map(\.url) == takes)
        #expect(back.state.selection == nil)
        try await back.draft!.close()
    }

    @Test("a restore with a file gone shows the take missing and reports it; the mark survives a restore and a kill")
    func shownMissing() async throws {
        let (folder, url, takes) = try await Self.draft()
        defer { withExtendedLifetime(folder) {} }
        try FileManager.default.removeItem(at: takes[1])
        let board = try Self.open(url)
        #expect(board.draft!.restore.effects == [.takeMissing(index: 1, url: takes[1])])
        #expect(board.state.missingFile(at: 1) == takes[1])
        // Canvas 1 holds the preview; once it gives it up, it shows its take missing.
        #expect(board.display(at: 1).take?.segmentCount == 1, "the take is still there")
        #expect(Self.deselected(board.state, 1).display(at: 1).picture == .missing(takes[1]))
        #expect(board.model(at: 1).missingFile == takes[1])
        #expect(board.display(at: 0).picture == .cover(takes[0]))
        try await board.draft!.close()
        let again = try Self.open(url)
        #expect(again.draft!.restore.effects == [.takeMissing(index: 1, url: takes[1])])
        #expect(again.draft!.restore.replayedRecords == board.draft!.restore.replayedRecords + 1, "marked once")
        #expect(Self.deselected(again.state, 1).display(at: 1).picture == .missing(takes[1]))
        try await again.draft!.close()
    }

    @Test("the restore's mark is journaled: a kill after it is durable keeps it, a kill before marks again")
    func markSurvivesKill() async throws {
        let storage = PowerLossStorage()
        let take = Boards.take("a.mov")
        let path = "/drafts/board.draft"
        let url = URL(fileURLWithPath: path)
        do {
            let board = try CanvasBoard(
                draftAt: url, newBoard: BoardState(canvasCount: 2), options: DraftTests.options(storage))
            for event: CanvasEvent in [.tap(0), .record, .stop(take), .tap(0)] { #expect(board.send(event).isAccepted) }
            try await board.draft!.close()
        }
        var options = DraftTests.options(storage)
        options.takeExists = { $0 != take }
        let restored = try CanvasBoard(draftAt: url, newBoard: BoardState(canvasCount: 1), options: options)
        #expect(restored.draft!.restore.effects == [.takeMissing(index: 0, url: take)])
        #expect(restored.display(at: 0).picture == .missing(take))
        try await restored.draft!.waitUntilDurable()
        // Killed: not closed. The mark is in the journal, and the next restore finds it there (nothing to mark).
        let killed = storage.afterKill()
        var killedOptions = DraftTests.options(killed)
        killedOptions.takeExists = options.takeExists
        let next = try CanvasBoard(draftAt: url, newBoard: BoardState(canvasCount: 1), options: killedOptions)
        #expect(next.draft!.restore.sequence == restored.draft!.restore.sequence + 1, "the mark's record")
        #expect(next.draft!.restore.effects == [.takeMissing(index: 0, url: take)])
        #expect(next.draft!.progress.appended == next.draft!.restore.sequence, "nothing journaled again")
        #expect(next.state == restored.state)
        try await next.draft!.close()
    }

    @Test("relink clears the mark and wants the cover; relinking a take that is not missing is rejected")
    func relink() async throws {
        let (folder, url, takes) = try await Self.draft()
        defer { withExtendedLifetime(folder) {} }
        let aside = folder.url.appending(path: "aside.mov")
        try FileManager.default.moveItem(at: takes[1], to: aside)
        let board = try Self.open(url)
        #expect(board.send(.relink(0)).rejection == .takeNotMissing(index: 0))
        #expect(board.send(.relink(5)).rejection == .indexOutOfRange(index: 5, count: 2))
        // The app finds the file again and says so; the board checks nothing on disk.
        try FileManager.default.moveItem(at: aside, to: takes[1])
        #expect(board.send(.relink(1)).effects == [.coverWanted(index: 1, url: takes[1])])
        #expect(Self.deselected(board.state, 1).display(at: 1).picture == .cover(takes[1]))
        #expect(board.send(.relink(1)).rejection == .takeNotMissing(index: 1))
        try await board.draft!.close()
        let after = try Self.open(url)
        #expect(after.draft!.restore.effects == [])
        #expect(after.state.missingFile(at: 1) == nil)
        try await after.draft!.close()
    }

    @Test("resume on a take marked missing is rejected, names the file, and is accepted once the take is relinked")
    func resumeMissing() async throws {
        let (folder, url, takes) = try await Self.draft()
        defer { withExtendedLifetime(folder) {} }
        let aside = folder.url.appending(path: "aside.mov")
        try FileManager.default.moveItem(at: takes[1], to: aside)
        let board = try Self.open(url)
        #expect(board.state.selection == .init(index: 1, phase: .inPreview))
        let before = board.state
        let rejection = board.send(.resume).rejection
        #expect(rejection == .takeMissing(index: 1, url: takes[1]))
        #expect(rejection?.kind.rawValue == "takeMissing")
        #expect(
            rejection?.description
                == "take missing: the take of canvas 1 cannot be continued, its file \(takes[1].path) is missing")
        #expect(board.state == before, "a rejection changes nothing")
        // A new take on the canvas is still allowed: it replaces the missing one.
        #expect(BoardState.transition(from: board.state, on: .record).isAccepted)
        try FileManager.default.moveItem(at: aside, to: takes[1])
        #expect(board.send(.relink(1)).isAccepted)
        #expect(board.send(.resume).isAccepted)
        try await board.draft!.close()
    }

    @Test("an armed undo survives a restore that marks or relinks a take: the next undo removes the segment")
    func armedUndoSurvivesRestore() async throws {
        let (folder, url, takes) = try await Self.draft()
        defer { withExtendedLifetime(folder) {} }
        let board = try Self.open(url)
        #expect(board.send(.undo(0)).isAccepted)
        #expect(board.display(at: 0).take?.isUndoArmed == true)
        try await board.draft!.close()
        let aside = folder.url.appending(path: "aside.mov")
        try FileManager.default.moveItem(at: takes[1], to: aside)
        let marked = try Self.open(url)
        #expect(marked.draft!.restore.effects == [.takeMissing(index: 1, url: takes[1])])
        #expect(marked.display(at: 0).take?.isUndoArmed == true, "the restore's mark leaves it armed")
        try await marked.draft!.close()
        // The files are back: this restore relinks the take, reading the journal the last one wrote (its mark and
        // the undo armed again).
        try FileManager.default.moveItem(at: aside, to: takes[1])
        let relinked = try Self.open(url)
        #expect(relinked.draft!.restore.effects == [.coverWanted(index: 1, url: takes[1])])
        #expect(relinked.display(at: 0).take?.isUndoArmed == true, "the restore's relink leaves it armed")
        #expect(relinked.send(.undo(0)).effects == [.segmentRemoved(index: 0, url: takes[0])])
        try await relinked.draft!.close()
    }

    @Test("a new take or a delete clears the mark")
    func replacedOrDeleted() async throws {
        let (folder, url, takes) = try await Self.draft()
        defer { withExtendedLifetime(folder) {} }
        for take in takes { try FileManager.default.removeItem(at: take) }
        let board = try Self.open(url)
        #expect(board.state.missingFile(at: 0) == takes[0] && board.state.missingFile(at: 1) == takes[1])
        let fresh = folder.url.appending(path: "c.mov")
        for event: CanvasEvent in [.tap(0), .record, .stop(fresh), .delete(1)] {
            #expect(board.send(event).isAccepted, "\(event)")
        }
        #expect(board.state.missingFile(at: 0) == nil && board.state.missingFile(at: 1) == nil)
        #expect(board.display(at: 1).picture == .addButton)
        try await board.draft!.close()
    }
}

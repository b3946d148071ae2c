import CanvasTestSupport
import Foundation
import TestSupport
import Testing

@testable import CanvasKit

/// One opener at a time, and a way out: `close()` gives the draft to the next opener, `discard()` removes it.
@Suite("Drafts: opening, closing, discarding")
struct DraftLifecycleTests {
    @Test("a second opener, in this process or through the lock file, is told the draft is in use")
    func secondOpenerRefused() async throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appending(path: "board.draft")
        let options = DraftOptions(takeExists: DraftTests.allTakesExist)
        let board = try CanvasBoard(draftAt: url, newBoard: BoardState(canvasCount: 2), options: options)
        board.send(.tap(0))
        #expect(throws: DraftError.inUse(path: url.path)) {
            try CanvasBoard(draftAt: url, newBoard: BoardState(canvasCount: 2), options: options)
        }
        #expect(DraftError.inUse(path: "a").description == "draft 'a' is in use: another board has it open")
        try await board.draft!.close()
        // Closed: the next opener gets it, with everything the first board journaled.
        let next = try CanvasBoard(draftAt: url, newBoard: BoardState(canvasCount: 2), options: options)
        #expect(next.state == board.state)
        // The first board goes on in memory, journaling nothing and holding nothing back.
        #expect(board.send(.tap(1)).draftRecord == nil)
        try await next.draft!.close()
    }

    @Test("discard removes the files, and later events do not bring them back")
    func discard() async throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appending(path: "board.draft")
        let options = DraftOptions(takeExists: DraftTests.allTakesExist)
        let board = try CanvasBoard(draftAt: url, newBoard: BoardState(canvasCount: 2), options: options)
        for event in [CanvasEvent.tap(0), .record, .stop(Boards.take("a.mov"))] { board.send(event) }
        try await board.draft!.discard()
        for event in [CanvasEvent.tap(1), .record, .stop(Boards.take("b.mov"))] {
            #expect(board.send(event).isAccepted)
        }
        try await board.draft!.waitUntilDurable()
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
        #expect(left == [])
        let fresh = try CanvasBoard(draftAt: url, newBoard: BoardState(canvasCount: 1), options: options)
        #expect(fresh.draft!.restore.isNew)
        try await fresh.draft!.close()
    }
}

import CanvasTestSupport
import Foundation
import TestSupport
import Testing

@testable import CanvasKit

/// A draft that cannot be opened falls back to a new draft beside it, never to a board that journals nothing.
@Suite("Drafts: falling back to a new draft")
struct DraftFallbackTests {
    @Test("a damaged draft or one in use: a new draft at the next free name, journaled, the old one left as it was")
    func fallback() async throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appending(path: "board.draft")
        let options = DraftOptions(takeExists: DraftTests.allTakesExist)
        try Data("not a draft".utf8).write(to: url)
        let first = try CanvasBoard.openingDraft(at: url, newBoard: BoardState(canvasCount: 2), options: options)
        #expect(first.failure == .notADraft(path: url.path))
        #expect(first.url == folder.url.appending(path: "board-2.draft"))
        #expect(first.board.send(.tap(1)).draftRecord != nil)
        #expect(try Data(contentsOf: url) == Data("not a draft".utf8))

        // board-2 is taken: the next opening of the damaged draft takes board-3.
        let second = try CanvasBoard.openingDraft(at: url, newBoard: BoardState(canvasCount: 2), options: options)
        #expect(second.failure == .notADraft(path: url.path))
        #expect(second.url == folder.url.appending(path: "board-3.draft"))
        try await second.board.draft!.close()
        // A draft in use by another board: a new one beside it too.
        let third = try CanvasBoard.openingDraft(at: first.url, newBoard: BoardState(canvasCount: 2), options: options)
        #expect(third.failure == .inUse(path: first.url.path))
        #expect(third.url == folder.url.appending(path: "board-2-2.draft"))
        try await third.board.draft!.close()
        try await first.board.draft!.close()

        // The fallback draft kept what its board was sent; an openable draft opens with no failure.
        let again = try CanvasBoard.openingDraft(at: first.url, newBoard: BoardState(canvasCount: 1), options: options)
        #expect(again.failure == nil && again.url == first.url)
        #expect(again.board.state.selection == .init(index: 1, phase: .inPreview))
        try await again.board.draft!.close()
    }
}

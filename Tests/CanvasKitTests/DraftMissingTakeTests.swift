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
        #expect(back.draft!.restore.effects == [])
        #expect(back.state.timelineTakes.map(\.url) == takes)
        #expect(back.state.selection == nil)
        try await back.draft!.close()
    }
}

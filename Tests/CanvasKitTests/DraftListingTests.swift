import CanvasTestSupport
import Foundation
import TestSupport
import Testing

@testable import CanvasKit

/// `BoardDraft.drafts(in:options:)`: what drafts a folder holds, and whether each can be opened now.
@Suite("Drafts: listing a folder")
struct DraftListingTests {
    static func make(_ url: URL) async throws {
        let board = try CanvasBoard(draftAt: url, newBoard: BoardState(canvasCount: 2))
        for event in [CanvasEvent.tap(0), .record, .stop(Boards.take("a.mov"))] { board.send(event) }
        try await board.draft!.close()
    }

    @Test("readable, in use and damaged drafts are listed; takes, companions, FIFOs and other files are not")
    func listing() async throws {
        let folder = try TemporaryFolder()
        let url = { (name: String) in folder.url.appending(path: name) }
        for name in ["a.draft", "b.draft", "c.draft", "d.draft"] { try await Self.make(url(name)) }
        // c: a damaged snapshot header; d: a journal whose snapshot is gone.
        var snapshot = try Data(contentsOf: url("c.draft.snapshot"))
        snapshot[12] ^= 0xFF
        try snapshot.write(to: url("c.draft.snapshot"))
        try FileManager.default.removeItem(at: url("d.draft.snapshot"))
        try Data(repeating: 7, count: 4096).write(to: url("take.mov"))
        try Data("notes".utf8).write(to: url("notes.txt"))
        try FileManager.default.copyItem(at: url("a.draft"), to: url("a.draft.damaged"))
        #expect(mkfifo(url("pipe").path, 0o600) == 0)
        let inUse = try CanvasBoard(draftAt: url("b.draft"), newBoard: BoardState(canvasCount: 2))
        // The opening's own writes run in the background: the folder is compared once they are done, so that only
        // the listing could change it.
        try await inUse.draft!.waitUntilDurable()
        let before = try Self.contents(of: folder.url)

        let found = try BoardDraft.drafts(in: folder.url)
        #expect(found.map(\.url.lastPathComponent) == ["a.draft", "b.draft", "c.draft", "d.draft"])
        #expect(found[0].state == .readable)
        #expect(found[1].state == .inUse)
        #expect(
            found[2].state
                == .damaged(
                    .corrupt(path: url("c.draft.snapshot").path, reason: "the header's checksum does not match")))
        #expect(
            found[3].state
                == .damaged(
                    .snapshotMismatch(
                        path: url("d.draft").path, reason: "its snapshot '\(url("d.draft.snapshot").path)' is missing"))
        )
        // Nothing changed, and the draft in use is still its board's.
        #expect(try Self.contents(of: folder.url) == before)
        #expect(inUse.send(.tap(1)).isAccepted)
        try await inUse.draft!.close()
        // A missing folder: one error naming it.
        #expect(throws: DraftError.self) { try BoardDraft.drafts(in: url("nowhere")) }
    }

    @Test("a storage of its own: the folder's entries and the files are read through it, not on the file system")
    func customStorage() async throws {
        let storage = PowerLossStorage()
        let options = DraftTests.options(storage)
        let url = { (name: String) in URL(fileURLWithPath: "/in-memory/\(name)") }
        for name in ["a.draft", "b.draft"] {
            let board = try CanvasBoard(draftAt: url(name), newBoard: BoardState(canvasCount: 2), options: options)
            #expect(board.send(.tap(0)).isAccepted)
            try await board.draft!.close()
        }
        try storage.write(Array("notes".utf8), to: url("notes.txt").path)
        try storage.write([1, 2, 3], to: "/in-memory/other/c.draft.snapshot")
        let inUse = try CanvasBoard(draftAt: url("b.draft"), newBoard: BoardState(canvasCount: 2), options: options)
        let found = try BoardDraft.drafts(in: URL(fileURLWithPath: "/in-memory"), options: options)
        #expect(found.map(\.url.lastPathComponent) == ["a.draft", "b.draft"])
        #expect(found.map(\.state) == [.readable, .inUse])
        try await inUse.draft!.close()
    }

    /// Every regular file's bytes but the lock files'.
    static func contents(of folder: URL) throws -> [String: Data] {
        var contents: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path)
        where !name.hasSuffix(".lock") && name != "pipe" {
            contents[name] = try Data(contentsOf: folder.appending(path: name))
        }
        return contents
    }
}

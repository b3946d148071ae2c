import CanvasTestSupport
import Foundation
import TestSupport
import Testing

@testable import CanvasKit

/// Every file a draft creates is given the data protection its options ask for, through the storage.
@Suite("Drafts: file protection")
struct DraftProtectionTests {
    @Test(
        "every file a draft creates is protected as asked (by default until the first unlock) before it is put in place",
        arguments: [nil, DraftProtection.complete])
    func protection(asked: DraftProtection?) async throws {
        let storage = PowerLossStorage()
        var options = DraftOptions(storage: storage, compactionThreshold: 3, takeExists: DraftTests.allTakesExist)
        if let asked { options.protection = asked }
        let board = try CanvasBoard(
            draftAt: URL(fileURLWithPath: "/p/board.draft"), newBoard: BoardState(canvasCount: 3), options: options)
        for index in 0..<3 {
            for event in [CanvasEvent.tap(index), .record, .stop(Boards.take("t\(index).mov"))] { board.send(event) }
        }
        try await board.draft!.close()
        // The new draft's snapshot and journal, then those of each compaction (how many depends on the batches).
        #expect(storage.writePaths.count >= 2)
        #expect(storage.protections.map(\.path) == storage.writePaths)
        let expected = asked ?? .completeUntilFirstUserAuthentication
        #expect(storage.protections.allSatisfy { $0.protection == expected })
    }

    @Test("the file system storage accepts every protection (on Linux there is none to set)")
    func fileStorage() throws {
        let folder = try TemporaryFolder()
        let path = folder.url.appending(path: "x.tmp").path
        let storage = FileDraftStorage()
        try storage.write([1, 2, 3], to: path)
        for protection in DraftProtection.allCases { try storage.protect(path, protection) }
        #expect(try storage.contents(of: path) == [1, 2, 3])
    }
}

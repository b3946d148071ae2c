import CanvasTestSupport
import Foundation
import TestSupport
import Testing

@testable import CanvasKit

/// Takes are journaled relative to a root (the draft's folder by default), so a draft moved with its takes finds them.
@Suite("Drafts: takes relative to a root")
struct DraftRootTests {
    /// Records a take into each canvas of a 3-canvas board: `takes[i]` into canvas i.
    static func record(_ takes: [URL], on board: CanvasBoard) {
        for (index, take) in takes.enumerated() {
            for event in [CanvasEvent.tap(index), .record, .stop(take, start: Double(index))] {
                #expect(board.send(event).isAccepted)
            }
        }
    }

    static func touch(_ url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data().write(to: url)
    }

    @Test("a draft moved with its takes restores every take; a take outside its folder keeps its whole URL")
    func movedFolder() async throws {
        let folder = try TemporaryFolder()
        let project = folder.url.appending(path: "project", directoryHint: .isDirectory)
        let outside = folder.url.appending(path: "outside/c.mov")
        let takes = [project.appending(path: "a.mov"), project.appending(path: "takes/b.mov"), outside]
        for take in takes { try Self.touch(take) }
        // A small threshold: the snapshot holds some takes, the journal the others.
        let options = DraftOptions(compactionThreshold: 4)
        let board = try CanvasBoard(
            draftAt: project.appending(path: "board.draft"), newBoard: BoardState(canvasCount: 3), options: options)
        Self.record(takes, on: board)
        try await board.draft!.close()
        for name in ["board.draft", "board.draft.snapshot"] {
            let bytes = try Data(contentsOf: project.appending(path: name))
            #expect(bytes.range(of: Data(project.path.utf8)) == nil, "\(name) names the folder")
        }

        let moved = folder.url.appending(path: "moved", directoryHint: .isDirectory)
        try FileManager.default.moveItem(at: project, to: moved)
        let restored = try CanvasBoard(
            draftAt: moved.appending(path: "board.draft"), newBoard: BoardState(canvasCount: 1), options: options)
        #expect(restored.draft!.restore.effects == [])
        #expect(restored.state.videoURL(at: 0) == moved.appending(path: "a.mov"))
        #expect(restored.state.videoURL(at: 1) == moved.appending(path: "takes/b.mov"))
        #expect(restored.state.videoURL(at: 2) == outside)
        #expect(restored.state.timelineTakes.map(\.start) == [0, 1, 2])
        try await restored.draft!.close()
    }

    @Test("takes are journaled relative to the root the app gives, wherever the draft is")
    func givenRoot() async throws {
        let folder = try TemporaryFolder()
        let media = folder.url.appending(path: "media", directoryHint: .isDirectory)
        let url = folder.url.appending(path: "drafts/board.draft")
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let takes = ["a.mov", "b.mov", "c.mov"].map { media.appending(path: $0) }
        for take in takes { try Self.touch(take) }
        let board = try CanvasBoard(
            draftAt: url, newBoard: BoardState(canvasCount: 3), options: DraftOptions(takeRoot: media))
        Self.record(takes, on: board)
        try await board.draft!.close()

        let remounted = folder.url.appending(path: "remounted", directoryHint: .isDirectory)
        try FileManager.default.moveItem(at: media, to: remounted)
        let restored = try CanvasBoard(
            draftAt: url, newBoard: BoardState(canvasCount: 1), options: DraftOptions(takeRoot: remounted))
        #expect(restored.draft!.restore.effects == [])
        #expect(
            restored.state.timelineTakes.map(\.url)
                == ["a.mov", "b.mov", "c.mov"].map { remounted.appending(path: $0) })
        try await restored.draft!.close()
    }

    @Test("a path below the root that climbs out of it is damage, not a take")
    func climbingPath() throws {
        let root = DraftRoot(folder: URL(fileURLWithPath: "/drafts/", isDirectory: true))
        #expect(root.relativePath(of: URL(fileURLWithPath: "/drafts/x/../a.mov")) == "a.mov")
        #expect(root.relativePath(of: URL(fileURLWithPath: "/draftsmore/a.mov")) == nil)
        #expect(root.url(relativePath: "../etc/passwd") == nil)
        #expect(root.url(relativePath: "/etc/passwd") == nil)
        // A stop naming "../a.mov" below the root.
        var bytes: [UInt8] = [3, 8] + Array("../a.mov".utf8) + [2]
        withUnsafeBytes(of: Double(0).bitPattern.littleEndian) { bytes += $0 }
        #expect(throws: DraftRecordCodec.Failure.self) { try DraftRecordCodec.decode(bytes[...], root: root) }
    }

    /// `Fixtures/drafts/version-1`: a draft written by the format's first version, every URL whole.
    static let versionOne = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appending(path: "Fixtures/drafts/version-1")

    /// `Fixtures/drafts/version-2`: drafts written in format version 2 by the library that journaled missing marks
    /// under it: takes `a.mov`, `b.mov`, `c.mov` beside the draft on canvases 0-2, `b.mov` marked missing and `c.mov`
    /// marked then relinked (record kinds 20 and 21 in `journal.draft`; the mark in `board.draft.snapshot`).
    static let versionTwo = versionOne.deletingLastPathComponent().appending(path: "version-2")

    @Test(
        "a version 2 draft holding missing marks is read with them, then rewritten in version 3",
        arguments: ["board", "journal"])
    func versionTwoFixture(name: String) async throws {
        let folder = try TemporaryFolder()
        for file in ["\(name).draft", "\(name).draft.snapshot"] {
            try FileManager.default.copyItem(
                at: Self.versionTwo.appending(path: file), to: folder.url.appending(path: file))
            #expect(try Data(contentsOf: folder.url.appending(path: file))[8] == 2, "\(file) as written")
        }
        let takes = ["a.mov", "b.mov", "c.mov"].map { folder.url.appending(path: $0) }
        for take in [takes[0], takes[2]] { try Data().write(to: take) }
        let url = folder.url.appending(path: "\(name).draft")
        for pass in 0..<2 {
            let board = try CanvasBoard(draftAt: url, newBoard: BoardState(canvasCount: 1))
            #expect(board.draft!.restore.sequence == 16, "pass \(pass)")
            // canvas-sim wrote each take as its name relative to the folder it ran in, which was the draft's.
            let missing = try #require(board.state.missingFile(at: 1))
            #expect(missing.path == takes[1].path, "pass \(pass)")
            #expect(board.draft!.restore.effects == [.takeMissing(index: 1, url: missing)], "pass \(pass)")
            #expect((0..<3).map { board.state.videoURL(at: $0)?.path } == takes.map(\.path))
            #expect(board.state.missingFile(at: 0) == nil && board.state.missingFile(at: 2) == nil)
            try await board.draft!.close()
            for file in ["\(name).draft", "\(name).draft.snapshot"] {
                let bytes = try Data(contentsOf: folder.url.appending(path: file))
                #expect(bytes[8] == 3, "\(file) is rewritten in version 3 (pass \(pass))")
            }
        }
    }

    @Test("a draft holding a missing mark is written in format version 3, which a version 2 reader refuses as newer")
    func marksAreVersionThree() async throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appending(path: "board.draft")
        let take = folder.url.appending(path: "a.mov")
        let board = try CanvasBoard(draftAt: url, newBoard: BoardState(canvasCount: 1))
        Self.record([take], on: board)
        #expect(board.send(.markMissing(0, take)).isAccepted)
        try await board.draft!.close()
        for file in ["board.draft", "board.draft.snapshot"] {
            let bytes = try Data(contentsOf: folder.url.appending(path: file))
            // A reader refuses every version above the one it reads (DraftCorruptionTests), so a library that reads up
            // to version 2, from before the marks, says "from a newer version" instead of "corrupt".
            #expect(bytes[8] == 3 && bytes[9] == 0, "\(file)")
        }
        let again = try CanvasBoard(draftAt: url, newBoard: BoardState(canvasCount: 1))
        #expect(again.state.missingFile(at: 0) == take)
        try await again.draft!.close()
    }

    @Test(
        "a draft of the first format version is read as it was written, then rewritten in the current version",
        arguments: ["board", "journal"])
    func versionOneFixture(name: String) async throws {
        // `board`: the takes are in the snapshot; `journal`: in the journal's records.
        let folder = try TemporaryFolder()
        for file in ["\(name).draft", "\(name).draft.snapshot"] {
            try FileManager.default.copyItem(
                at: Self.versionOne.appending(path: file), to: folder.url.appending(path: file))
        }
        let url = folder.url.appending(path: "\(name).draft")
        let options = DraftOptions(takeExists: DraftTests.allTakesExist)
        let board = try CanvasBoard(draftAt: url, newBoard: BoardState(canvasCount: 1), options: options)
        let written = URL(string: "file:///tmp/fx/")!
        let expected = try BoardState(
            takes: [URL(string: "a.mov", relativeTo: written), nil, URL(fileURLWithPath: "/elsewhere/c.mov")])
        #expect(board.state.canvases == expected.canvases)
        #expect(board.draft!.restore.sequence == 14)
        try await board.draft!.close()
        for file in ["\(name).draft", "\(name).draft.snapshot"] {
            let bytes = try Data(contentsOf: folder.url.appending(path: file))
            #expect(bytes[8] == UInt8(DraftFormat.version), "\(file) is rewritten in the current version")
        }
        let again = try CanvasBoard(draftAt: url, newBoard: BoardState(canvasCount: 1), options: options)
        #expect(again.state.canvases == expected.canvases)
        try await again.draft!.close()
    }
}

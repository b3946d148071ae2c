import Foundation
import TestSupport
import Testing

@testable import CanvasKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A draft's path is untrusted input: anything but a regular file is refused in one line before any read, a huge file
/// is refused unread, and links planted at the draft's temporary names are never written through.
@Suite("Drafts: files handled like untrusted input")
struct DraftUntrustedFileTests {
    static let options = DraftOptions(takeExists: DraftTests.allTakesExist)

    static func open(_ url: URL) -> DraftError? {
        do {
            let board = try CanvasBoard(draftAt: url, newBoard: BoardState(canvasCount: 1), options: options)
            _ = board
            return nil
        } catch {
            #expect(!error.description.contains("\n"))
            return error
        }
    }

    @Test("a FIFO, a device, a folder and a link are refused before anything is read")
    func specialFiles() throws {
        let folder = try TemporaryFolder()
        let fifo = folder.url.appending(path: "fifo.draft")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        #expect(Self.open(fifo) == .notAFile(path: fifo.path, kind: "a FIFO"))
        #expect(Self.open(URL(fileURLWithPath: "/dev/zero")) == .notAFile(path: "/dev/zero", kind: "a device"))
        #expect(!FileManager.default.fileExists(atPath: "/dev/zero.lock"))
        let sub = folder.url.appending(path: "sub.draft")
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: false)
        #expect(Self.open(sub) == .notAFile(path: sub.path, kind: "a folder"))
        let link = folder.url.appending(path: "link.draft")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: sub.path)
        #expect(Self.open(link) == .notAFile(path: link.path, kind: "a symbolic link"))
        #expect(
            DraftError.notAFile(path: "a", kind: "a FIFO").description == "draft 'a' is a FIFO, not a regular file")
    }

    @Test("a 2 GB sparse file is refused unread")
    func hugeSparseFile() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appending(path: "huge.draft")
        #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
        #expect(truncate(url.path, 2 << 30) == 0)
        guard case .corrupt(let path, let reason) = Self.open(url) else {
            Issue.record("a 2 GB file was not refused")
            return
        }
        #expect(path == url.path && reason.contains("more than a draft can"))
    }

    @Test("links planted at the temporary names are replaced, never written through")
    func plantedLinks() async throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appending(path: "board.draft")
        let victim = folder.url.appending(path: "victim.txt")
        try Data("keep me".utf8).write(to: victim)
        for name in ["board.draft.tmp", "board.draft.snapshot.tmp"] {
            try FileManager.default.createSymbolicLink(
                atPath: folder.url.appending(path: name).path, withDestinationPath: victim.path)
        }
        let board = try CanvasBoard(draftAt: url, newBoard: BoardState(canvasCount: 2), options: Self.options)
        board.send(.tap(1))
        try await board.draft!.close()
        #expect(try Data(contentsOf: victim) == Data("keep me".utf8))
        let reopened = try CanvasBoard(draftAt: url, newBoard: BoardState(canvasCount: 1), options: Self.options)
        #expect(reopened.state == board.state)
        try await reopened.draft!.close()
    }

    @Test("links planted at the snapshot's and the lock's names are refused, and their target is left as it was")
    func plantedSnapshotAndLockLinks() throws {
        let folder = try TemporaryFolder()
        let victim = folder.url.appending(path: "victim.txt")
        try Data("keep me".utf8).write(to: victim)
        for name in ["a.draft.snapshot", "b.draft.lock"] {
            try FileManager.default.createSymbolicLink(
                atPath: folder.url.appending(path: name).path, withDestinationPath: victim.path)
        }
        let snapshot = folder.url.appending(path: "a.draft.snapshot")
        #expect(
            Self.open(folder.url.appending(path: "a.draft")) == .notAFile(path: snapshot.path, kind: "a symbolic link"))
        guard case .io(let path, "open", ELOOP) = Self.open(folder.url.appending(path: "b.draft")) else {
            Issue.record("a link at the lock's name was followed")
            return
        }
        #expect(path.hasSuffix("b.draft.lock"))
        #expect(try Data(contentsOf: victim) == Data("keep me".utf8))
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
        #expect(left == ["a.draft.lock", "a.draft.snapshot", "b.draft.lock", "victim.txt"], "only the empty lock file")
    }

    @Test("a record of an absurd length: damage in the journal's middle, a torn write at its end, a refused snapshot")
    func absurdLength() async throws {
        let (journal, snapshot) = try await DraftCorruptionTests.files()
        let path = DraftCorruptionTests.path
        let absurd: [UInt8] = [0xF0, 0xFF, 0xFF, 0xFF]
        // The third record says it is almost 4 GiB long: above the format's limit, so it is not read, and the whole
        // records after it make it damage, kept aside.
        var offset = DraftFormat.headerSize
        for _ in 0..<2 {
            offset += DraftFormat.recordHeaderSize + Int(DraftFormat.read(UInt32.self, journal, at: offset))
        }
        var middle = journal
        middle.replaceSubrange(offset..<(offset + 4), with: absurd)
        let storage = PowerLossStorage(files: [path: middle, path + ".snapshot": snapshot])
        let board = try CanvasBoard(
            draftAt: DraftCorruptionTests.url, newBoard: DraftCorruptionTests.start,
            options: DraftTests.options(storage))
        #expect(board.draft!.restore.sequence == 2)
        #expect(board.draft!.restore.corruption?.lastGoodRecord == 2)
        #expect(storage.killImage()[path + ".damaged"] == middle, "the damaged journal is kept as it was")
        // At the end, with nothing whole after it: a write torn by a kill, one record dropped.
        let tail = journal + absurd + [UInt8](repeating: 0, count: 12)
        let torn = try CanvasBoard(
            draftAt: DraftCorruptionTests.url, newBoard: DraftCorruptionTests.start,
            options: DraftTests.options(PowerLossStorage(files: [path: tail, path + ".snapshot": snapshot])))
        #expect(torn.draft!.restore.sequence == UInt64(DraftCorruptionTests.events.count))
        #expect(torn.draft!.restore.droppedRecords == 1 && torn.draft!.restore.corruption == nil)
        // In the snapshot, whose one record must be whole: refused.
        var badSnapshot = snapshot
        badSnapshot.replaceSubrange(DraftFormat.headerSize..<(DraftFormat.headerSize + 4), with: absurd)
        #expect(
            DraftCorruptionTests.open([path: journal, path + ".snapshot": badSnapshot])
                == .corrupt(path: path + ".snapshot", reason: "its board record is damaged or missing"))
    }
}

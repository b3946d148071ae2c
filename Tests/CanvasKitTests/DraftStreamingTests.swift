import CanvasTestSupport
import Foundation
import TestSupport
import Testing

@testable import CanvasKit

/// A restore reads each file in pieces and decodes records as they come: it never asks for, or holds, a whole file.
@Suite("Drafts: streaming reads")
struct DraftStreamingTests {
    /// A draft of about 20 MiB in `folder`: a recording take whose file was noted 2,500 times, each under a path of
    /// about 8 KiB (so records straddle the pieces), then stopped. - Returns: its URL and the board.
    static func bigDraft(in folder: URL) async throws -> (URL, BoardState) {
        let url = folder.appending(path: "big.draft")
        let options = DraftOptions(compactionThreshold: 1_000_000, takeExists: { _ in true })
        let board = try CanvasBoard(draftAt: url, newBoard: BoardState(canvasCount: 2), options: options)
        let draft = try #require(board.draft)
        // The new draft's files first, so that every record goes to the journal.
        try await draft.waitUntilDurable()
        #expect(board.send(.tap(0)).isAccepted && board.send(.record).isAccepted)
        let deep = "/" + Array(repeating: String(repeating: "p", count: 200), count: 40).joined(separator: "/")
        for index in 0..<2_500 {
            draft.noteRecordingFile(URL(fileURLWithPath: deep + "/take-\(index).mov"))
            // Within the pending bound, so every record reaches the journal.
            if index % 200 == 199 { try await draft.waitUntilDurable() }
        }
        #expect(board.send(.stop(Boards.take("a.mov"))).isAccepted)
        try await draft.close()
        return (url, board.state)
    }

    static func size(_ url: URL) throws -> Int {
        try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int ?? 0
    }

    @Test("a draft of many MiB restores through reads of one piece at most, each byte read once")
    func bigDraftRestores() async throws {
        let folder = try TemporaryFolder()
        let (url, board) = try await Self.bigDraft(in: folder.url)
        let journalSize = try Self.size(url)
        #expect(journalSize > 16 << 20)
        let counting = CountingStorage(FileDraftStorage())
        let options = DraftOptions(storage: counting, compactionThreshold: 1_000_000, takeExists: { _ in true })
        let restored = try CanvasBoard(draftAt: url, newBoard: BoardState(canvasCount: 1), options: options)
        #expect(restored.state == board)
        #expect(restored.draft!.restore.replayedRecords == 2_503 && restored.draft!.restore.droppedRecords == 0)
        let counts = counting.counts
        #expect(counts.wholeReads == 0, "a file was read whole")
        #expect(counts.largestRead <= DraftRecordReader.pieceSize)
        #expect(counts.bytesRead == journalSize + (try Self.size(url.appendingPathExtension("snapshot"))))
        try await restored.draft!.close()

        // The reader itself holds one piece and one record at most.
        var reader = try #require(try DraftRecordReader(path: url.path, storage: FileDraftStorage()))
        _ = try reader.header(expecting: .journal)
        var largest = 0
        var records = 0
        while let record = try reader.next() {
            largest = max(largest, record.payload.count)
            records += 1
        }
        #expect(records == 2_503 && reader.isAtEnd)
        #expect(reader.peakHeld <= DraftRecordReader.pieceSize + DraftFormat.recordHeaderSize + largest)
        #expect(reader.peakHeld < journalSize / 100)
    }

    @Test("damage in the middle of a large journal: found across pieces, reported as before, the file kept")
    func damageAcrossPieces() async throws {
        let folder = try TemporaryFolder()
        let (url, _) = try await Self.bigDraft(in: folder.url)
        var journal = [UInt8](try Data(contentsOf: url))
        var offsets: [Int] = []
        var offset = DraftFormat.headerSize
        while let record = DraftFormat.record(in: journal, at: offset) {
            offsets.append(offset)
            offset += DraftFormat.recordHeaderSize + record.payload.count
        }
        #expect(offsets.count == 2_503)
        let damaged = 1_250
        journal[offsets[damaged] + DraftFormat.recordHeaderSize + 100] ^= 0x20
        try Data(journal).write(to: url)
        let counting = CountingStorage(FileDraftStorage())
        let options = DraftOptions(storage: counting, compactionThreshold: 1_000_000, takeExists: { _ in true })
        let restored = try CanvasBoard(draftAt: url, newBoard: BoardState(canvasCount: 1), options: options)
        let restore = restored.draft!.restore
        #expect(restore.sequence == UInt64(damaged))
        #expect(restore.droppedRecords == offsets.count - damaged)
        #expect(restore.corruption?.offset == offsets[damaged])
        #expect(restore.corruption?.laterRecords == offsets.count - damaged - 1)
        #expect(restore.corruption?.lastLaterRecord == UInt64(offsets.count))
        #expect(counting.counts.largestRead <= DraftRecordReader.pieceSize)
        #expect(try Data(contentsOf: url.appendingPathExtension("damaged")) == Data(journal))
        try await restored.draft!.close()
    }

    /// What opening `files` gives: the restore, or the error.
    static func opening(_ files: [String: [UInt8]], pieceLimit: Int?) -> Result<DraftRestore, DraftError> {
        let storage = CountingStorage(PowerLossStorage(files: files), pieceLimit: pieceLimit)
        do throws(DraftError) {
            let board = try CanvasBoard(
                draftAt: DraftCorruptionTests.url, newBoard: DraftCorruptionTests.start,
                options: DraftTests.options(storage))
            return .success(board.draft!.restore)
        } catch {
            return .failure(error)
        }
    }

    @Test("pieces of any length: a journal cut or damaged anywhere restores as when it is read in one piece")
    func piecesOfAnyLength() async throws {
        let (journal, snapshot) = try await DraftCorruptionTests.files()
        let snapshotPath = DraftCorruptionTests.path + ".snapshot"
        var cases: [[UInt8]] = (0...journal.count).map { Array(journal[0..<$0]) }
        for index in journal.indices {
            var flipped = journal
            flipped[index] ^= 0x5A
            cases.append(flipped)
            cases.append(flipped + [UInt8](repeating: 0, count: 40))
        }
        for (number, bytes) in cases.enumerated() {
            let files = [DraftCorruptionTests.path: bytes, snapshotPath: snapshot]
            let whole = Self.opening(files, pieceLimit: nil)
            let pieces = Self.opening(files, pieceLimit: 1 + number % 17)
            #expect(whole == pieces, "case \(number)")
        }
    }
}

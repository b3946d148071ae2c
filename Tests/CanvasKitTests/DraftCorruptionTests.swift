import CanvasTestSupport
import Foundation
import SeededRandom
import Testing

@testable import CanvasKit

/// Damaged drafts: whatever the bytes, opening gives a typed error with a one-line reason or a board equal to the
/// reference board after a prefix of the events; never a crash.
@Suite("Drafts: damaged files")
struct DraftCorruptionTests {
    static let path = "/x/board.draft"
    static let url = URL(fileURLWithPath: path)
    static let start = BoardState(canvasCount: 3)
    static let events: [CanvasEvent] = [
        .tap(0), .record, .stop(Boards.take("a.mov")), .tap(1), .add, .record, .cancel, .tap(3), .record,
        .stop(Boards.take("b.mov")), .delete(0), .tap(3),
    ]

    /// The files of a small draft after `events` (journal and snapshot), and the reference boards per prefix.
    static func files(threshold: Int = 10_000) async throws -> (journal: [UInt8], snapshot: [UInt8]) {
        let storage = PowerLossStorage()
        let board = try CanvasBoard(
            draftAt: url, newBoard: start, options: DraftTests.options(storage, threshold: threshold))
        // The new draft's files first, so the events go to the journal.
        try await board.draft!.waitUntilDurable()
        for event in events { #expect(board.send(event).isAccepted) }
        try await board.draft!.waitUntilDurable()
        let image = storage.killImage()
        return (image[path]!, image[path + ".snapshot"]!)
    }

    static let prefixes = DraftTests.prefixes(of: events, from: start)

    /// Opens `files`; returns the error, or checks the board against the reference prefix it claims.
    @discardableResult
    static func open(_ files: [String: [UInt8]], _ comment: Comment? = nil) -> DraftError? {
        do {
            let board = try CanvasBoard(
                draftAt: url, newBoard: start, options: DraftTests.options(PowerLossStorage(files: files)))
            let sequence = Int(board.draft!.restore.sequence)
            #expect(sequence < prefixes.count, comment)
            if sequence < prefixes.count {
                #expect(ReferenceBoard(board.state) == DraftTests.recovered(prefixes[sequence]), comment)
            }
            return nil
        } catch {
            #expect(!error.description.isEmpty && !error.description.contains("\n"), comment)
            return error
        }
    }

    @Test("a journal truncated at every byte")
    func truncatedEverywhere() async throws {
        let (journal, snapshot) = try await Self.files()
        var restoredCounts: Set<Int> = []
        for length in 0...journal.count {
            let files = [Self.path: Array(journal[0..<length]), Self.path + ".snapshot": snapshot]
            let error = Self.open(files, "length \(length)")
            switch length {
            case 0: #expect(error == .empty(path: Self.path))
            case 1..<DraftFormat.headerSize: #expect(error != nil)
            default:
                #expect(error == nil, "length \(length)")
                if error == nil {
                    let board = try CanvasBoard(
                        draftAt: Self.url, newBoard: Self.start,
                        options: DraftTests.options(PowerLossStorage(files: files)))
                    restoredCounts.insert(Int(board.draft!.restore.sequence))
                    let torn = board.draft!.restore.droppedRecords > 0
                    #expect(torn == board.draft!.restore.effects.contains(.draftRecordsDropped(count: 1)))
                }
            }
        }
        // Every prefix of the journal comes back at some length.
        #expect(restoredCounts == Set(0..<Self.prefixes.count))
    }

    @Test("random bytes flipped in the journal and in the snapshot")
    func flippedBytes() async throws {
        let (journal, snapshot) = try await Self.files()
        var random = SplitMix64(seed: 27)
        for trial in 0..<600 {
            var damaged = journal
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                damaged[Int.random(in: 0..<damaged.count, using: &random)] ^= UInt8.random(in: 1...255, using: &random)
            }
            Self.open([Self.path: damaged, Self.path + ".snapshot": snapshot], "journal trial \(trial)")
            var damagedSnapshot = snapshot
            damagedSnapshot[Int.random(in: 0..<snapshot.count, using: &random)] ^= UInt8.random(
                in: 1...255, using: &random)
            let error = Self.open([Self.path: journal, Self.path + ".snapshot": damagedSnapshot], "snapshot \(trial)")
            #expect(error != nil, "a damaged snapshot must be refused (trial \(trial))")
        }
    }

    @Test("a snapshot without its journal, and a journal without its snapshot")
    func missingHalves() async throws {
        let (journal, snapshot) = try await Self.files(threshold: 5)
        // The snapshot alone: the board as of the snapshot (a kill between the two renames of a compaction).
        #expect(Self.open([Self.path + ".snapshot": snapshot]) == nil)
        #expect(
            Self.open([Self.path: journal])
                == .snapshotMismatch(path: Self.path, reason: "its snapshot '\(Self.path).snapshot' is missing"))
        // Another draft's snapshot.
        let (_, other) = try await Self.files()
        #expect(Self.open([Self.path: journal, Self.path + ".snapshot": other]) != nil)
    }

    @Test("a draft from a newer version, an empty file, a file that is not a draft")
    func foreignFiles() async throws {
        let (journal, snapshot) = try await Self.files()
        let newer = UInt16(DraftFormat.version + 1)
        #expect(
            Self.open([Self.path: Self.withVersion(journal, newer), Self.path + ".snapshot": snapshot])
                == .newerVersion(path: Self.path, found: Int(newer), supported: DraftFormat.version))
        #expect(
            Self.open([Self.path: journal, Self.path + ".snapshot": Self.withVersion(snapshot, 257)])
                == .newerVersion(path: Self.path + ".snapshot", found: 257, supported: DraftFormat.version))
        // A damaged version byte (its checksum no longer matches) is damage, not a newer version.
        var flipped = journal
        flipped[8] = UInt8(newer)
        #expect(
            Self.open([Self.path: flipped, Self.path + ".snapshot": snapshot])
                == .corrupt(path: Self.path, reason: "the header's checksum does not match"))
        #expect(Self.open([Self.path: []]) == .empty(path: Self.path))
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 0, count: 40)
        #expect(Self.open([Self.path: png]) == .notADraft(path: Self.path))
        #expect(Self.open([Self.path: Array("tap 0; record\n".utf8)]) == .notADraft(path: Self.path))
        // A snapshot where the journal should be.
        #expect(Self.open([Self.path: snapshot, Self.path + ".snapshot": snapshot]) != nil)
        #expect(
            DraftError.newerVersion(path: "a", found: 3, supported: 2).description
                == "draft 'a' is from a newer version (format 3; this library reads up to 2)")
    }

    /// `bytes` with the header's version set to `version` and its checksum made to match: a real newer draft.
    static func withVersion(_ bytes: [UInt8], _ version: UInt16) -> [UInt8] {
        var bytes = bytes
        bytes[8] = UInt8(version & 0xFF)
        bytes[9] = UInt8(version >> 8)
        let checksum = DraftChecksum.crc32(bytes[0..<28])
        for index in 0..<4 { bytes[28 + index] = UInt8((checksum >> (8 * UInt32(index))) & 0xFF) }
        return bytes
    }

    /// Where each record of `journal` starts.
    static func recordOffsets(_ journal: [UInt8]) -> [Int] {
        var offsets: [Int] = []
        var offset = DraftFormat.headerSize
        while let record = DraftFormat.record(in: journal, at: offset) {
            offsets.append(offset)
            offset += DraftFormat.recordHeaderSize + record.payload.count
        }
        return offsets
    }

    @Test("a tail of zeros is torn, not 256 dropped records; nothing written is counted lost")
    func zeroTail() async throws {
        let (journal, snapshot) = try await Self.files()
        let storage = PowerLossStorage(files: [
            Self.path: journal + [UInt8](repeating: 0, count: 4096), Self.path + ".snapshot": snapshot,
        ])
        let board = try CanvasBoard(draftAt: Self.url, newBoard: Self.start, options: DraftTests.options(storage))
        let restore = board.draft!.restore
        #expect(restore.droppedRecords == 0)
        #expect(restore.corruption == nil)
        #expect(!restore.effects.contains { $0.kind == .draftRecordsDropped })
        #expect(Int(restore.sequence) == Self.events.count)
        try await board.draft!.waitUntilDurable()
        #expect(storage.killImage()[Self.path]!.count < journal.count + 4096, "the zeros are rewritten away")
    }

    @Test("a damaged record with whole records after it is corruption: kept aside, reported, restore stops before it")
    func corruptionKept() async throws {
        let (journal, snapshot) = try await Self.files()
        let offsets = Self.recordOffsets(journal)
        var damaged = journal
        damaged[offsets[4] + DraftFormat.recordHeaderSize] ^= 0x40  // record 5's payload
        let storage = PowerLossStorage(files: [Self.path: damaged, Self.path + ".snapshot": snapshot])
        let board = try CanvasBoard(draftAt: Self.url, newBoard: Self.start, options: DraftTests.options(storage))
        let restore = board.draft!.restore
        #expect(restore.sequence == 4)
        #expect(ReferenceBoard(board.state) == DraftTests.recovered(Self.prefixes[4]))
        let expected = DraftCorruption(
            lastGoodRecord: 4, offset: offsets[4], laterRecords: Self.events.count - 5,
            lastLaterRecord: UInt64(Self.events.count), keptAt: Self.path + ".damaged")
        #expect(restore.corruption == expected)
        #expect(restore.droppedRecords == Self.events.count - 4)
        try await board.draft!.waitUntilDurable()
        let files = storage.killImage()
        #expect(files[Self.path + ".damaged"] == damaged, "the damaged journal is kept as it was")
        #expect(files[Self.path] != damaged, "the journal was rewritten from the last good record")
        // A second damage later is kept under a new name, the first one untouched.
        let again = try CanvasBoard(
            draftAt: Self.url, newBoard: Self.start, options: DraftTests.options(PowerLossStorage(files: files)))
        #expect(again.draft!.restore.corruption == nil && again.state == board.state)
        #expect(!expected.description.contains("\n") && expected.description.contains("kept at"))
    }

    @Test("a take whose stop is in damaged records comes back interrupted without its file, so nothing removes it")
    func finishedTakeNotRemoved() async throws {
        let storage = PowerLossStorage()
        let board = try CanvasBoard(draftAt: Self.url, newBoard: Self.start, options: DraftTests.options(storage))
        try await board.draft!.waitUntilDurable()
        let take = Boards.take("finished.mov")
        board.send(.tap(0))
        board.send(.record)
        board.draft!.noteRecordingFile(take)
        for event in [CanvasEvent.stop(take), .tap(1), .tap(2), .tap(0)] { board.send(event) }
        try await board.draft!.waitUntilDurable()
        var journal = storage.killImage()[Self.path]!
        journal[Self.recordOffsets(journal)[3] + DraftFormat.recordHeaderSize + 1] ^= 0x01  // the stop's record
        let restored = try CanvasBoard(
            draftAt: Self.url, newBoard: Self.start,
            options: DraftTests.options(
                PowerLossStorage(files: [
                    Self.path: journal, Self.path + ".snapshot": storage.killImage()[Self.path + ".snapshot"]!,
                ])))
        #expect(restored.draft!.restore.corruption?.lastGoodRecord == 3)
        #expect(restored.draft!.restore.effects.contains(.takeInterrupted(index: 0, url: nil)))
        #expect(!restored.draft!.restore.effects.contains(.takeInterrupted(index: 0, url: take)))
    }
}

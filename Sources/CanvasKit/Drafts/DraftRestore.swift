import Foundation

/// How a board is opened on a draft.
public struct DraftOptions: Sendable {
    /// Where the draft's bytes go; the file system by default.
    public var storage: any DraftStorage
    /// After this many records, the writer compacts the journal into a new snapshot (off the calling thread).
    public var compactionThreshold: Int
    /// Whether a take's file is still there; a take whose file is not is reported and removed from its canvas on
    /// restore. By default: a file URL whose file exists (other URLs are kept).
    public var takeExists: @Sendable (URL) -> Bool
    /// How far a sync pushes the bytes before they count as durable: ``DraftSync/full`` (by default: through the
    /// drive's cache, `F_FULLFSYNC` on Apple platforms) or ``DraftSync/system`` (`fsync` only: cheaper on Apple
    /// hardware, where a power loss may then lose the last groups).
    public var sync: DraftSync

    /// Options with the defaults above.
    public init(
        storage: any DraftStorage = FileDraftStorage(), compactionThreshold: Int = 10_000,
        takeExists: @escaping @Sendable (URL) -> Bool = DraftOptions.fileExists, sync: DraftSync = .full
    ) {
        self.storage = storage
        self.sync = sync
        self.compactionThreshold = max(1, compactionThreshold)
        self.takeExists = takeExists
    }

    /// Whether the file at a file URL exists; true for any other URL.
    @Sendable public static func fileExists(_ url: URL) -> Bool {
        guard url.isFileURL else { return true }
        return FileManager.default.fileExists(atPath: url.path)
    }
}

/// What opening a board on a draft found.
///
/// ``effects`` are for the app's performer, like any event's effects: ``CanvasEffect/draftRecordsDropped(count:)``
/// when a torn or corrupt tail was dropped, ``CanvasEffect/takeInterrupted(index:url:)`` for a recording that was in
/// progress (its canvas is back `inPreview`, still selected), ``CanvasEffect/takeMissing(index:url:)`` for each take
/// whose file is gone (its canvas shows the add button). Each of these changes is journaled like an event, so the
/// next restore does not report it again.
public struct DraftRestore: Sendable, Hashable {
    /// True when there was no draft at the path: the board is the new one, and the draft was created.
    public var isNew: Bool
    /// The number of the snapshot's last record.
    public var snapshotSequence: UInt64
    /// Journal records replayed after the snapshot.
    public var replayedRecords: Int
    /// The number of the last record restored (before the restore's own).
    public var sequence: UInt64
    /// Records of a torn or corrupt tail that were dropped.
    public var droppedRecords: Int
    /// What the app must handle, in order (see above).
    public var effects: [CanvasEffect]
}

extension CanvasBoard {
    /// Opens the draft at `url`, or creates it with `newBoard` when there is none, and returns the board it holds.
    ///
    /// A restore reads the latest snapshot (`url` with `.snapshot` appended) and replays the journal records after it
    /// through the transition function, so the board comes back in the state after the last record on the disk.
    /// Then a recording in progress comes back `inPreview`, and takes whose files are missing are removed; both are
    /// reported in ``BoardDraft/restore``'s effects for the app to handle. From then on, every event the board
    /// accepts is journaled (see ``BoardDraft``).
    ///
    /// Reads the files on the calling thread (an app does it at launch, where it builds its screen); any rewriting
    /// it needs (a dropped tail, a new draft) is done by the writer, off it.
    ///
    /// - Throws: `DraftError` when the draft cannot be read or restored: an empty file, a file that is not a draft,
    ///   a newer format, a damaged header or snapshot, a journal whose snapshot is missing or another draft's, a
    ///   record that does not decode or that the board rejects. Nothing is written then.
    /// `clock` and `playbackLead` are as for ``init(state:clock:playbackLead:)``.
    public convenience init(
        draftAt url: URL, newBoard: @autoclosure () -> BoardState, options: DraftOptions = DraftOptions(),
        clock: any HostClock = SystemHostClock(), playbackLead: Double = 0.1
    ) throws(DraftError) {
        let opened = try DraftOpening(path: url.path, options: options, newBoard: newBoard)
        self.init(state: opened.state.board, clock: clock, playbackLead: playbackLead, draft: opened.draft)
    }
}

/// Reading a draft's files into a writer and the board to start from.
struct DraftOpening {
    let state: DraftState
    let draft: BoardDraft

    init(path: String, options: DraftOptions, newBoard: () -> BoardState) throws(DraftError) {
        let storage = options.storage
        let snapshotPath = path + ".snapshot"
        let journalBytes = try storage.contents(of: path)
        let snapshotBytes = try storage.contents(of: snapshotPath)

        var state: DraftState
        var sequence: UInt64 = 0
        var snapshotSequence: UInt64 = 0
        var identity = UInt64.random(in: 1...UInt64.max)
        var replayed = 0
        var dropped = 0
        var needsCompaction = false
        let isNew = journalBytes == nil && snapshotBytes == nil

        if let snapshotBytes {
            let header = try DraftFormat.parseHeader(snapshotBytes, path: snapshotPath, expecting: .snapshot)
            let (records, validEnd, _) = DraftFormat.records(snapshotBytes)
            guard let record = records.first, records.count == 1, validEnd == snapshotBytes.count,
                record.sequence == header.base
            else {
                throw .corrupt(path: snapshotPath, reason: "its board record is damaged or missing")
            }
            do {
                state = try DraftBinaryDecoder.decode(DraftState.self, from: record.payload)
            } catch {
                throw .corrupt(path: snapshotPath, reason: "its board does not decode (\(Self.reason(error)))")
            }
            identity = header.identity
            snapshotSequence = header.base
            sequence = header.base
        } else {
            state = DraftState(board: newBoard(), recordingFile: nil)
        }

        if let journalBytes {
            let header = try DraftFormat.parseHeader(journalBytes, path: path, expecting: .journal)
            guard snapshotBytes != nil else {
                throw .snapshotMismatch(path: path, reason: "its snapshot '\(snapshotPath)' is missing")
            }
            guard header.identity == identity else {
                throw .snapshotMismatch(path: path, reason: "the snapshot '\(snapshotPath)' belongs to another draft")
            }
            guard header.base <= snapshotSequence else {
                throw .snapshotMismatch(
                    path: path,
                    reason: "the journal continues record \(header.base), the snapshot holds only \(snapshotSequence)")
            }
            let (records, validEnd, droppedTail) = DraftFormat.records(journalBytes)
            var expected = header.base + 1
            for record in records {
                guard record.sequence == expected else {
                    throw .corrupt(path: path, reason: "record \(record.sequence) follows record \(expected - 1)")
                }
                expected += 1
                guard record.sequence > snapshotSequence else { continue }
                let entry: DraftEntry
                do {
                    entry = try DraftRecordCodec.decode(record.payload)
                } catch {
                    throw .corrupt(path: path, reason: "record \(record.sequence) does not decode (\(error))")
                }
                if let rejection = state.apply(entry) {
                    throw .corrupt(
                        path: path, reason: "record \(record.sequence) is rejected by the board: \(rejection)")
                }
                sequence = record.sequence
                replayed += 1
            }
            if validEnd < journalBytes.count {
                dropped = droppedTail
                needsCompaction = true
            }
        } else {
            // A new draft, or a snapshot whose journal was never put in place: the writer writes both.
            needsCompaction = true
        }

        // What a kill left behind: a recording in progress, takes whose files are gone.
        var effects: [CanvasEffect] = []
        if dropped > 0 { effects.append(.draftRecordsDropped(count: dropped)) }
        let restoredState = state
        var recovery: [DraftEntry] = []
        if let index = state.board.recordingIndex {
            let file = state.recordingFile
            _ = state.apply(.event(.cancel))
            recovery.append(.event(.cancel))
            effects.append(.takeInterrupted(index: index, url: file))
        }
        for index in state.board.indices {
            guard let url = state.board.videoURL(at: index), !options.takeExists(url) else { continue }
            _ = state.apply(.event(.delete(index)))
            recovery.append(.event(.delete(index)))
            effects.append(.takeMissing(index: index, url: url))
        }

        let writer = DraftWriter(
            storage: storage, path: path, identity: identity, compactionThreshold: options.compactionThreshold,
            syncLevel: options.sync, mirror: restoredState, sequence: sequence, recordsInJournal: replayed,
            needsCompaction: needsCompaction)
        let pending = recovery.enumerated().map {
            DraftWriteItem(sequence: sequence + 1 + UInt64($0.offset), entry: $0.element)
        }
        let restore = DraftRestore(
            isNew: isNew, snapshotSequence: snapshotSequence, replayedRecords: replayed, sequence: sequence,
            droppedRecords: dropped, effects: effects)
        self.state = state
        draft = BoardDraft(
            path: path, restore: restore, writer: writer, appended: sequence + UInt64(recovery.count), pending: pending)
    }

    /// A decoding error's own words, on one line.
    static func reason(_ error: any Error) -> String {
        if let error = error as? DecodingError {
            switch error {
            case .dataCorrupted(let context), .typeMismatch(_, let context), .valueNotFound(_, let context),
                .keyNotFound(_, let context):
                return context.debugDescription
            @unknown default:
                break
            }
        }
        return "\(error)"
    }
}

import Foundation

/// Reading a draft's files into a writer and the board to start from.
struct DraftOpening {
    let state: DraftState
    let draft: BoardDraft

    /// What the files hold, as read.
    private struct Read {
        var state: DraftState
        var sequence: UInt64 = 0
        var snapshotSequence: UInt64 = 0
        var identity = UInt64.random(in: 1...UInt64.max)
        var replayed = 0
        var dropped = 0
        var corruption: DraftCorruption?
        var needsCompaction = false
    }

    init(path: String, options: DraftOptions, newBoard: () -> BoardState) throws(DraftError) {
        let storage = options.storage
        let root = options.takeRoot.map(DraftRoot.init(folder:)) ?? DraftRoot(draftAt: path)
        // One opener at a time: the lock first, before anything is read.
        let lock = try storage.lock(path)
        let (read, isNew) = try Self.read(path, storage: storage, root: root, keepsDamage: true, newBoard: newBoard)
        let (recovery, effects) = Self.recover(read, options: options)
        var writer = DraftWriter(
            storage: storage, path: path, identity: read.identity, compactionThreshold: options.compactionThreshold,
            syncLevel: options.sync, root: root, mirror: read.state, sequence: read.sequence,
            recordsInJournal: read.replayed,
            needsCompaction: read.needsCompaction, pendingLimit: options.pendingLimit)
        writer.protection = options.protection
        let pending = recovery.enumerated().map {
            DraftWriteItem(sequence: read.sequence + 1 + UInt64($0.offset), entry: $0.element)
        }
        let restore = DraftRestore(
            isNew: isNew, snapshotSequence: read.snapshotSequence,
            replayedRecords: read.replayed, sequence: read.sequence, droppedRecords: read.dropped,
            corruption: read.corruption, effects: effects)
        var state = read.state
        for entry in recovery { _ = state.apply(entry) }
        self.state = state
        draft = BoardDraft(
            path: path, restore: restore, writer: writer, appended: read.sequence + UInt64(recovery.count),
            pending: pending, lock: lock)
    }

    /// Reads the draft's files as a restore does, changing nothing: for a listing (the caller holds the lock). -
    /// Throws: the error an opening would throw.
    static func check(path: String, options: DraftOptions) throws(DraftError) {
        let root = options.takeRoot.map(DraftRoot.init(folder:)) ?? DraftRoot(draftAt: path)
        _ = try read(path, storage: options.storage, root: root, keepsDamage: false) { BoardState(canvasCount: 1) }
    }

    /// What the snapshot and the journal hold, replayed; `isNew` when neither exists. With `keepsDamage`, a damaged
    /// journal is kept aside (see ``keep(_:storage:)``). Each file is read in pieces (`DraftRecordReader`), never
    /// whole.
    private static func read(
        _ path: String, storage: any DraftStorage, root: DraftRoot, keepsDamage: Bool, newBoard: () -> BoardState
    ) throws(DraftError) -> (Read, isNew: Bool) {
        let snapshotPath = path + ".snapshot"
        let journal = try DraftRecordReader(path: path, storage: storage)
        let snapshot = try DraftRecordReader(path: snapshotPath, storage: storage)
        var read: Read
        if var snapshot {
            read = try Self.readSnapshot(&snapshot, root: root)
        } else {
            read = Read(state: DraftState(board: newBoard(), recordingFile: nil))
        }
        if var journal {
            let header = try journal.header(expecting: .journal)
            guard snapshot != nil else {
                throw .snapshotMismatch(path: path, reason: "its snapshot '\(snapshotPath)' is missing")
            }
            try Self.replay(&journal, header: header, storage: keepsDamage ? storage : nil, root: root, into: &read)
        } else {
            // A new draft, or a snapshot whose journal was never put in place: the writer writes both.
            read.needsCompaction = true
        }
        return (read, journal == nil && snapshot == nil)
    }

    /// The board the snapshot holds: its one record, which must end the file.
    private static func readSnapshot(_ reader: inout DraftRecordReader, root: DraftRoot) throws(DraftError) -> Read {
        let path = reader.path
        let header = try reader.header(expecting: .snapshot)
        guard let record = try reader.next(), reader.isAtEnd, record.sequence == header.base else {
            throw .corrupt(path: path, reason: "its board record is damaged or missing")
        }
        let state: DraftState
        do {
            state = try DraftBinaryDecoder.decode(DraftState.self, from: record.payload, root: root)
        } catch {
            throw .corrupt(path: path, reason: "its board does not decode (\(Self.reason(error)))")
        }
        // An older format is read as it is, and rewritten in this one before anything is appended to it.
        return Read(
            state: state, sequence: header.base, snapshotSequence: header.base, identity: header.identity,
            needsCompaction: header.version < DraftFormat.version)
    }

    /// Replays the journal's records after the snapshot into `read` as they are read, and judges its tail; a damaged
    /// journal is kept through `storage` (nothing is kept without one).
    private static func replay(
        _ reader: inout DraftRecordReader, header: DraftFormat.Header, storage: (any DraftStorage)?, root: DraftRoot,
        into read: inout Read
    ) throws(DraftError) {
        let path = reader.path
        if header.version < DraftFormat.version { read.needsCompaction = true }
        guard header.identity == read.identity else {
            throw .snapshotMismatch(path: path, reason: "the snapshot '\(path).snapshot' belongs to another draft")
        }
        guard header.base <= read.snapshotSequence else {
            throw .snapshotMismatch(
                path: path,
                reason: "the journal continues record \(header.base), the snapshot holds only \(read.snapshotSequence)")
        }
        var expected = header.base + 1
        while let record = try reader.next() {
            guard record.sequence == expected else {
                throw .corrupt(path: path, reason: "record \(record.sequence) follows record \(expected - 1)")
            }
            expected += 1
            guard record.sequence > read.snapshotSequence else { continue }
            try apply(record, path: path, root: root, to: &read)
        }
        let validEnd = reader.offset
        switch try reader.tail(after: expected - 1) {
        case .none: return
        case .zeros: read.dropped = 0
        case .torn: read.dropped = 1
        case .corrupt(let later, let lastLater):
            read.dropped = later + 1
            var keptAt = ""
            if let storage { keptAt = try keep(path, storage: storage) }
            read.corruption = DraftCorruption(
                lastGoodRecord: expected - 1, offset: validEnd, laterRecords: later, lastLaterRecord: lastLater,
                keptAt: keptAt)
        }
        read.needsCompaction = true
    }

    /// Decodes one journal record and applies it to `read`'s board.
    private static func apply(
        _ record: DraftFormat.Record, path: String, root: DraftRoot, to read: inout Read
    ) throws(DraftError) {
        let entry: DraftEntry
        do {
            entry = try DraftRecordCodec.decode(record.payload, root: root)
        } catch {
            throw .corrupt(path: path, reason: "record \(record.sequence) does not decode (\(error))")
        }
        if let rejection = read.state.apply(entry) {
            throw .corrupt(path: path, reason: "record \(record.sequence) is rejected by the board: \(rejection)")
        }
        read.sequence = record.sequence
        read.replayed += 1
    }

    /// Links the damaged journal under the first free name `<path>.damaged`, `<path>.damaged-2`, ... (a link never
    /// replaces a file), so the rewrite that follows leaves it. - Returns: the name.
    private static func keep(_ path: String, storage: any DraftStorage) throws(DraftError) -> String {
        var attempt = 1
        while true {
            let name = path + ".damaged" + (attempt == 1 ? "" : "-\(attempt)")
            do throws(DraftError) {
                try storage.keep(path, as: name)
                return name
            } catch {
                guard case .io(_, _, EEXIST) = error, attempt < 1_000 else { throw error }
                attempt += 1
            }
        }
    }

    /// What a kill left behind: a recording in progress, takes whose files are gone (or back). - Returns: the entries
    /// that record the changes (journaled like events: the interrupted recording's `cancel`, a `markMissing` for each
    /// take whose first file gone is not marked yet, a `relink` for each marked take whose files are back, and the
    /// `undo` that arms again an armed undo those disarmed) and the effects reporting them.
    private static func recover(_ read: Read, options: DraftOptions) -> ([DraftEntry], [CanvasEffect]) {
        var effects: [CanvasEffect] = []
        if read.dropped > 0 { effects.append(.draftRecordsDropped(count: read.dropped)) }
        var state = read.state
        var recovery: [DraftEntry] = []
        if let index = state.board.recordingIndex {
            // After damage, the damaged records may have finished the take: its file is not named, so no app
            // removes it.
            let file = read.corruption == nil ? state.recordingFile : nil
            _ = state.apply(.event(.cancel))
            recovery.append(.event(.cancel))
            effects.append(.takeInterrupted(index: index, url: file))
        }
        // A missing take stays on its canvas, marked missing (journaled): a moved container or an unmounted volume is
        // not a deletion. The app confirms a removal with `delete`, or relinks the take when its files are back; a
        // restore that finds them back relinks it itself.
        for index in state.board.indices {
            let marked = state.board.missingFile(at: index)
            // A take with a segment gone is missing (named by the first file that is gone).
            guard let url = state.board.segments(at: index).first(where: { !options.takeExists($0.url) })?.url else {
                if marked != nil, let first = state.board.videoURL(at: index) {
                    _ = state.apply(.event(.relink(index)))
                    recovery.append(.event(.relink(index)))
                    effects.append(.coverWanted(index: index, url: first))
                }
                continue
            }
            if marked != url {
                _ = state.apply(.event(.markMissing(index, url)))
                recovery.append(.event(.markMissing(index, url)))
            }
            effects.append(.takeMissing(index: index, url: url))
        }
        // The marks and relinks are accepted events, and any accepted event but an undo disarms an armed undo. The
        // user's durable "delete the last segment?" is not the restore's to take: it is armed again (journaled).
        if let armed = read.state.board.armedUndo, state.board.armedUndo == nil,
            let index = state.board.index(of: armed)
        {
            _ = state.apply(.event(.undo(index)))
            recovery.append(.event(.undo(index)))
        }
        return (recovery, effects)
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

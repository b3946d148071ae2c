import Foundation

/// The draft's files as the writer keeps them: the board as of the last record handed to it, and what is on the disk.
/// Used by one drain at a time (`BoardDraft`).
struct DraftWriter: Sendable {
    let storage: any DraftStorage
    let path: String
    let identity: UInt64
    let compactionThreshold: Int
    /// How far each sync goes (``DraftOptions/sync``).
    let syncLevel: DraftSync
    /// What takes are written relative to (``DraftOptions/takeRoot``).
    let root: DraftRoot
    /// The data protection of the files it creates (``DraftOptions/protection``).
    var protection = DraftProtection.completeUntilFirstUserAuthentication
    /// The board as of `mirrorSequence`: what a snapshot written now holds.
    private(set) var mirror: DraftState
    private(set) var mirrorSequence: UInt64
    /// The last record in the files (appended, and synced once `sync()` returns).
    private(set) var journalSequence: UInt64
    /// Records in the journal after its snapshot.
    private var recordsInJournal: Int
    /// The journal is compacted once it holds this many records: the threshold, later again after a compaction that
    /// failed (so a full disk does not cost a compaction per batch).
    private var compactionDue: Int
    /// The size of the last snapshot written or tried: what a probe of a full disk writes.
    private var snapshotSize = 4_096
    /// At most this many bytes of records wait for the writer (``DraftOptions/pendingLimit``).
    let pendingLimit: Int
    /// Whether the opening found that the files must be rewritten whole (a new draft, a damaged tail) before anything
    /// is appended.
    let needsCompaction: Bool

    var snapshotPath: String { path + ".snapshot" }

    init(
        storage: any DraftStorage, path: String, identity: UInt64, compactionThreshold: Int, syncLevel: DraftSync,
        root: DraftRoot, mirror: DraftState, sequence: UInt64, recordsInJournal: Int, needsCompaction: Bool,
        pendingLimit: Int = DraftOptions.defaultPendingLimit
    ) {
        self.pendingLimit = pendingLimit
        compactionDue = compactionThreshold
        self.syncLevel = syncLevel
        self.root = root
        self.storage = storage
        self.path = path
        self.identity = identity
        self.compactionThreshold = compactionThreshold
        self.mirror = mirror
        mirrorSequence = sequence
        journalSequence = sequence
        self.recordsInJournal = recordsInJournal
        self.needsCompaction = needsCompaction
    }

    /// What a write reached: the last record in the files, and whether it is durable already (a compaction syncs
    /// what it writes).
    struct Written {
        let sequence: UInt64
        let isDurable: Bool
    }

    /// Applies `batch` to the mirror (or takes its board) and appends its records to the journal in one write, or with
    /// `rewrites` rewrites the draft whole (after a failure, what the journal holds is in doubt), after a probe when
    /// the disk was full; compacts the journal once it has grown past the threshold. - Returns: the last record
    /// written: a kill can no longer lose it.
    mutating func write(_ batch: DraftPipeline.Batch) -> Result<Written, DraftError> {
        var bytes: [UInt8] = []
        var payload: [UInt8] = []
        for item in batch.items {
            // The board accepted each event on this very state, so the mirror accepts it too.
            _ = mirror.apply(item.entry)
            mirrorSequence = item.sequence
            guard !batch.rewrites else { continue }
            payload.removeAll(keepingCapacity: true)
            DraftRecordCodec.encode(item.entry, into: &payload, root: root)
            DraftFormat.appendRecord(sequence: item.sequence, payload: payload, to: &bytes)
        }
        if let board = batch.board { (mirror, mirrorSequence) = board }
        do throws(DraftError) {
            if batch.rewrites {
                if batch.probes { try probe() }
                try compact()
                return .success(Written(sequence: journalSequence, isDurable: true))
            }
            if !bytes.isEmpty {
                try storage.append(bytes, to: path)
                journalSequence = mirrorSequence
                recordsInJournal += batch.items.count
            }
        } catch {
            // A write that failed may have left part of a record: the caller has the next attempt rewrite the draft.
            return .failure(error)
        }
        if recordsInJournal >= compactionDue {
            // The records are written already, and a compaction that fails leaves the old files or the new snapshot
            // beside the old journal (whose records up to it a restore skips): it is tried again after as many
            // records again.
            do throws(DraftError) {
                try compact()
                return .success(Written(sequence: journalSequence, isDurable: true))
            } catch {
                compactionDue = recordsInJournal + compactionThreshold
            }
        }
        return .success(Written(sequence: journalSequence, isDurable: false))
    }

    /// Writes as many bytes as the last snapshot to the journal's temporary name, then removes them: whether a
    /// rewrite can fit now, at the cost of one write instead of an encoded board and four synced steps.
    private func probe() throws(DraftError) {
        let temporary = path + ".tmp"
        defer { try? storage.remove(temporary) }
        try storage.write([UInt8](repeating: 0, count: snapshotSize), to: temporary)
    }

    /// Writes the mirror as the snapshot, then an empty journal continuing it, each to a temporary file that is
    /// synced, renamed over the old one, and made durable by syncing the folder. A kill or a power loss at any point
    /// leaves the old snapshot and journal, or the new snapshot and the old journal (whose records up to it a restore
    /// skips), or both new ones.
    mutating func compact() throws(DraftError) {
        var snapshot = DraftFormat.header(.init(kind: .snapshot, base: mirrorSequence, identity: identity))
        let payload: [UInt8]
        do {
            payload = try DraftBinaryEncoder.encode(mirror, root: root)
        } catch {
            throw .corrupt(path: snapshotPath, reason: "the board could not be encoded (\(error))")
        }
        // A restore refuses a larger record: the old files stay, and the failure is reported.
        guard payload.count <= DraftFormat.maximumPayload else {
            throw .corrupt(
                path: snapshotPath,
                reason:
                    "the board takes \(payload.count) bytes, more than a record holds (\(DraftFormat.maximumPayload))")
        }
        DraftFormat.appendRecord(sequence: mirrorSequence, payload: payload, to: &snapshot)
        snapshotSize = snapshot.count
        try replace(snapshotPath, with: snapshot)
        try replace(path, with: DraftFormat.header(.init(kind: .journal, base: mirrorSequence, identity: identity)))
        journalSequence = mirrorSequence
        recordsInJournal = 0
        compactionDue = compactionThreshold
    }

    private func replace(_ destination: String, with bytes: [UInt8]) throws(DraftError) {
        let temporary = destination + ".tmp"
        try storage.write(bytes, to: temporary)
        try storage.protect(temporary, protection)
        try storage.sync(temporary, syncLevel)
        try storage.rename(temporary, to: destination)
        try storage.syncFolder(of: destination, syncLevel)
    }
}

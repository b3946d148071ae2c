import Dispatch
import Foundation
import Locking

/// The journal of a ``CanvasBoard`` opened on a draft file (`CanvasBoard(draftAt:newBoard:options:)`): what it
/// restored, and how far what the board accepted since is on the disk.
///
/// Every event the board accepts is handed to the draft before `send` returns (so before its effects reach the
/// performer), as a record numbered in the order the board accepted it. The calling thread never waits for the disk:
/// a writer on its own queue appends everything handed to it since its last write, in one write, as soon as it can;
/// a syncer on another queue syncs what was written, group after group (``DraftOptions/sync``: through the drive's
/// cache by default, `F_FULLFSYNC` on Apple platforms). A record is *written* once its
/// write returned (a kill of the process can no longer lose it) and *durable* once a sync after it returned (a power
/// loss cannot lose it).
///
/// Thread safety: every method may be called from any thread.
public final class BoardDraft: Sendable {
    /// How far the records are.
    public struct Progress: Sendable, Hashable {
        /// The number of the last record handed to the writer (accepted events and noted recording files, since the
        /// draft was created, restored records included).
        public var appended: UInt64
        /// The number of the last record whose write returned: a kill of the process cannot lose it.
        public var written: UInt64
        /// The number of the last record synced to the disk: a power loss cannot lose it.
        public var durable: UInt64
        /// The error of the last write or sync that failed, until the rewrite that follows it succeeded (a failure
        /// may have dropped whatever was not durable: until then no later record counts as durable).
        public var failure: DraftError?
        /// About how many bytes of records wait for the writer: they grow while the disk is slow, up to
        /// ``DraftOptions/pendingLimit``.
        public var pendingBytes: Int
        /// Whether the draft is behind the board: more than a quarter of ``DraftOptions/pendingLimit`` waits for the
        /// writer, or records were dropped past it and the draft waits to be rewritten whole. The board and the
        /// calling thread go on as usual; an app may show that the draft is not keeping up.
        public var isBehind: Bool
    }

    /// The journal file (the draft's path); its snapshot is beside it, named with `.snapshot` appended.
    public let path: String
    /// What the restore found when the board was opened.
    public let restore: DraftRestore
    /// The number of the restore's own last record (the `cancel` of an interrupted take), if it wrote any.
    let restoreRecord: UInt64?

    private let storage: any DraftStorage
    private let syncLevel: DraftSync
    private let shared: LockedValue<DraftPipeline>
    /// The files as the writer keeps them: taken by the writer's queue only.
    private let writer: LockedValue<DraftWriter>
    /// The draft's exclusive lock, until ``close()`` or ``discard()``.
    private let lock: LockedValue<DraftLock?>
    private let writerQueue = DispatchQueue(label: "MultiCanvas.BoardDraft.writer", qos: .utility)
    private let syncQueue = DispatchQueue(label: "MultiCanvas.BoardDraft.syncer", qos: .utility)

    /// A draft whose writer starts at `writer` (the files as they are) with `pending` handed over already (the
    /// restore's own records), numbered up to `appended`.
    init(
        path: String, restore: DraftRestore, writer: DraftWriter, appended: UInt64, pending: [DraftWriteItem],
        lock: DraftLock
    ) {
        self.path = path
        self.lock = LockedValue(lock)
        self.restore = restore
        restoreRecord = pending.last?.sequence
        storage = writer.storage
        syncLevel = writer.syncLevel
        var latest = writer.mirror
        for item in pending { _ = latest.apply(item.entry) }
        let pipeline = DraftPipeline(
            path: path, pending: pending, appended: appended, written: writer.journalSequence,
            files: writer.needsCompaction ? .rewriteNeeded : .sound, latest: latest, pendingLimit: writer.pendingLimit)
        shared = LockedValue(pipeline)
        self.writer = LockedValue(writer)
        if pipeline.writer == .running { writerQueue.async { self.write() } }
        if pipeline.syncer == .running { syncQueue.async { self.sync() } }
    }

    /// How far the records are now.
    public var progress: Progress {
        shared.withLock { $0.progress }
    }

    /// Records the file the recorder writes the current take into, so that a restore after a kill names it in its
    /// ``CanvasEffect/takeInterrupted(index:url:)`` effect. Call it when the recording starts (on the
    /// `startRecording` effect, with the URL given to the recorder). Ignored when no canvas is recording.
    public func noteRecordingFile(_ url: URL) {
        append(.recordingFile(url), board: nil)
    }

    /// Hands one entry to the writer, numbered after every entry handed before it, with the board after it (for an
    /// event). Constant time; never waits for the disk. - Returns: the entry's record number.
    @discardableResult
    func append(_ entry: DraftEntry, board: BoardState?) -> UInt64? {
        let (sequence, starts) = shared.withLock { $0.append(entry, board: board) }
        if starts { writerQueue.async { self.write() } }
        return sequence
    }

    /// Whether record `record` is durable now: a power loss can no longer lose it.
    public func isDurable(_ record: UInt64) -> Bool {
        shared.withLock { record <= $0.progress.durable }
    }

    /// Returns once record `record` is durable. A failed write or sync does not end the wait: it lasts until the
    /// rewrite that follows the failure (on the next append or ``waitUntilDurable()``) made the record durable.
    public func durable(through record: UInt64) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let kept = shared.withLock { $0.listen(through: record) { continuation.resume() } }
            if !kept { continuation.resume() }
        }
    }

    /// Calls `completion` once every record appended before this call is durable (nil), or with the error that kept
    /// it from being so. On one of the draft's queues, or at once on the calling thread when they already are.
    public func waitUntilDurable(completion: @escaping @Sendable (DraftError?) -> Void) {
        flush(closing: false, completion: completion)
    }

    /// `waitUntilDurable`; with `closing`, the draft is closed first (in the same lock, so no record slips in
    /// between). A draft closed before answers at once: nothing is written once its lock may be another opener's.
    private func flush(closing: Bool, completion: @escaping @Sendable (DraftError?) -> Void) {
        let (answer, starts) = shared.withLock { $0.wait(closing: closing, completion) }
        if let answer { completion(answer) }
        if starts { writerQueue.async { self.write() } }
    }

    /// Returns once every record appended before this call is durable: what an app awaits before it goes to the
    /// background. - Throws: the error that kept them from being durable (a full disk, a removed folder).
    public func waitUntilDurable() async throws(DraftError) {
        let error = await withCheckedContinuation { (continuation: CheckedContinuation<DraftError?, Never>) in
            waitUntilDurable { continuation.resume(returning: $0) }
        }
        if let error { throw error }
    }

    /// Stops journaling and gives the draft up to the next opener: nothing the board accepts from now on is journaled
    /// (its effects are no longer held back), every record appended before is made durable, then the lock is
    /// released. The board keeps working in memory. - Throws: the error that kept the records from being durable
    /// (the lock is released all the same).
    public func close() async throws(DraftError) {
        defer { releaseLock() }
        let error = await withCheckedContinuation { (continuation: CheckedContinuation<DraftError?, Never>) in
            flush(closing: true) { continuation.resume(returning: $0) }
        }
        if let error { throw error }
    }

    private func releaseLock() {
        let held = lock.withLock { lock in
            defer { lock = nil }
            return lock
        }
        held?.release()
    }

    /// Closes the draft and removes its files (the journal, the snapshot, temporary and lock files; a kept damaged
    /// journal stays): a finished or abandoned session. The board keeps working in memory and journals nothing.
    /// - Throws: the error of a removal that failed.
    public func discard() async throws(DraftError) {
        shared.withLock { $0.isClosed = true }
        defer { releaseLock() }
        // Whatever the writer and the syncer have under way ends first, so nothing brings the files back.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            writerQueue.async { self.syncQueue.async { continuation.resume() } }
        }
        for name in [path, path + ".snapshot", path + ".tmp", path + ".snapshot.tmp", path + ".lock"] {
            try storage.remove(name)
        }
        try storage.syncFolder(of: path, syncLevel)
    }

    /// The writer: writes what was handed over, batch after batch, until nothing is left (``DraftPipeline``), and
    /// starts the syncer after a batch when it is idle.
    private func write() {
        var first = true
        while let batch = shared.withLock({ $0.nextBatch(first: first) }) {
            first = false
            let outcome = writer.withLock { $0.write(batch) }
            let (answered, startsSyncer) = shared.withLock { $0.finish(batch, outcome) }
            for resume in answered { resume() }
            if startsSyncer { syncQueue.async { self.sync() } }
        }
    }

    /// The syncer: syncs the journal until every record written is durable (``DraftPipeline``), answering the waiters
    /// each sync covers.
    private func sync() {
        while let next = shared.withLock({ $0.nextSync() }) {
            // Everything up to the target was written before this sync starts. (A compaction that replaces the
            // journal meanwhile syncs what it writes itself.)
            var failure: DraftError?
            do throws(DraftError) {
                try storage.sync(path, syncLevel)
                if next.everything {
                    try storage.sync(path + ".snapshot", syncLevel)
                    try storage.syncFolder(of: path, syncLevel)
                }
            } catch {
                failure = error
            }
            let answered = shared.withLock { $0.finish(next, error: failure) }
            for resume in answered { resume() }
        }
    }
}

/// One entry handed to the writer.
struct DraftWriteItem: Sendable {
    let sequence: UInt64
    let entry: DraftEntry
}

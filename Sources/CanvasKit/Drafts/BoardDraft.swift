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
        /// The error of the last write or sync that failed, until one succeeds again.
        public var failure: DraftError?
    }

    /// The journal file (the draft's path); its snapshot is beside it, named with `.snapshot` appended.
    public let path: String
    /// What the restore found when the board was opened.
    public let restore: DraftRestore

    private let storage: any DraftStorage
    private let syncLevel: DraftSync
    private let shared: LockedValue<Shared>
    /// The writer's own state: taken by the writer's queue, and by the syncer only to mark a failed sync.
    private let writer: LockedValue<Writer>
    /// The draft's exclusive lock, until ``close()`` or ``discard()``.
    private let lock: LockedValue<DraftLock?>
    private let writerQueue = DispatchQueue(label: "MultiCanvas.BoardDraft.writer", qos: .utility)
    private let syncQueue = DispatchQueue(label: "MultiCanvas.BoardDraft.syncer", qos: .utility)

    private typealias Waiter = (sequence: UInt64, resume: @Sendable (DraftError?) -> Void)

    /// What the sending threads, the writer and the syncer share.
    private struct Shared: Sendable {
        var pending: [DraftWriteItem] = []
        var progress: Progress
        var isWriting = false
        var isSyncing = false
        /// Whether the files must be rewritten before what they hold counts as durable (a new draft, a dropped tail,
        /// a failed write or sync).
        var needsRewrite = false
        /// Whether ``close()`` or ``discard()`` was called: nothing more is journaled.
        var isClosed = false
        /// Whether the next sync covers the snapshot and the folder too (what an opening read).
        var syncsEverything = false
        var waiters: [Waiter] = []
        /// What runs once a record is durable (held-back effects); a failure does not answer them, they wait for the
        /// rewrite that follows it.
        var listeners: [(sequence: UInt64, run: @Sendable () -> Void)] = []

        /// The last record that counts as durable: none while the files must be rewritten.
        var durable: UInt64 { needsRewrite ? 0 : progress.durable }

        /// Takes out the waiters that are answered: those whose records are durable, and with `failure`, the others;
        /// and the listeners whose records are durable, in the order they were added.
        mutating func answeredWaiters(failure: DraftError?) -> [@Sendable () -> Void] {
            var answered: [@Sendable () -> Void] = []
            let durable = durable
            waiters.removeAll { waiter in
                if waiter.sequence <= durable {
                    answered.append { waiter.resume(nil) }
                    return true
                }
                guard let failure else { return false }
                answered.append { waiter.resume(failure) }
                return true
            }
            let ready = listeners.prefix { $0.sequence <= durable }
            answered += ready.map(\.run)
            listeners.removeFirst(ready.count)
            return answered
        }
    }

    private struct Writer: Sendable {
        var draft: DraftWriter
    }

    /// A draft whose writer starts at `writer` (the files as they are) with `pending` handed over already (the
    /// restore's own records), numbered up to `appended`.
    init(
        path: String, restore: DraftRestore, writer: DraftWriter, appended: UInt64, pending: [DraftWriteItem],
        lock: DraftLock
    ) {
        self.path = path
        self.lock = LockedValue(lock)
        self.restore = restore
        storage = writer.storage
        syncLevel = writer.syncLevel
        let written = writer.journalSequence
        let starts = !pending.isEmpty || writer.needsCompaction
        // What was read may be only in the page cache (the last writes of a killed process): nothing counts as
        // durable until a sync after the opening (or the rewrite, which syncs what it writes).
        let syncsRead = !writer.needsCompaction && written > 0
        shared = LockedValue(
            Shared(
                pending: pending,
                progress: Progress(appended: appended, written: written, durable: 0, failure: nil),
                isWriting: starts, isSyncing: syncsRead, needsRewrite: writer.needsCompaction,
                syncsEverything: syncsRead))
        self.writer = LockedValue(Writer(draft: writer))
        if starts { writerQueue.async { self.write(rewriting: true) } }
        if syncsRead { syncQueue.async { self.sync() } }
    }

    /// How far the records are now.
    public var progress: Progress {
        shared.withLock { $0.progress }
    }

    /// Records the file the recorder writes the current take into, so that a restore after a kill names it in its
    /// ``CanvasEffect/takeInterrupted(index:url:)`` effect. Call it when the recording starts (on the
    /// `startRecording` effect, with the URL given to the recorder). Ignored when no canvas is recording.
    public func noteRecordingFile(_ url: URL) {
        append(.recordingFile(url))
    }

    /// Hands one entry to the writer, numbered after every entry handed before it. Constant time; never waits for
    /// the disk. - Returns: the entry's record number.
    @discardableResult
    func append(_ entry: DraftEntry) -> UInt64? {
        let (sequence, starts) = shared.withLock { shared -> (UInt64?, Bool) in
            guard !shared.isClosed else { return (nil, false) }
            shared.progress.appended += 1
            shared.pending.append(DraftWriteItem(sequence: shared.progress.appended, entry: entry))
            guard !shared.isWriting else { return (shared.progress.appended, false) }
            shared.isWriting = true
            return (shared.progress.appended, true)
        }
        if starts { writerQueue.async { self.write(rewriting: false) } }
        return sequence
    }

    /// Whether record `record` is durable now: a power loss can no longer lose it.
    public func isDurable(_ record: UInt64) -> Bool {
        shared.withLock { record <= $0.durable }
    }

    /// Returns once record `record` is durable. A failed write or sync does not end the wait: it lasts until the
    /// rewrite that follows the failure (on the next append or ``waitUntilDurable()``) made the record durable.
    public func durable(through record: UInt64) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = shared.withLock { shared -> Bool in
                if record <= shared.durable { return true }
                // Records are made durable in order, so the listeners stay sorted when added in order; insert in
                // place otherwise.
                let index = shared.listeners.lastIndex { $0.sequence <= record }.map { $0 + 1 } ?? 0
                shared.listeners.insert((record, { continuation.resume() }), at: index)
                return false
            }
            if now { continuation.resume() }
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
        let (answer, starts) = shared.withLock { shared -> (DraftError??, Bool) in
            let target = shared.progress.appended
            let wasClosed = shared.isClosed
            if closing { shared.isClosed = true }
            if shared.progress.durable >= target && !shared.needsRewrite { return (.some(nil), false) }
            if wasClosed {
                return (.some(shared.progress.failure ?? .io(path: path, operation: "write", errno: ECANCELED)), false)
            }
            shared.waiters.append((target, completion))
            // After a failure, nothing may be under way: asking tries again (the writer rewrites the draft whole).
            guard !shared.isWriting, !shared.isSyncing else { return (nil, false) }
            shared.isWriting = true
            return (nil, true)
        }
        if let answer { completion(answer) }
        if starts { writerQueue.async { self.write(rewriting: true) } }
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

    /// The writer: appends what was handed over, group after group, until nothing is left, and starts the syncer
    /// after each group. With `rewriting`, the first round runs even with nothing handed over (a new draft, a dropped
    /// tail, a retry after a failure: the writer rewrites the draft whole).
    private func write(rewriting: Bool) {
        var first = rewriting
        while true {
            let batch = shared.withLock { shared -> [DraftWriteItem]? in
                guard !shared.pending.isEmpty || first else {
                    shared.isWriting = false
                    return nil
                }
                let batch = shared.pending
                shared.pending = []
                return batch
            }
            first = false
            guard let batch else { return }
            let outcome = writer.withLock { $0.draft.append(batch) }
            let (answered, syncs) = shared.withLock { shared in
                var failure: DraftError?
                switch outcome {
                case .success(let written):
                    shared.progress.written = max(shared.progress.written, written.sequence)
                    if written.isDurable {
                        shared.progress.durable = max(shared.progress.durable, written.sequence)
                        shared.progress.failure = nil
                        shared.needsRewrite = false
                    }
                case .failure(let error):
                    shared.progress.failure = error
                    shared.needsRewrite = true
                    failure = error
                }
                let syncs = !shared.isSyncing && shared.progress.written > shared.progress.durable && failure == nil
                if syncs { shared.isSyncing = true }
                return (shared.answeredWaiters(failure: failure), syncs)
            }
            for resume in answered { resume() }
            if syncs { syncQueue.async { self.sync() } }
        }
    }

    /// The syncer: syncs the journal until every record written is durable, telling the waiters each sync covers.
    private func sync() {
        while true {
            var rewrites = false
            let next = shared.withLock { shared -> (target: UInt64, everything: Bool)? in
                guard shared.progress.written > shared.progress.durable else {
                    shared.isSyncing = false
                    // A write failed while this sync ran: whoever waits needs the rewrite that nobody else starts.
                    if shared.needsRewrite, !shared.waiters.isEmpty, !shared.isWriting {
                        shared.isWriting = true
                        rewrites = true
                    }
                    return nil
                }
                defer { shared.syncsEverything = false }
                return (shared.progress.written, shared.syncsEverything)
            }
            guard let (target, everything) = next else {
                if rewrites { writerQueue.async { self.write(rewriting: true) } }
                return
            }
            // Everything up to `target` was written before this sync starts. (A compaction that replaces the journal
            // meanwhile syncs what it writes itself.)
            var failure: DraftError?
            do throws(DraftError) {
                try storage.sync(path, syncLevel)
                if everything {
                    try storage.sync(path + ".snapshot", syncLevel)
                    try storage.syncFolder(of: path, syncLevel)
                }
            } catch {
                failure = error
                writer.withLock { $0.draft.markDamaged() }
            }
            let answered = shared.withLock { shared in
                if let failure {
                    shared.progress.failure = failure
                    shared.needsRewrite = true
                    shared.isSyncing = false
                } else {
                    shared.progress.durable = max(shared.progress.durable, target)
                }
                return shared.answeredWaiters(failure: failure)
            }
            for resume in answered { resume() }
            if failure != nil { return }
        }
    }
}

/// One entry handed to the writer.
struct DraftWriteItem: Sendable {
    let sequence: UInt64
    let entry: DraftEntry
}

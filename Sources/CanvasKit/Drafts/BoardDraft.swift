import Dispatch
import Foundation
import Locking

/// The journal of a ``CanvasBoard`` opened on a draft file (`CanvasBoard(draftAt:newBoard:options:)`): what it
/// restored, and how far what the board accepted since is on the disk.
///
/// Every event the board accepts is handed to the draft before `send` returns (so before its effects reach the
/// performer), as a record numbered in the order the board accepted it. The calling thread never waits for the disk:
/// a writer on its own queue appends the records handed to it since its last write, in one write, then syncs them
/// (`fsync`), then takes the records handed to it meanwhile. A record is *written* once its write returned (a kill
/// of the process can no longer lose it) and *durable* once the sync after it returned (a power loss cannot lose it).
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

    private let shared: LockedValue<Shared>
    /// The writer's own state: taken only by the one drain running at a time (never contended).
    private let writer: LockedValue<Writer>
    private let queue = DispatchQueue(label: "MultiCanvas.BoardDraft", qos: .utility)

    /// What the sending threads and the writer share.
    private struct Shared: Sendable {
        var pending: [DraftWriteItem] = []
        var progress: Progress
        var isDraining = false
        /// Whether the files must be rewritten before what they hold counts as durable (a new draft, a dropped tail,
        /// a failed write).
        var needsRewrite = false
        var waiters: [(sequence: UInt64, resume: @Sendable (DraftError?) -> Void)] = []
    }

    /// A draft whose writer starts at `writer` (the files as they are) with `pending` handed over already (the
    /// restore's own records), numbered up to `appended`.
    init(path: String, restore: DraftRestore, writer: DraftWriter, appended: UInt64, pending: [DraftWriteItem]) {
        self.path = path
        self.restore = restore
        let durable = writer.journalSequence
        let starts = !pending.isEmpty || writer.needsCompaction
        shared = LockedValue(
            Shared(
                pending: pending,
                progress: Progress(appended: appended, written: durable, durable: durable, failure: nil),
                isDraining: starts, needsRewrite: writer.needsCompaction))
        self.writer = LockedValue(Writer(draft: writer))
        if starts { queue.async { self.drain() } }
    }

    private struct Writer: Sendable {
        var draft: DraftWriter
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
    /// the disk.
    func append(_ entry: DraftEntry) {
        let starts = shared.withLock { shared -> Bool in
            shared.progress.appended += 1
            shared.pending.append(DraftWriteItem(sequence: shared.progress.appended, entry: entry))
            guard !shared.isDraining else { return false }
            shared.isDraining = true
            return true
        }
        if starts { queue.async { self.drain() } }
    }

    /// Calls `completion` once every record appended before this call is durable (nil), or with the error that kept
    /// it from being so. On the writer's queue, or at once on the calling thread when they already are.
    public func waitUntilDurable(completion: @escaping @Sendable (DraftError?) -> Void) {
        let (ready, starts) = shared.withLock { shared -> (Bool, Bool) in
            let target = shared.progress.appended
            if shared.progress.durable >= target && !shared.needsRewrite { return (true, false) }
            shared.waiters.append((target, completion))
            guard !shared.isDraining else { return (false, false) }
            shared.isDraining = true
            return (false, true)
        }
        if ready { completion(nil) }
        if starts { queue.async { self.drain() } }
    }

    /// Returns once every record appended before this call is durable: what an app awaits before it goes to the
    /// background. - Throws: the error that kept them from being durable (a full disk, a removed folder).
    public func waitUntilDurable() async throws(DraftError) {
        let error = await withCheckedContinuation { (continuation: CheckedContinuation<DraftError?, Never>) in
            waitUntilDurable { continuation.resume(returning: $0) }
        }
        if let error { throw error }
    }

    /// Writes what was handed over, group after group, until nothing is left: appends a group in one write, records
    /// it as written, syncs it, records it as durable and tells the waiters it covers.
    private func drain() {
        // The first round runs even with nothing handed over: a draft opened on damaged or missing files is rewritten.
        var first = true
        while true {
            let isFirst = first
            first = false
            let batch = shared.withLock { shared -> [DraftWriteItem]? in
                if shared.pending.isEmpty && shared.waiters.isEmpty && !isFirst {
                    shared.isDraining = false
                    return nil
                }
                let batch = shared.pending
                shared.pending = []
                return batch
            }
            guard let batch else { return }
            var outcome = writer.withLock { $0.draft.append(batch) }
            if case .success(let written) = outcome {
                shared.withLock { $0.progress.written = max($0.progress.written, written) }
                outcome = writer.withLock { $0.draft.sync() }
            }
            let (resumed, stops) = shared.withLock { shared in
                var failure: DraftError?
                switch outcome {
                case .success(let durable):
                    shared.progress.written = max(shared.progress.written, durable)
                    shared.progress.durable = max(shared.progress.durable, durable)
                    shared.progress.failure = nil
                    shared.needsRewrite = false
                case .failure(let error):
                    shared.progress.failure = error
                    shared.needsRewrite = true
                    failure = error
                }
                let durable = shared.progress.durable
                var resumed: [(DraftError?, @Sendable (DraftError?) -> Void)] = []
                shared.waiters.removeAll { waiter in
                    guard waiter.sequence <= durable || failure != nil else { return false }
                    // `durable` covers the waiter: the rewrite is done too (a success clears it; a failure fails it).
                    resumed.append((waiter.sequence <= durable ? nil : failure, waiter.resume))
                    return true
                }
                // After a failure, the next append or wait tries again (the writer rewrites the draft whole).
                let stops = shared.pending.isEmpty && (failure != nil || shared.waiters.isEmpty)
                if stops { shared.isDraining = false }
                return (resumed, stops)
            }
            for (error, resume) in resumed { resume(error) }
            if stops { return }
        }
    }
}

/// One entry handed to the writer.
struct DraftWriteItem: Sendable {
    let sequence: UInt64
    let entry: DraftEntry
}

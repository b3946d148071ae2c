import Foundation

/// What the sending threads, the writer and the syncer of a ``BoardDraft`` share, and every decision they take on it:
/// which batch the writer writes next and how, what the syncer syncs next, and what each outcome makes durable. A
/// plain value, changed only inside the draft's lock; the draft carries out its answers (the writes, the syncs, the
/// waiters it hands back) outside the lock.
///
/// The rules, each checked where it is taken:
/// - A record counts as durable only once a sync that covers it succeeded on files that were sound when the sync
///   started and met no failure until it ended, or once a rewrite (a compaction, which syncs what it writes) that
///   holds it succeeded. A failed write or sync may have dropped anything not yet durable, so from it until a rewrite
///   succeeds the files are ``Files/rewriteNeeded`` and no sync counts.
/// - A waiter is answered when its records are durable and the files sound (a new draft's waiter waits for its first
///   files), or with the failure that keeps them from being so; a failure answers every waiter there is. A waiter that
///   comes while the files need a rewrite starts that rewrite (the writer runs it when it is idle, or before it stops
///   when it is running). A listener runs once its record is durable.
/// - The writer stops only with nothing handed over and nobody waiting for a rewrite; the syncer stops only with
///   nothing written past the durable records, or when the files need a rewrite.
/// - Past `pendingLimit` bytes waiting, the records waiting are dropped (a failure: the files need a rewrite) and the
///   writer's next batch writes `latest`, the board as of the last record, whole. After `ENOSPC` the files are
///   ``Files/full``: a rewrite is tried only after a probe write succeeded.
struct DraftPipeline: Sendable {
    /// Whether a worker (the writer, the syncer) runs on its queue.
    enum Worker: Sendable, Equatable {
        case idle, running
    }

    /// What the draft knows of its files.
    enum Files: Sendable, Equatable {
        /// Every record written is in the journal, in order, after the durable ones: a sync makes them durable.
        case sound
        /// The files must be rewritten whole before anything more counts as durable: a new draft, a dropped tail, a
        /// failed write or sync, records dropped past the pending bound.
        case rewriteNeeded
        /// As ``rewriteNeeded``, after a write found the disk full (`ENOSPC`): the writer tries a write of the
        /// snapshot's size first (`DraftWriter.probe`), and the rewrite only once that succeeded, so a full disk
        /// costs one such write per batch, not a whole compaction.
        case full
    }

    typealias Waiter = (sequence: UInt64, resume: @Sendable (DraftError?) -> Void)

    /// A batch the writer writes: the records handed over since the last one, appended, or with `rewrites` the whole
    /// board written anew.
    struct Batch: Sendable {
        let items: [DraftWriteItem]
        /// The board to write as it is, through record `board.sequence`, instead of applying `items` (the records were
        /// dropped past the pending bound).
        let board: (state: DraftState, sequence: UInt64)?
        let rewrites: Bool
        /// Whether the disk was full: the writer tries a write first, and rewrites only once it succeeds.
        let probes: Bool
        /// `failures` when it was taken.
        let failuresBefore: UInt64
    }

    /// A sync the syncer makes: the journal (and with `everything` the snapshot and the folder too, what an opening
    /// read) holds every record through `target`.
    struct Sync: Sendable {
        let target: UInt64
        let everything: Bool
        let failuresBefore: UInt64
    }

    let path: String
    var pending: [DraftWriteItem]
    /// At most this many bytes (estimated) wait for the writer; past it they are dropped and the next batch rewrites
    /// `latest` whole.
    let pendingLimit: Int
    /// The board as of the last record handed over, kept in step by every append (a copy of the board's value).
    var latest: DraftState
    /// Whether records were dropped past `pendingLimit` since the writer's last batch.
    var overflowed = false
    var progress: BoardDraft.Progress
    var writer: Worker
    var syncer: Worker
    var files: Files
    /// How many writes and syncs failed so far: a sync or a rewrite that saw it change may have lost what it covers.
    var failures: UInt64 = 0
    /// Whether ``BoardDraft/close()`` or ``BoardDraft/discard()`` was called: nothing more is journaled.
    var isClosed = false
    /// Whether the next sync covers the snapshot and the folder too (what an opening read).
    var syncsEverything: Bool
    var waiters: [Waiter] = []
    /// What runs once a record is durable (held-back effects); a failure does not answer them, they wait for the
    /// rewrite that follows it.
    var listeners: [(sequence: UInt64, run: @Sendable () -> Void)] = []

    /// The pipeline of a draft just opened: the files written through `written`, sound or to be rewritten, with
    /// `pending` handed over already; `writer` and `syncer` say which of them the draft starts.
    init(
        path: String, pending: [DraftWriteItem], appended: UInt64, written: UInt64, files: Files, latest: DraftState,
        pendingLimit: Int
    ) {
        self.path = path
        self.pending = pending
        self.files = files
        self.latest = latest
        self.pendingLimit = pendingLimit
        progress = BoardDraft.Progress(
            appended: appended, written: written, durable: 0, failure: nil, pendingBytes: 0, isBehind: false)
        writer = !pending.isEmpty || files == .rewriteNeeded ? .running : .idle
        // What was read may be only in the page cache (the last writes of a killed process): nothing counts as
        // durable until a sync after the opening (or the rewrite, which syncs what it writes).
        syncsEverything = files == .sound && written > 0
        syncer = syncsEverything ? .running : .idle
    }

    /// Hands `entry` over, numbered after every entry before it; `board` is the board after it (for an event). Past
    /// the pending bound the records waiting are dropped (the draft is behind and failed until the writer rewrites
    /// `latest`). - Returns: its number (nil once closed) and whether the writer must be started.
    mutating func append(_ entry: DraftEntry, board: BoardState?) -> (sequence: UInt64?, startsWriter: Bool) {
        guard !isClosed else { return (nil, false) }
        progress.appended += 1
        switch entry {
        case .event:
            if let board {
                latest.board = board
                if !board.isRecording { latest.recordingFile = nil }
            }
        case .recordingFile(let url):
            if latest.board.isRecording { latest.recordingFile = url }
        }
        if !overflowed {
            let size = Self.size(of: entry)
            if progress.pendingBytes + size > pendingLimit {
                overflow()
            } else {
                pending.append(DraftWriteItem(sequence: progress.appended, entry: entry))
                progress.pendingBytes += size
            }
        }
        progress.isBehind = overflowed || progress.pendingBytes > pendingLimit / 4
        guard writer == .idle else { return (progress.appended, false) }
        writer = .running
        return (progress.appended, true)
    }

    /// Drops the records waiting: the writer is too far behind. The draft failed; whoever waits is answered by the
    /// rewrite of `latest` that follows (not here: an append runs inside the board's lock).
    private mutating func overflow() {
        overflowed = true
        pending = []
        progress.pendingBytes = 0
        failures += 1
        if files != .full { files = .rewriteNeeded }
        progress.failure = .fellBehind(path: path, limit: pendingLimit)
    }

    /// About what `entry` takes in the journal (its record's frame and payload), without encoding it.
    static func size(of entry: DraftEntry) -> Int {
        switch entry {
        case .recordingFile(let url), .event(.stop(let url, _, _)),
            .event(.recordingCutShort(_, .some(let url), _, _)), .event(.markMissing(_, let url)):
            32 + url.relativeString.utf8.count
        case .event(.setSoundtrack(.some(let soundtrack))): 48 + soundtrack.url.relativeString.utf8.count
        case .event: 32
        }
    }

    /// Adds a waiter for every record appended so far (closing the draft first with `closing`). - Returns: the
    /// answer when there is one at once, and whether the writer must be started (to rewrite the files).
    mutating func wait(
        closing: Bool, _ resume: @escaping @Sendable (DraftError?) -> Void
    ) -> (answer: DraftError??, startsWriter: Bool) {
        let target = progress.appended
        let wasClosed = isClosed
        if closing { isClosed = true }
        if progress.durable >= target && files == .sound { return (.some(nil), false) }
        // Nothing is written once the lock may be another opener's.
        if wasClosed {
            return (.some(progress.failure ?? .io(path: path, operation: "write", errno: ECANCELED)), false)
        }
        waiters.append((target, resume))
        guard files != .sound, writer == .idle else { return (nil, false) }
        writer = .running
        return (nil, true)
    }

    /// Adds `run` for when record `record` is durable. - Returns: false when it is durable already (`run` is not
    /// kept).
    mutating func listen(through record: UInt64, _ run: @escaping @Sendable () -> Void) -> Bool {
        if record <= progress.durable { return false }
        // Records are made durable in order, so the listeners stay sorted when added in order; insert in place
        // otherwise.
        let index = listeners.lastIndex { $0.sequence <= record }.map { $0 + 1 } ?? 0
        listeners.insert((record, run), at: index)
        return true
    }

    /// The writer's next batch; nil when it stops (it is then idle). `first` is its first round after being started:
    /// it runs even with nothing handed over when the files need a rewrite.
    mutating func nextBatch(first: Bool) -> Batch? {
        let rewrites = files != .sound
        guard !pending.isEmpty || overflowed || (rewrites && (first || !waiters.isEmpty)) else {
            writer = .idle
            return nil
        }
        defer {
            pending = []
            overflowed = false
            progress.pendingBytes = 0
            progress.isBehind = false
        }
        return Batch(
            items: pending, board: overflowed ? (latest, progress.appended) : nil, rewrites: rewrites,
            probes: files == .full, failuresBefore: failures)
    }

    /// What the writer's batch reached. - Returns: what to answer, and whether the syncer must be started.
    mutating func finish(
        _ batch: Batch, _ outcome: Result<DraftWriter.Written, DraftError>
    ) -> (answered: [@Sendable () -> Void], startsSyncer: Bool) {
        var failure: DraftError?
        switch outcome {
        case .success(let written):
            progress.written = max(progress.written, written.sequence)
            if written.isDurable {
                // A rewrite synced what it wrote: durable whatever happened meanwhile. The files are sound again
                // only when no write or sync failed while it ran.
                progress.durable = max(progress.durable, written.sequence)
                if failures == batch.failuresBefore {
                    files = .sound
                    progress.failure = nil
                }
            }
        case .failure(let error):
            failed(error)
            failure = error
        }
        let startsSyncer = syncer == .idle && files == .sound && progress.written > progress.durable
        if startsSyncer { syncer = .running }
        return (answered(failure: failure), startsSyncer)
    }

    /// The syncer's next sync; nil when it stops (it is then idle).
    mutating func nextSync() -> Sync? {
        guard progress.written > progress.durable, files == .sound else {
            syncer = .idle
            return nil
        }
        defer { syncsEverything = false }
        return Sync(target: progress.written, everything: syncsEverything, failuresBefore: failures)
    }

    /// What the syncer's sync reached (`error` when it failed). - Returns: what to answer.
    mutating func finish(_ sync: Sync, error: DraftError?) -> [@Sendable () -> Void] {
        if let error {
            failed(error)
        } else if failures == sync.failuresBefore {
            progress.durable = max(progress.durable, sync.target)
        }
        return answered(failure: error)
    }

    private mutating func failed(_ error: DraftError) {
        failures += 1
        if case .io(_, _, ENOSPC) = error { files = .full } else { files = .rewriteNeeded }
        progress.failure = error
    }

    /// Takes out the waiters that are answered: those whose records are durable on sound files, and with `failure`,
    /// the others; and the listeners whose records are durable, in the order they were added.
    private mutating func answered(failure: DraftError?) -> [@Sendable () -> Void] {
        var answered: [@Sendable () -> Void] = []
        let durable = progress.durable
        waiters.removeAll { waiter in
            if waiter.sequence <= durable && files == .sound {
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

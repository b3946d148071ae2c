import Foundation

/// How a board is opened on a draft.
public struct DraftOptions: Sendable {
    /// Where the draft's bytes go; the file system by default.
    public var storage: any DraftStorage
    /// After this many records, the writer compacts the journal into a new snapshot (off the calling thread).
    public var compactionThreshold: Int
    /// Whether a take's file is still there; a take whose file is not is reported on restore (it stays on its canvas).
    /// By default: a file URL whose file exists (other URLs are kept).
    public var takeExists: @Sendable (URL) -> Bool
    /// How far a sync pushes the bytes before they count as durable: ``DraftSync/full`` (by default: through the
    /// drive's cache, `F_FULLFSYNC` on Apple platforms) or ``DraftSync/system`` (`fsync` only: cheaper on Apple
    /// hardware, where a power loss may then lose the last groups).
    public var sync: DraftSync
    /// The folder takes are journaled relative to: a take file inside it is written as its path below it, so a draft
    /// moved with its takes (the app's container moved, a volume mounted elsewhere) finds them where it is then; a
    /// take elsewhere is written as its whole URL. Nil (by default): the draft's own folder, wherever it is when it
    /// is opened. Give the same folder every time the draft is opened.
    public var takeRoot: URL?
    /// The data protection the draft's files are created with on Apple platforms (through
    /// ``DraftStorage/protect(_:_:)``): ``DraftProtection/completeUntilFirstUserAuthentication`` by default, since the
    /// draft writes in the background, also while the device is locked.
    public var protection = DraftProtection.completeUntilFirstUserAuthentication
    /// At most this many bytes of records (estimated) wait for the writer while the disk is slow: past a quarter of it
    /// the draft is behind (``BoardDraft/Progress/isBehind``), past it the records waiting are dropped, the draft
    /// fails with ``DraftError/fellBehind(path:limit:)``, and its next write rewrites it whole from the board in
    /// memory. The calling thread never waits for the disk either way. 4 MiB by default.
    public var pendingLimit: Int
    /// The default ``pendingLimit``: 4 MiB.
    public static let defaultPendingLimit = 4 << 20

    /// Options with the defaults above.
    public init(
        storage: any DraftStorage = FileDraftStorage(), compactionThreshold: Int = 10_000,
        takeExists: @escaping @Sendable (URL) -> Bool = DraftOptions.fileExists, sync: DraftSync = .full,
        takeRoot: URL? = nil, pendingLimit: Int = DraftOptions.defaultPendingLimit
    ) {
        self.pendingLimit = max(1, pendingLimit)
        self.storage = storage
        self.takeRoot = takeRoot
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
/// progress (its canvas is back `inPreview`, still selected; journaled like an event, so the next restore does not
/// report it again), ``CanvasEffect/takeMissing(index:url:)`` for each take whose file is not there (it stays on its
/// canvas, marked missing: the app confirms its removal with `delete`, or relinks it with ``CanvasEvent/relink(_:)``),
/// and ``CanvasEffect/coverWanted(index:url:)`` for a take marked missing whose files are back (the restore relinked
/// it).
public struct DraftRestore: Sendable, Hashable {
    /// True when there was no draft at the path: the board is the new one, and the draft was created.
    public var isNew: Bool
    /// The number of the snapshot's last record.
    public var snapshotSequence: UInt64
    /// Journal records replayed after the snapshot.
    public var replayedRecords: Int
    /// The number of the last record restored (before the restore's own).
    public var sequence: UInt64
    /// Records of a torn or corrupt tail that were dropped: 1 for a torn last record, the damaged record and the
    /// whole ones after it for corruption; 0 for a tail of zeros (space whose data never arrived: nothing that was
    /// written is lost).
    public var droppedRecords: Int
    /// The damage found in the journal, when a damaged record had whole records after it (not a torn write): the
    /// board is as of the last good record, and the damaged journal was kept beside the draft.
    public var corruption: DraftCorruption?
    /// What the app must handle, in order (see above).
    public var effects: [CanvasEffect]
}

/// Damage a restore found in a journal: a record that fails its checksum with whole, checksummed records after it,
/// which no torn write leaves. The restore stops at the last good record; the damaged journal is kept (linked under a
/// new name, never overwritten) for the app to send to its support, and the draft continues from the last good
/// record. A take the recorder was writing then comes back interrupted without its file (the damaged records may
/// have finished it), so the app removes nothing.
public struct DraftCorruption: Sendable, Hashable, CustomStringConvertible {
    /// The last good record: the board is as of it.
    public var lastGoodRecord: UInt64
    /// Where the damaged record starts in the journal, in bytes.
    public var offset: Int
    /// How many whole records were found after the damage (not replayed).
    public var laterRecords: Int
    /// The number of the last whole record found after the damage.
    public var lastLaterRecord: UInt64
    /// The path the damaged journal is kept at.
    public var keptAt: String

    /// One line, e.g. `damage at byte 812 after record 40; 12 whole records after it, up to record 53, were not
    /// replayed; the damaged journal is kept at 'a.draft.damaged'`.
    public var description: String {
        "damage at byte \(offset) after record \(lastGoodRecord); \(laterRecords) whole records after it, up to record "
            + "\(lastLaterRecord), were not replayed; the damaged journal is kept at '\(keptAt)'"
    }
}

extension CanvasBoard {
    /// Opens the draft at `url`, or creates it with `newBoard` when there is none, and returns the board it holds.
    ///
    /// A restore reads the latest snapshot (`url` with `.snapshot` appended) and replays the journal records after it
    /// through the transition function, so the board comes back in the state after the last record on the disk.
    /// Then a recording in progress comes back `inPreview`, and takes whose files are missing are reported (they stay
    /// on their canvases); both are in ``BoardDraft/restore``'s effects for the app to handle. From then on, every event the board
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

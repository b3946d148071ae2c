import Foundation

/// A draft found in a folder by ``BoardDraft/drafts(in:options:)``.
public struct DraftSummary: Sendable, Hashable {
    /// Whether a board could be opened on the draft now.
    public enum State: Sendable, Hashable {
        /// Opening a board on it would restore it (a torn or damaged journal tail is dropped and reported then).
        case readable
        /// Another board, in this process or another, has it open (``DraftError/inUse(path:)``).
        case inUse
        /// Opening a board on it would fail with this error (a damaged header or snapshot, a newer format, a journal
        /// whose snapshot is missing, ...).
        case damaged(DraftError)
    }

    /// The draft: its journal's URL, what `CanvasBoard(draftAt:newBoard:options:)` takes (the journal itself may be
    /// missing when a compaction was cut between its two renames; the snapshot beside it then holds the board).
    public var url: URL
    /// What opening it would give.
    public var state: State
}

extension BoardDraft {
    /// The drafts in `folder`, sorted by name, each with whether a board could be opened on it now.
    ///
    /// A draft is a journal (a file that starts with the draft signature and says it is a journal) or a snapshot
    /// (`NAME.snapshot`, which names the draft `NAME`); temporary files (`.tmp`), locks (`.lock`) and damaged journals
    /// kept aside (`.damaged`) are not drafts. Only regular files are looked at (links, FIFOs and devices are passed
    /// over), and of each only its first 32 bytes, until a draft is found: a folder of large takes is listed quickly.
    /// The folder's entries and every file are read through `options.storage` (``DraftStorage/entries(of:)``,
    /// ``DraftStorage/openForReading(_:)``). Each draft is then read as an opening reads it (under its lock, taken and released
    /// again), changing nothing: no file is written, kept aside or removed, except the draft's lock file, created
    /// when missing as an opening creates it.
    ///
    /// - Throws: ``DraftError/io(path:operation:errno:)`` when the folder cannot be listed.
    public static func drafts(in folder: URL, options: DraftOptions = DraftOptions()) throws(DraftError)
        -> [DraftSummary]
    {
        let storage = options.storage
        let names = try storage.entries(of: folder.path)
        let present = Set(names)
        var drafts = Set<String>()
        for name in names where !DraftSummary.isCompanion(name) {
            if name.hasSuffix(".snapshot") {
                drafts.insert(String(name.dropLast(".snapshot".count)))
            } else if !present.contains(name + ".snapshot"),
                DraftSummary.isJournal(folder.appending(path: name).path, storage)
            {
                drafts.insert(name)
            }
        }
        return drafts.sorted().map { name in
            let url = folder.appending(path: name)
            return DraftSummary(url: url, state: DraftSummary.state(of: url.path, options: options))
        }
    }
}

extension DraftSummary {
    /// Whether `name` is one of the files a draft keeps beside its journal and snapshot.
    static func isCompanion(_ name: String) -> Bool {
        name.hasSuffix(".tmp") || name.hasSuffix(".lock") || name.contains(".damaged")
    }

    /// Whether the file at `path` is a regular file whose first bytes are a journal's header (signature and kind;
    /// its checksum is judged by the opening). Reads at most 32 bytes through `storage` (``FileDraftStorage`` never
    /// follows a link or blocks on a FIFO: those are not drafts).
    static func isJournal(_ path: String, _ storage: any DraftStorage) -> Bool {
        guard let file = try? storage.openForReading(path),
            let header = try? file.read(at: 0, count: DraftFormat.headerSize), header.count > 10
        else { return false }
        return header[0..<DraftFormat.signature.count].elementsEqual(DraftFormat.signature)
            && header[10] == DraftFormat.Kind.journal.rawValue
    }

    /// What opening the draft at `path` would give, found under its lock without changing it.
    static func state(of path: String, options: DraftOptions) -> State {
        do throws(DraftError) {
            let lock = try options.storage.lock(path)
            defer { lock.release() }
            try DraftOpening.check(path: path, options: options)
            return .readable
        } catch .inUse {
            return .inUse
        } catch {
            return .damaged(error)
        }
    }
}

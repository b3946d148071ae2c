import Foundation

/// A board opened by ``CanvasBoard/openingDraft(at:newBoard:options:)``: on the draft asked for, or, when that one
/// cannot be opened, on a new draft beside it.
public struct DraftOpened: Sendable {
    /// The board, journaling to ``url``.
    public let board: CanvasBoard
    /// The draft the board journals to: the one asked for, or the new one beside it.
    public let url: URL
    /// Why the draft asked for could not be opened (it is left as it was, for support), or nil when it was opened.
    public let failure: DraftError?
}

extension CanvasBoard {
    /// Opens the draft at `url` as `init(draftAt:newBoard:options:)` does; when it cannot be opened (damaged, from a
    /// newer version, in use by another process, ...), opens a new draft holding `newBoard` beside it, at the first
    /// free name `NAME-2.EXT`, `NAME-3.EXT`, ..., so the session is journaled all the same: never a board that
    /// journals nothing. The draft that could not be opened is left as it was; ``DraftOpened/failure`` says why, and
    /// `BoardDraft.drafts(in:options:)` lists both.
    ///
    /// - Throws: `DraftError` only when the new draft cannot be opened either (its lock file cannot be created: the
    ///   folder is missing or not writable).
    public static func openingDraft(
        at url: URL, newBoard: @autoclosure () -> BoardState, options: DraftOptions = DraftOptions()
    ) throws(DraftError) -> DraftOpened {
        let failure: DraftError
        do throws(DraftError) {
            let board = try CanvasBoard(draftAt: url, newBoard: newBoard(), options: options)
            return DraftOpened(board: board, url: url, failure: nil)
        } catch {
            failure = error
        }
        let stem = url.deletingPathExtension().lastPathComponent
        let suffix = url.pathExtension.isEmpty ? "" : "." + url.pathExtension
        let folder = url.deletingLastPathComponent()
        for number in 2...10_000 {
            let candidate = folder.appending(path: "\(stem)-\(number)\(suffix)")
            guard isFree(candidate.path, options.storage) else { continue }
            let board = try CanvasBoard(draftAt: candidate, newBoard: newBoard(), options: options)
            return DraftOpened(board: board, url: candidate, failure: failure)
        }
        throw failure
    }

    /// Whether no draft file (journal, snapshot, lock) is at `path`: a file that cannot be read counts as taken.
    private static func isFree(_ path: String, _ storage: any DraftStorage) -> Bool {
        [path, path + ".snapshot", path + ".lock"].allSatisfy { name in
            do {
                return try storage.openForReading(name) == nil
            } catch {
                return false
            }
        }
    }
}

import Foundation

/// An event sent to a board.
///
/// Indexes are plain integers: an out-of-range or negative index is not a programming error but an event the board
/// rejects with `CanvasRejection.indexOutOfRange`. The `description` is the event language of `CanvasScript`
/// (`tap 0`, `record`, `stop take-1.mov`, ...), and parsing it back gives the same event (a `stop`'s start aside:
/// the language has no word for it, a simulation supplies it from its clock).
public enum CanvasEvent: Sendable, Hashable, CustomStringConvertible {
    /// The user taps the canvas at the index.
    case tap(Int)
    /// The user starts recording into the previewing canvas.
    case record
    /// The recorder finished; the take is the file at the URL, and its first frame lies `start` seconds into the
    /// board's timeline (``SyncedPlayback/takeStart(recordingBeganAt:captureLatency:)``; 0 when the host does not
    /// sync takes). The script word does not carry the start.
    case stop(URL, start: Double = 0)
    /// The recording was abandoned; no take.
    case cancel
    /// The user deletes the take of the canvas at the index.
    case delete(Int)
    /// A new empty canvas is appended to the board.
    case add
    /// The canvas at the index is removed from the board; later canvases shift down.
    case remove(Int)

    /// The event word: `tap`, `record`, `stop`, `cancel`, `delete`, `add` or `remove`.
    public var word: String {
        switch self {
        case .tap: "tap"
        case .record: "record"
        case .stop: "stop"
        case .cancel: "cancel"
        case .delete: "delete"
        case .add: "add"
        case .remove: "remove"
        }
    }

    /// The event in the script language, e.g. `tap 0` or `stop take-1.mov`.
    public var description: String { description(naming: String.init) }

    /// The event with its index written by `name`, e.g. `tap j`; used by the transition-table export.
    package func description(naming name: (Int) -> String) -> String {
        switch self {
        case .tap(let index), .delete(let index), .remove(let index): "\(word) \(name(index))"
        case .stop(let url, _): "stop \(TakeName.scriptWord(for: url))"
        case .record, .cancel, .add: word
        }
    }
}

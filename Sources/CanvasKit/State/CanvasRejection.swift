import Foundation

/// Why a board refused an event. A rejection is a value, not an error thrown at the UI: the board and its models are
/// left exactly as they were and nothing is notified.
///
/// When several reasons apply, an event's own argument is checked first (an out-of-range index is reported as such
/// even while recording), then the board's state.
public enum CanvasRejection: Sendable, Hashable, CustomStringConvertible {
    /// The index names no canvas (negative, or not below `count`).
    case indexOutOfRange(index: Int, count: Int)
    /// A canvas is recording, so taps, deletes, undos, adds and removes are refused (I2).
    case lockedWhileRecording(recordingIndex: Int)
    /// `record` or `resume` with no canvas previewing.
    case nothingToRecord
    /// `record` or `resume` while a canvas is already recording.
    case alreadyRecording(index: Int)
    /// `stop` or `cancel` with no canvas recording.
    case nothingRecording
    /// `delete` or `undo` of a canvas that has no take.
    case noTake(index: Int)
    /// `remove` of the only canvas: a board keeps at least one.
    case lastCanvas
    /// `stop` with a file that is already a segment of another canvas's take (or of the take the recording continues);
    /// accepting it would let one delete destroy two segments.
    case takeInUse(url: URL, index: Int)
    /// A tap by identity (``CanvasEvent/tapCanvas(_:)``) of a canvas that is no longer on the board (removed after
    /// its cell was tapped).
    case canvasNotOnBoard(CanvasID)
    /// `resume` on a previewing canvas that has no take to continue.
    case noTakeToResume(index: Int)
    /// `resume` on a take that has reached the board's maximum take length, or is less than a frame (1/24 s) short
    /// of it: no room for a segment (`length`, seconds).
    case takeAtLimit(index: Int, length: Double)
    /// `disarmUndo` with no undo armed.
    case nothingArmed
    /// `markMissing` with a file that is not a segment of the canvas's take (or a canvas without a take).
    case notInTake(url: URL, index: Int)
    /// `relink` of a canvas whose take has no file marked missing (or that has no take).
    case takeNotMissing(index: Int)
    /// `resume` of a take with a file marked missing (`url`, ``CanvasEvent/markMissing(_:_:)``): its file is gone, so
    /// a segment recorded after it would make a take that cannot be played or composed. Relink or delete it first.
    case takeMissing(index: Int, url: URL)

    /// The kinds of rejection, one per case, for coverage checks and for JSON.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case indexOutOfRange, lockedWhileRecording, nothingToRecord, alreadyRecording, nothingRecording, noTake
        case lastCanvas, takeInUse, canvasNotOnBoard, noTakeToResume, takeAtLimit, nothingArmed
        case notInTake, takeNotMissing, takeMissing
    }

    /// The kind of this rejection; its `rawValue` is the stable short name (`lockedWhileRecording`, ...).
    public var kind: Kind {
        switch self {
        case .indexOutOfRange: .indexOutOfRange
        case .lockedWhileRecording: .lockedWhileRecording
        case .nothingToRecord: .nothingToRecord
        case .alreadyRecording: .alreadyRecording
        case .nothingRecording: .nothingRecording
        case .noTake: .noTake
        case .lastCanvas: .lastCanvas
        case .takeInUse: .takeInUse
        case .canvasNotOnBoard: .canvasNotOnBoard
        case .noTakeToResume: .noTakeToResume
        case .takeAtLimit: .takeAtLimit
        case .nothingArmed: .nothingArmed
        case .notInTake: .notInTake
        case .takeNotMissing: .takeNotMissing
        case .takeMissing: .takeMissing
        }
    }

    /// A one-line human-readable reason, e.g. `locked: canvas 2 is recording`.
    public var description: String { description(naming: { "canvas \($0)" }) }

    package func description(naming name: (Int) -> String) -> String {
        switch self {
        case .indexOutOfRange(let index, let count):
            "index out of range: \(name(index)) does not exist (the board has \(count) canvas\(count == 1 ? "" : "es"))"
        case .lockedWhileRecording(let index):
            "locked while recording: \(name(index)) is recording"
        case .nothingToRecord:
            "nothing to record: no canvas is previewing"
        case .alreadyRecording(let index):
            "already recording: \(name(index)) is recording"
        case .nothingRecording:
            "nothing recording: no canvas is recording"
        case .noTake(let index):
            "no take: \(name(index)) has no take to delete or undo"
        case .lastCanvas:
            "last canvas: a board keeps at least one canvas"
        case .takeInUse(let url, let index):
            "take in use: \(TakeName.describe(url)) is already the take of \(name(index))"
        case .canvasNotOnBoard(let id):
            "canvas not on board: canvas \(id) was removed"
        case .noTakeToResume(let index):
            "no take to continue: \(name(index)) has no take to resume"
        case .takeAtLimit(let index, let length):
            "take at its limit: the take of \(name(index)) is already \(TakeLength.describe(length)) long"
        case .nothingArmed:
            "nothing armed: no undo waits for its confirmation"
        case .notInTake(let url, let index):
            "not in the take: \(TakeName.describe(url)) is no segment of the take of \(name(index))"
        case .takeNotMissing(let index):
            "take not missing: the take of \(name(index)) has no file marked missing"
        case .takeMissing(let index, let url):
            "take missing: the take of \(name(index)) cannot be continued, its file \(TakeName.describe(url)) is missing"
        }
    }
}

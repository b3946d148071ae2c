import Foundation

/// An event sent to a board.
///
/// Indexes are plain integers: an out-of-range or negative index is not a programming error but an event the board
/// rejects with `CanvasRejection.indexOutOfRange`. The `description` is the event language of `CanvasScript`
/// (`tap 0`, `record`, `stop take-1.mov`, ...), and parsing it back gives the same event (a `stop`'s start aside:
/// the language has no word for it, a simulation supplies it from its clock; likewise a `cut-short`'s; and a
/// ``tapCanvas(_:)``, written `tap #3` with its identity, which scripts do not parse: they tap by index).
public enum CanvasEvent: Sendable, Hashable, CustomStringConvertible {
    /// The user taps the canvas at the index.
    case tap(Int)
    /// The user taps the canvas with this identity: the board resolves it to the canvas's index when it applies the
    /// event, so a list change made meanwhile (from another thread) cannot redirect the tap. What the screen adapter
    /// sends for a tapped cell. A canvas no longer on the board is rejected
    /// (``CanvasRejection/canvasNotOnBoard(_:)``); otherwise the outcome is exactly that of ``tap(_:)`` at its index.
    case tapCanvas(CanvasID)
    /// The user starts recording into the previewing canvas.
    case record
    /// The recorder finished a segment; it is the file at the URL, its first frame lies `start` seconds into the
    /// board's timeline (``SyncedPlayback/takeStart(recordingBeganAt:captureLatency:)``; 0 when the host does not
    /// sync takes) and it lasts `duration` seconds (0 when unknown; the board's maximum take length counts it). After
    /// `record` the segment is a new take; after `resume` it is appended to the take. The script word carries neither
    /// number.
    case stop(URL, start: Double = 0, duration: Double = 0)
    /// The recording was abandoned; no take.
    case cancel
    /// The recorder's answer to `record`: it wrote its first sample at this host time. Nothing on the board changes;
    /// the host learns that the take is rolling (``CanvasEffect/recordingStarted(index:at:)``). The take's start on
    /// the timeline is ``SyncedPlayback/takeStart(recordingBeganAt:captureLatency:)`` of this time, which the
    /// recorder's `stop` carries (``RecorderAnswers`` does both).
    case recordingStarted(at: HostTime)
    /// The recorder's answer to `record`: it could not start. The recording canvas returns to `inPreview`, still
    /// selected; nothing was recorded.
    case recordingFailed(RecorderProblem)
    // The two rare events whose payloads are larger than `stop`'s are stored out of line (`indirect`), so that every
    // event value stays as small as a `stop`: events are copied on every step of a board.
    /// The system ended the recording early (a call, the camera taken, ...). With a playable `file`, the board ends it
    /// as `stop(file, start:duration:)`; without one, as `cancel`; either way it says which
    /// (``CanvasEffect/recordingCutShort(index:problem:endedAs:)``).
    indirect case recordingCutShort(RecorderProblem, file: URL?, start: Double = 0, duration: Double = 0)
    /// The user records the next segment of the previewing canvas's take (it must have one, shorter than the board's
    /// maximum take length).
    case resume
    /// The user asks to delete the last segment of the canvas at the index: the first `undo` arms it (the cell asks
    /// to confirm), a second one in a row removes the segment. Any other accepted event in between disarms it.
    case undo(Int)
    /// The user dismissed an armed undo without a second `undo` (a scroll, a tap elsewhere on the screen): a screen
    /// sends it for what is not a board event. Rejected when nothing is armed.
    case disarmUndo
    /// The board's soundtrack becomes the value (nil: no soundtrack).
    indirect case setSoundtrack(Soundtrack?)
    /// The board's microphone setting: whether takes record their own sound (true) or the picture only.
    case setMicrophone(Bool)
    /// The file at the URL, a segment of the take of the canvas at the index, is missing from the disk: it becomes the
    /// take's one file marked missing, and the canvas shows it (``CanvasDisplay/Picture/missing(_:)``) until
    /// ``relink(_:)``. A draft's restore sends it for each take whose first file gone is not marked yet; the board
    /// checks nothing on disk. Rejected when the file is not a segment of that take.
    case markMissing(Int, URL)
    /// The files of the take of the canvas at the index are back (the app found them): its missing mark is cleared
    /// and its cover is wanted again. Rejected when the take has no file marked missing.
    case relink(Int)
    /// The user deletes the take of the canvas at the index.
    case delete(Int)
    /// A new empty canvas is appended to the board.
    case add
    /// The canvas at the index is removed from the board; later canvases shift down.
    case remove(Int)

    /// The event word: `tap`, `record`, `stop`, `cancel`, `started`, `failed`, `cut-short`, `delete`, `add`,
    /// `remove`, `resume`, `undo`, `disarm`, `music`, `mic`, `missing` or `relink`.
    public var word: String {
        switch self {
        case .tap, .tapCanvas: "tap"
        case .record: "record"
        case .stop: "stop"
        case .cancel: "cancel"
        case .recordingStarted: "started"
        case .recordingFailed: "failed"
        case .recordingCutShort: "cut-short"
        case .delete: "delete"
        case .add: "add"
        case .remove: "remove"
        case .resume: "resume"
        case .undo: "undo"
        case .disarmUndo: "disarm"
        case .setSoundtrack: "music"
        case .setMicrophone: "mic"
        case .markMissing: "missing"
        case .relink: "relink"
        }
    }

    /// The event in the script language, e.g. `tap 0` or `stop take-1.mov`.
    public var description: String { description(naming: String.init) }

    /// The event with its index written by `name`, e.g. `tap j`; used by the transition-table export.
    package func description(naming name: (Int) -> String) -> String {
        switch self {
        case .tap(let index), .delete(let index), .remove(let index), .undo(let index), .relink(let index):
            "\(word) \(name(index))"
        case .markMissing(let index, let url): "missing \(name(index)) \(TakeName.scriptWord(for: url))"
        case .tapCanvas(let id): "\(word) \(id)"
        case .stop(let url, _, _): "stop \(TakeName.scriptWord(for: url))"
        case .recordingStarted(let time): "started \(time.seconds)"
        case .recordingFailed(let problem): "failed \(problem)"
        case .recordingCutShort(let problem, let file, _, _):
            "cut-short \(problem)" + (file.map { " " + TakeName.scriptWord(for: $0) } ?? "")
        case .setSoundtrack(let soundtrack): soundtrack?.description ?? "music off"
        case .setMicrophone(let isOn): isOn ? "mic on" : "mic off"
        case .record, .cancel, .add, .resume, .disarmUndo: word
        }
    }
}

import Foundation
import Observing

/// The observable model of one canvas: what a cell's view-model observes.
///
/// Only the `CanvasBoard` that owns a model writes it, and it writes a property only when the value changes, so each
/// notification is a real change. Observe with `model.observe(\.status) { model, change in ... }` (import
/// `Observing`). What the canvas shows is derived with `display(boardIsRecording:)`, never stored.
///
/// While the board applies an event, a canvas that gives up the preview is written `status` first, then
/// `isSelected`; one that takes the preview is written `isSelected` first, then `status`. So between two
/// notifications an observer may see "selected, noPreview", never "inPreview but not selected": two canvases never
/// look like they hold the camera at once.
///
/// Thread safety: `Sendable`. Every property is read and written under its own lock, so a model may be read from
/// any thread and handed to queue or main-actor observations. (The board may be driven from any thread, so its models
/// are shared: each property keeps its `Observed` storage in a `let`, which a `Sendable` class may hold, where the
/// `@Observed` wrapper's storage would be a `var`.)
public final class CanvasModel: KeyValueObservable, Identifiable, Sendable, CustomStringConvertible {
    /// The canvas's stable identity; it survives index shifts when other canvases are added or removed.
    public let id: CanvasID
    private let _status: Observed<CanvasStatus>
    private let _isSelected: Observed<Bool>
    private let _videoURL: Observed<URL?>
    private let _segments: Observed<[TakeSegment]>
    private let _isUndoArmed: Observed<Bool>

    /// What the canvas is doing with the camera.
    public internal(set) var status: CanvasStatus {
        get { _status[self, \.status] }
        set { _status[self, \.status] = newValue }
    }

    /// Whether the canvas holds the camera preview (highlighted border).
    public internal(set) var isSelected: Bool {
        get { _isSelected[self, \.isSelected] }
        set { _isSelected[self, \.isSelected] = newValue }
    }

    /// The take's first segment's file (its cover is the take's), or nil without a take. Written only when it
    /// changes: not when a segment is added to or removed from the end of the take.
    public internal(set) var videoURL: URL? {
        get { _videoURL[self, \.videoURL] }
        set { _videoURL[self, \.videoURL] = newValue }
    }

    /// The take's segments, in order (empty: no take). Written whenever the take changes.
    public internal(set) var segments: [TakeSegment] {
        get { _segments[self, \.segments] }
        set { _segments[self, \.segments] = newValue }
    }

    /// Whether the canvas's undo is armed: the cell asks to confirm the removal of the take's last segment.
    public internal(set) var isUndoArmed: Bool {
        get { _isUndoArmed[self, \.isUndoArmed] }
        set { _isUndoArmed[self, \.isUndoArmed] = newValue }
    }

    /// The take's file marked missing (its first file a restore found gone), or nil: derived from ``segments``, so
    /// an observer of `segments` sees it change.
    public var missingFile: URL? { segments.first(where: \.isMissing)?.url }

    /// The board that owns the model (held weakly: the board holds its models); nil once it is gone.
    weak let board: CanvasBoard?

    /// A model mirroring `state`, owned by `board`.
    init(_ state: CanvasState, board: CanvasBoard?) {
        id = state.id
        self.board = board
        _status = Observed(wrappedValue: state.status)
        _isSelected = Observed(wrappedValue: state.isSelected)
        _videoURL = Observed(wrappedValue: state.videoURL)
        _segments = Observed(wrappedValue: state.segments)
        _isUndoArmed = Observed(wrappedValue: state.isUndoArmed)
    }

    /// The current values as a value snapshot.
    public var snapshot: CanvasState {
        CanvasState(id: id, status: status, isSelected: isSelected, segments: segments, isUndoArmed: isUndoArmed)
    }

    /// What the canvas shows, given whether some canvas on the board is recording (`CanvasBoard.isRecording`).
    public func display(boardIsRecording: Bool) -> CanvasDisplay {
        CanvasDisplay(status: status, segments: segments, isUndoArmed: isUndoArmed, boardIsRecording: boardIsRecording)
    }

    /// What a cell of this canvas shows now, and the take whose cover it keeps: read from `status`, `segments`,
    /// `isUndoArmed` and the board's `isRecording`, in that order. A cell observes this one value (a chain through
    /// those four properties): the board writes an event's changes in one transaction, so the value is evaluated after
    /// all of them and reported once per event that changes it, and an event that changes none of what the cell shows
    /// (a take's cover while another canvas starts recording does change: it plays) reports nothing.
    var cellValues: CanvasCellValues {
        let status = status
        let segments = segments
        let display = CanvasDisplay(
            status: status, segments: segments, isUndoArmed: isUndoArmed, boardIsRecording: board?.isRecording ?? false)
        // A take shown missing has no cover to keep: once relinked, its cover is asked for again.
        return CanvasCellValues(display: display, take: display.kind == .missing ? nil : segments.first?.url)
    }

    /// The snapshot's description, e.g. `#2 inPreview selected take=a.mov`.
    public var description: String { snapshot.description }
}

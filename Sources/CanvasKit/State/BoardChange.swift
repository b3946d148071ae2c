import Foundation

/// What an accepted event changed on a board, recorded by the transition function while it applies the event.
///
/// The transition records the selection before and after, the one take it set or cleared, and the canvas it inserted
/// or removed; ``writes(after:)`` turns that record into the writes of the observable models. So the rules are written once,
/// in the transition, and the models follow from what it did: there is no second diff of the boards and no second
/// switch over the events. ``BoardOutcome/writes`` gives them for an outcome.
public struct BoardChange: Sendable, Hashable {
    /// A canvas inserted at the end or removed from the board, with its identity.
    enum ListChange: Sendable, Hashable {
        case inserted(index: Int, id: CanvasID)
        case removed(index: Int, id: CanvasID)
    }

    /// What the event did to the canvases besides the selection and the armed undo: an event sets, changes or clears
    /// one take, or inserts or removes one canvas, never both. (One value for the two keeps a change, which every
    /// event returns, small: `CanvasBenchmark` prints its size.)
    enum CanvasChange: Sendable, Hashable {
        /// The take of the canvas at the index (after the event) was set, changed or cleared; it is read from the
        /// board after the event. `firstFileChanged`: its first file changed with it (a new take, a removed take),
        /// not when a segment was added to or removed from the end of a take that keeps its first.
        case take(index: Int, firstFileChanged: Bool)
        /// A canvas was inserted at the end or removed from the board.
        case list(ListChange)
    }

    /// The selection before the event, with its index as it is after the event (a removal shifts it); nil when
    /// nothing was selected or the selected canvas was removed.
    var selectionBefore: BoardState.Selection?
    /// Whether a canvas was recording before the event.
    var wasRecording: Bool
    /// The selection after the event.
    var selectionAfter: BoardState.Selection?
    /// The canvas whose undo was armed before the event, if any; the one armed after it is the next board's
    /// ``BoardState/armedUndo``.
    var armedBefore: CanvasID?
    /// The take the event set, changed or cleared, or the canvas it inserted or removed, if any. (Only trivial values
    /// are stored, so recording a change costs no reference counting.)
    var canvas: CanvasChange?
    /// The number of the draft record that journals the event, when a ``CanvasBoard`` on a draft accepted it.
    var draftRecord: UInt64?

    /// The start of a record: nothing changed yet on a board whose selection is `selection` and whose armed undo is
    /// `armedUndo`.
    init(selection: BoardState.Selection?, armedUndo: CanvasID? = nil) {
        selectionBefore = selection
        wasRecording = selection?.phase == .recording
        selectionAfter = selection
        armedBefore = armedUndo
    }

    /// Whether a canvas records after the event.
    var isRecording: Bool { selectionAfter?.phase == .recording }

    /// The canvas whose take the event set, changed or cleared (index after the event), if any.
    var takeIndex: Int? {
        if case .take(let index, _) = canvas { return index }
        return nil
    }

    /// The canvas the event inserted or removed, if any.
    var list: ListChange? {
        if case .list(let change) = canvas { return change }
        return nil
    }

    /// The writes that take one model per canvas from the board before the event to the board after it, in the order
    /// a board performs them; only values that change are written.
    ///
    /// Order: a removal first; then the canvas that gives up the preview (`status`, then `isSelected`), the canvas
    /// that holds it after the event (`isSelected` if it gains it, then `status` if it changes) and the canvas whose
    /// take changed (`videoURL` if its first file changed, then `segments`), so that two canvases never look like they
    /// hold the preview at once; then the undo that is disarmed and the one that is armed (`isUndoArmed`); then the
    /// board's `isRecording`; an insertion last. Indexes are those of the board after the event, except in
    /// ``BoardWrite/removeCanvas(index:)`` (the index before the removal).
    /// `next` is the board after the event (the outcome's `next`).
    public func writes(after next: BoardState) -> [BoardWrite] {
        var writes: [BoardWrite] = []
        forEachWrite(after: next) { writes.append($0) }
        return writes
    }

    /// Calls `body` with each of the writes, in order, without building the array; `next` is the board after the
    /// event.
    func forEachWrite(after next: BoardState, _ body: (BoardWrite) -> Void) {
        if case .removed(let index, _) = list { body(.removeCanvas(index: index)) }
        let old = selectionBefore
        let new = selectionAfter
        if let old, old.index != new?.index {
            body(.status(index: old.index, .noPreview))
            body(.isSelected(index: old.index, false))
            if takeIndex == old.index { takeWrites(at: old.index, next, body) }
        }
        if let new {
            if old?.index != new.index {
                body(.isSelected(index: new.index, true))
                body(.status(index: new.index, new.phase.status))
            } else if old?.phase != new.phase {
                body(.status(index: new.index, new.phase.status))
            }
            if takeIndex == new.index { takeWrites(at: new.index, next, body) }
        }
        if let takeIndex, takeIndex != old?.index, takeIndex != new?.index { takeWrites(at: takeIndex, next, body) }
        if armedBefore != next.armedUndo {
            // Linear in the board size, and only when the arming changes.
            if let armedBefore, let index = next.index(of: armedBefore) { body(.isUndoArmed(index: index, false)) }
            if let armedAfter = next.armedUndo, let index = next.index(of: armedAfter) {
                body(.isUndoArmed(index: index, true))
            }
        }
        if wasRecording != isRecording { body(.isRecording(isRecording)) }
        if case .inserted(let index, _) = list { body(.insertCanvas(index: index)) }
    }

    /// The writes of the take of the canvas at `index`: its first file when it changed, then its segments.
    private func takeWrites(at index: Int, _ next: BoardState, _ body: (BoardWrite) -> Void) {
        if case .take(_, firstFileChanged: true) = canvas { body(.videoURL(index: index, next.videoURL(at: index))) }
        body(.segments(index: index, next.segments(at: index)))
    }
}

/// One write an accepted event makes to the observable models: a property of the canvas at an index, the board's
/// `isRecording`, or its list of canvases.
public enum BoardWrite: Sendable, Hashable, CustomStringConvertible {
    /// The canvas's `status` becomes the value.
    case status(index: Int, CanvasStatus)
    /// The canvas's `isSelected` becomes the value.
    case isSelected(index: Int, Bool)
    /// The canvas's `videoURL` (its take's first file) becomes the value.
    case videoURL(index: Int, URL?)
    /// The canvas's `segments` (its take) become the value.
    case segments(index: Int, [TakeSegment])
    /// The canvas's `isUndoArmed` becomes the value.
    case isUndoArmed(index: Int, Bool)
    /// The board's `isRecording` becomes the value.
    case isRecording(Bool)
    /// A canvas (a new model) is inserted at the index.
    case insertCanvas(index: Int)
    /// The canvas at the index (before the removal) is removed.
    case removeCanvas(index: Int)

    /// For example `2.status = inPreview`, `isRecording = false` or `insert 9`.
    public var description: String {
        switch self {
        case .status(let index, let status): "\(index).status = \(status.rawValue)"
        case .isSelected(let index, let value): "\(index).isSelected = \(value)"
        case .videoURL(let index, let url): "\(index).videoURL = \(url.map(TakeName.describe) ?? "nil")"
        case .segments(let index, let segments):
            "\(index).segments = [\(segments.map(\.description).joined(separator: ", "))]"
        case .isUndoArmed(let index, let value): "\(index).isUndoArmed = \(value)"
        case .isRecording(let value): "isRecording = \(value)"
        case .insertCanvas(let index): "insert \(index)"
        case .removeCanvas(let index): "remove \(index)"
        }
    }
}

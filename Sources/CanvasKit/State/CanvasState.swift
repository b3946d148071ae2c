import Foundation

/// A value snapshot of one canvas, derived from a `BoardState`.
///
/// The board does not store these: it stores one optional selection and each canvas's take, so a state that breaks
/// invariant I1 or I2 cannot be built. A snapshot is what the board's observable `CanvasModel`s mirror.
public struct CanvasState: Sendable, Hashable, Identifiable, CustomStringConvertible {
    /// The canvas's stable identity.
    public var id: CanvasID
    /// What the canvas is doing with the camera.
    public var status: CanvasStatus
    /// Whether the canvas holds the camera preview (highlighted border). True exactly when `status` is not `noPreview`.
    public var isSelected: Bool
    /// The take's segments, in order; empty: no take.
    public var segments: [TakeSegment]
    /// Whether the canvas's undo is armed: a second `undo` removes its last segment (the cell asks to confirm).
    public var isUndoArmed: Bool

    /// The take's first segment's file (its cover is the take's), or nil without a take.
    public var videoURL: URL? { segments.first?.url }

    /// The take's file marked missing (its first file a restore found gone), or nil.
    public var missingFile: URL? { segments.first(where: \.isMissing)?.url }

    /// How long the take is: its segments' lengths added (0 without a take).
    public var takeLength: Double { segments.reduce(0) { $0 + $1.duration } }

    /// Creates a snapshot of a canvas whose take is one segment (or none); the board derives these, tests and hosts
    /// may build them to compare.
    public init(id: CanvasID, status: CanvasStatus, isSelected: Bool, videoURL: URL?) {
        self.init(
            id: id, status: status, isSelected: isSelected, segments: videoURL.map { [TakeSegment(url: $0)] } ?? [],
            isUndoArmed: false)
    }

    /// Creates a snapshot with the take's segments and the undo's arming.
    public init(id: CanvasID, status: CanvasStatus, isSelected: Bool, segments: [TakeSegment], isUndoArmed: Bool) {
        self.id = id
        self.status = status
        self.isSelected = isSelected
        self.segments = segments
        self.isUndoArmed = isUndoArmed
    }

    /// What the canvas shows, given whether some canvas on the board is recording.
    public func display(boardIsRecording: Bool) -> CanvasDisplay {
        CanvasDisplay(status: status, segments: segments, isUndoArmed: isUndoArmed, boardIsRecording: boardIsRecording)
    }

    /// For example `#2 inPreview selected take=a.mov`, `#1 noPreview take=a.mov+b.mov undo armed` or
    /// `#0 noPreview take=a.mov missing=a.mov`.
    public var description: String {
        var text = "\(id) \(status)"
        if isSelected { text += " selected" }
        if !segments.isEmpty { text += " take=" + segments.map { TakeName.describe($0.url) }.joined(separator: "+") }
        if let missingFile { text += " missing=" + TakeName.describe(missingFile) }
        if isUndoArmed { text += " undo armed" }
        return text
    }
}

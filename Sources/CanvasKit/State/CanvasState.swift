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
    /// The last finished take, or nil.
    public var videoURL: URL?

    /// Creates a snapshot; the board derives these, tests and hosts may build them to compare.
    public init(id: CanvasID, status: CanvasStatus, isSelected: Bool, videoURL: URL?) {
        self.id = id
        self.status = status
        self.isSelected = isSelected
        self.videoURL = videoURL
    }

    /// What the canvas shows, given whether some canvas on the board is recording.
    public func display(boardIsRecording: Bool) -> CanvasDisplay {
        CanvasDisplay(status: status, videoURL: videoURL, boardIsRecording: boardIsRecording)
    }

    /// For example `#2 inPreview selected take=a.mov`.
    public var description: String {
        var text = "\(id) \(status)"
        if isSelected { text += " selected" }
        if let videoURL { text += " take=\(TakeName.describe(videoURL))" }
        return text
    }
}

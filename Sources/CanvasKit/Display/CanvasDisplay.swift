import Foundation

/// What one canvas shows (Docs/CanvasKit.md, "What a canvas shows"). Derived from the state, never stored.
///
/// The highlighted border is part of the case: `livePreview` and `recording` are highlighted, the others are not, so a
/// highlighted cover or an unhighlighted live preview cannot be expressed.
public enum CanvasDisplay: Sendable, Hashable, CustomStringConvertible {
    /// The selected canvas, previewing: the live camera preview, highlighted.
    case livePreview
    /// The selected canvas, recording: the live preview with the recording indicator, highlighted.
    case recording
    /// A canvas with a take while nothing records: the take's cover.
    case cover(URL)
    /// A canvas with a take while another canvas records: the take playing, so the new take can be synced to it.
    case playback(URL)
    /// A canvas with no take that is not previewing: the add button.
    case addButton

    /// What a canvas with this status and take shows, given whether some canvas on the board is recording.
    ///
    /// Total over all inputs: the status decides first (a canvas that holds the preview shows it), then the take.
    public init(status: CanvasStatus, videoURL: URL?, boardIsRecording: Bool) {
        switch status {
        case .inPreview: self = .livePreview
        case .recording: self = .recording
        case .noPreview:
            if let videoURL {
                self = boardIsRecording ? .playback(videoURL) : .cover(videoURL)
            } else {
                self = .addButton
            }
        }
    }

    /// The kinds of display, one per case; `rawValue` is the `canvas-sim` JSON vocabulary (`shows`).
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case livePreview, recording, cover, playback, addButton
    }

    /// The kind of this display.
    public var kind: Kind {
        switch self {
        case .livePreview: .livePreview
        case .recording: .recording
        case .cover: .cover
        case .playback: .playback
        case .addButton: .addButton
        }
    }

    /// The stable short name: `livePreview`, `recording`, `cover`, `playback` or `addButton`.
    public var name: String { kind.rawValue }

    /// Whether the canvas has the highlighted border: exactly when it shows the live preview (selected).
    public var isHighlighted: Bool {
        switch self {
        case .livePreview, .recording: true
        case .cover, .playback, .addButton: false
        }
    }

    /// The take shown (cover or playback), if any.
    public var videoURL: URL? {
        switch self {
        case .cover(let url), .playback(let url): url
        case .livePreview, .recording, .addButton: nil
        }
    }

    /// The name, followed by the take for `cover` and `playback`, e.g. `cover a.mov`.
    public var description: String {
        if let videoURL { return "\(name) \(TakeName.describe(videoURL))" }
        return name
    }
}

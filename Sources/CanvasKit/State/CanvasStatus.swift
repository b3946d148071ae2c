/// What one canvas is doing with the camera.
///
/// The raw values are the JSON vocabulary of `canvas-sim` (`"noPreview"`, `"inPreview"`, `"recording"`) and never
/// change.
public enum CanvasStatus: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The canvas does not show the camera: it shows its cover, its take playing, or the add button.
    case noPreview
    /// The canvas shows the live camera preview and is ready to record.
    case inPreview
    /// The canvas shows the live camera preview and is recording into a new take.
    case recording

    /// The stable short name, equal to `rawValue`.
    public var description: String { rawValue }
}

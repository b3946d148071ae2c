/// A cell of the canvas screen, as a `CanvasScreenAdapter` drives it: the app's cell class (a `UICollectionViewCell`
/// subclass, or a headless cell in tests) implements the drawing, the adapter decides what to draw and when.
///
/// The adapter makes each cell's `CanvasCellViewModel`, binds it in `cellForItemAt`, lets it observe only while the
/// cell is displayed, and calls these methods on the main actor whenever what the cell shows changes. A cell keeps no
/// model, registers no observation and forwards no hook.
@MainActor
public protocol CanvasScreenCell: AnyObject {
    /// Draws what the canvas shows: the live preview's frame (the preview itself arrives through
    /// ``setHostsPreview(_:)``), the recording indicator, the take's cover or playback, or the add button, with the
    /// highlighted border where `display.isHighlighted`. nil: the cell shows no canvas (it is being reused).
    func draw(_ display: CanvasDisplay?)

    /// Draws the cover of the canvas's take once loaded; nil when there is none (no take, not loaded yet, or the take
    /// changed).
    func draw(_ cover: CoverImage?)

    /// Puts the live camera preview into this cell (`true`) or takes it out (`false`): the Apple layer adds or removes
    /// its `AVCaptureVideoPreviewLayer`. The adapter decides with `PreviewPlacement`: the preview is in the displayed
    /// cell showing the canvas in live preview or recording, and in no other; a cell losing it is told before the
    /// one gaining it.
    func setHostsPreview(_ hostsPreview: Bool)
}

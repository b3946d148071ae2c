import CanvasKit

/// A headless canvas cell: what a `UICollectionViewCell` subclass of the canvas screen draws, without pixels. The
/// `CanvasScreenAdapter` driving it tells it what to draw; it records it in ``shownDisplay``, ``shownCover`` and
/// ``hostsPreview``.
///
/// Main-actor isolated, like a UIKit cell.
@MainActor
public final class CanvasCell: HeadlessCell, CanvasScreenCell {
    /// What the cell draws now (nil: nothing, while it shows no canvas).
    public private(set) var shownDisplay: CanvasDisplay?
    /// The cover image the cell draws now, if any.
    public private(set) var shownCover: CoverImage?
    /// Whether the live camera preview is in this cell.
    public private(set) var hostsPreview = false
    /// How many times the cell redrew its display (each real change of what it shows; the first draw counts).
    public private(set) var redrawCount = 0

    /// Draws `display` unless it is what the cell shows already (the first draw always counts).
    public func draw(_ display: CanvasDisplay?) {
        guard redrawCount == 0 || shownDisplay != display else { return }
        shownDisplay = display
        redrawCount += 1
    }

    /// Draws `cover`.
    public func draw(_ cover: CoverImage?) {
        shownCover = cover
    }

    /// Takes the preview in or out.
    public func setHostsPreview(_ hostsPreview: Bool) {
        self.hostsPreview = hostsPreview
    }
}

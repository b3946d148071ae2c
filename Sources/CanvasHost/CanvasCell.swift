import CanvasKit

/// A headless canvas cell: what a `UICollectionViewCell` subclass of the canvas screen draws, without pixels. The
/// `CanvasScreenAdapter` driving it tells it what to draw; it records it in ``shownDisplay`` (with the take's segment
/// count, length and armed undo in ``shownTake`` and ``shownCaption``), ``shownCover`` and ``hostsPreview``.
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
    /// How many times the cell redrew its display (each real change of what it shows, the take's summary included;
    /// the first draw counts).
    public private(set) var redrawCount = 0

    /// The take's summary the cell draws beside the picture (segments, length, the armed undo), nil without a take.
    public var shownTake: CanvasDisplay.Take? { shownDisplay?.take }

    /// The caption the cell draws under the picture: the take's summary, e.g. `2 segments, 3.5s` or
    /// `1 segment, 2s, delete the last segment?`; nil without a take.
    public private(set) var shownCaption: String?

    /// Draws `display` unless it is what the cell shows already (the first draw always counts).
    public func draw(_ display: CanvasDisplay?) {
        guard redrawCount == 0 || shownDisplay != display else { return }
        shownDisplay = display
        shownCaption = display?.take.map { $0.isUndoArmed ? "\($0), delete the last segment?" : $0.description }
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

import CanvasHost
import CanvasKit

/// The canvas cell, as a `UICollectionViewCell` subclass is written (Docs/Apps.md, "The cell"): it only draws. The
/// adapter makes its view-model, binds it, and tells it what to draw and whether it holds the live preview. Instead of
/// views and layers it keeps what it would draw.
final class CanvasCellView: HeadlessCell, CanvasScreenCell {
    /// What the cell draws: its display's name, highlighted or not.
    private(set) var drawn = "empty"
    /// Whether the cell's image view holds a cover.
    private(set) var hasCoverImage = false
    /// Whether the preview layer is in the cell.
    private(set) var hostsPreview = false

    func draw(_ display: CanvasDisplay?) {
        guard let display else { return drawn = "empty" }
        drawn = display.name + (display.isHighlighted ? " (highlighted)" : "")  // addButton.isHidden = ...
    }

    func draw(_ cover: CoverImage?) { hasCoverImage = cover != nil }  // imageView.image = cover.map(UIImage.init)

    /// contentView.layer.insertSublayer(previewLayer, at: 0), or previewLayer.removeFromSuperlayer().
    func setHostsPreview(_ hostsPreview: Bool) { self.hostsPreview = hostsPreview }
}

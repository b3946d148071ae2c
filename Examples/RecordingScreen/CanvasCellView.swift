import CanvasHost
import CanvasKit
import Observing

/// The canvas cell, as a `UICollectionViewCell` subclass is written (Docs/Apps.md, "The cell"): made empty, as UIKit
/// makes a cell with `init(frame:)`; the first time it is dequeued, `prepare(coverProvider:binder:)` makes its
/// view-model, which it then owns for its whole life. It observes the view-model's `display` and `cover` on the main
/// actor (never the model: that is the view-model's job, bound and unbound by the wiring), and forwards
/// `prepareForReuse` to the binder. Instead of layers it keeps what it would draw.
@MainActor
final class CanvasCellView: CollectionHostCell, CanvasCellViewModelHolder {
    private(set) var viewModel: CanvasCellViewModel?
    private weak var binder: DisplayLifecycleBinder?
    private var observations: [ObservationToken] = []

    /// What the cell draws: its display's name, highlighted or not.
    private(set) var drawn = "empty"
    /// Whether the cell's image view holds a cover.
    private(set) var hasCoverImage = false

    /// Makes the view-model the first time the cell is dequeued; it lives as long as the cell.
    func prepare(coverProvider: any CoverProvider, binder: DisplayLifecycleBinder) {
        guard viewModel == nil else { return }
        self.binder = binder
        let viewModel = CanvasCellViewModel(coverProvider: coverProvider, log: binder.log)
        self.viewModel = viewModel
        observations = [
            // Each change carries its value, in the order stored: draw it, no need to read the view-model again.
            viewModel.observeOnMainActor(\.display, options: [.initial, .new]) { [weak self] _, change in
                if let display = change.newValue { self?.draw(display) }
            },
            viewModel.observeOnMainActor(\.cover, options: [.initial, .new]) { [weak self] _, change in
                if let cover = change.newValue { self?.hasCoverImage = cover != nil }  // imageView.image = UIImage(...)
            },
        ]
    }

    private func draw(_ display: CanvasDisplay?) {
        guard let display else { return drawn = "empty" }
        drawn = display.name + (display.isHighlighted ? " (highlighted)" : "")
    }

    /// `prepareForReuse()`: the binder unbinds the view-model (its observations end, its cover request is cancelled).
    func prepareForReuse() {
        binder?.prepareForReuse(self)
    }
}

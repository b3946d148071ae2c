import CanvasHost
import CanvasKit
import Observing

/// The canvas cell, as a `UICollectionViewCell` subclass is written: it owns its view-model for its whole life,
/// observes the view-model's `display` and `cover` on the main actor (never the model: that is the view-model's job,
/// bound and unbound by the wiring), and forwards `prepareForReuse` to the binder. Instead of layers it keeps what it
/// would draw.
@MainActor
final class CanvasCellView: @MainActor CollectionHostCell, CanvasCellViewModelHolder {
    let viewModel: CanvasCellViewModel
    private weak var binder: DisplayLifecycleBinder?
    private var observations: [ObservationToken] = []

    /// What the cell draws: its display's name, highlighted or not.
    private(set) var drawn = "empty"
    /// Whether the cell's image view holds a cover.
    private(set) var hasCoverImage = false

    init(viewModel: CanvasCellViewModel, binder: DisplayLifecycleBinder) {
        self.viewModel = viewModel
        self.binder = binder
        // init(frame:): observe the view-model once, for the cell's life. Changes made on the main thread are drawn
        // at once; a cover delivered on a background thread is drawn on the main queue.
        observations = [
            viewModel.observeOnMainActor(\.display, options: [.initial]) { [weak self] viewModel, _ in
                self?.draw(viewModel.display)
            },
            viewModel.observeOnMainActor(\.cover, options: [.initial]) { [weak self] viewModel, _ in
                self?.hasCoverImage = viewModel.cover != nil
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

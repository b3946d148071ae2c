import CanvasKit
import Locking
import Observing

/// A headless canvas cell: what a `UICollectionViewCell` subclass of the canvas screen does, without pixels.
///
/// It owns its `CanvasCellViewModel` for its whole life and observes the view-model's `display` and `cover` (one
/// observation each, ended when the cell goes away), recording what it would draw in ``shownDisplay`` and
/// ``shownCover``. Its `prepareForReuse()` forwards to the binder, as a UIKit cell's override would.
///
/// Main-actor isolated, like a UIKit cell. What it draws is kept in a lock-protected box because the view-model may
/// notify from the thread that changed a model.
@MainActor
public final class CanvasCell: CollectionHostCell, CanvasCellViewModelHolder {
    /// The cell's view-model, bound to one canvas at a time. A headless cell is made with it, so it is never nil; it is
    /// optional because CanvasKit's `CanvasCellViewModelHolder` lets a UIKit cell, made by `init(frame:)`, make
    /// it later.
    public let viewModel: CanvasCellViewModel?
    /// The binder this cell reports `prepareForReuse` to.
    public weak var binder: DisplayLifecycleBinder?

    private let rendered = RenderedCanvas()
    /// The cell's observations of its view-model (for lifetime tests).
    let tokens: [ObservationToken]

    /// Creates a cell around `viewModel` and starts observing it.
    public init(viewModel: CanvasCellViewModel, binder: DisplayLifecycleBinder?) {
        self.viewModel = viewModel
        self.binder = binder
        let rendered = self.rendered
        // The handlers read the view-model's current values instead of the values carried by the change: a
        // notification deferred on one thread (a change made inside a model handler is delivered after that handler
        // returns) may arrive after a newer one delivered on another thread, and must not draw the older value.
        tokens = [
            viewModel.observe(\.display, options: [.initial]) { viewModel, _ in
                rendered.redrawDisplay(from: viewModel)
            },
            viewModel.observe(\.cover, options: [.initial]) { viewModel, _ in
                rendered.redrawCover(from: viewModel)
            },
        ]
    }

    /// What the cell draws now (nil: nothing, while unbound).
    public var shownDisplay: CanvasDisplay? { rendered.display }

    /// The cover image the cell draws now, if any.
    public var shownCover: CoverImage? { rendered.cover }

    /// How many times the cell redrew its display (each real change of the view-model's display).
    public var redrawCount: Int { rendered.redraws }

    /// Forwards to the binder's `DisplayLifecycleBinder/prepareForReuse(_:)`.
    public func prepareForReuse() {
        if let binder {
            binder.prepareForReuse(self)
        } else {
            viewModel?.unbind()
        }
    }
}

/// What a cell draws, written by the view-model's notifications from any thread.
private final class RenderedCanvas: Sendable {
    private struct Content {
        var display: CanvasDisplay?
        var cover: CoverImage?
        var redraws = 0
    }

    private let content = LockedValue(Content())

    var display: CanvasDisplay? { content.withLock { $0.display } }
    var cover: CoverImage? { content.withLock { $0.cover } }
    var redraws: Int { content.withLock { $0.redraws } }

    /// Reads the view-model's display while holding the lock, so the last redraw always draws the newest value.
    func redrawDisplay(from viewModel: CanvasCellViewModel) {
        content.withLock {
            let display = viewModel.display
            guard $0.redraws == 0 || $0.display != display else { return }
            $0.display = display
            $0.redraws += 1
        }
    }

    /// Reads the view-model's cover while holding the lock.
    func redrawCover(from viewModel: CanvasCellViewModel) {
        content.withLock { $0.cover = viewModel.cover }
    }
}

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
        // Each handler draws the value its change carries: Observing delivers an observation's changes one at a
        // time, in the order the values were stored, whatever thread wrote them (O11), so the last change drawn is
        // the newest value, with no read back into the view-model.
        tokens = [
            viewModel.observe(\.display, options: [.initial, .new]) { _, change in
                if let display = change.newValue { rendered.redraw(display) }
            },
            viewModel.observe(\.cover, options: [.initial, .new]) { _, change in
                if let cover = change.newValue { rendered.draw(cover) }
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

    /// Draws `display` unless it is what the cell shows already (the first draw always counts).
    func redraw(_ display: CanvasDisplay?) {
        content.withLock {
            guard $0.redraws == 0 || $0.display != display else { return }
            $0.display = display
            $0.redraws += 1
        }
    }

    /// Draws `cover`.
    func draw(_ cover: CoverImage?) {
        content.withLock { $0.cover = cover }
    }
}

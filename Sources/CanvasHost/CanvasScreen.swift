import CanvasKit
import Foundation
import Observing

/// The canvas screen, headless: a ``CollectionHost`` of ``CanvasCell``s showing a `CanvasBoard` through CanvasKit's
/// `CanvasScreenWiring`, exactly as a UIKit view controller wires a `UICollectionView`.
///
/// The wiring does everything (see its documentation): each change of the board's canvas list becomes one batch
/// update on the host, cells are bound in `cellForItem` and observe only while displayed, disappear/appear reach the
/// binder. Model changes reach the cells through their view-models' observations; nothing ever calls `reloadData()`
/// (``reloadCount`` stays zero).
///
/// Main-actor isolated, like a UIKit view controller. Events may be sent to the board from any thread (see
/// `CanvasScreenWiring` for when list changes reach the collection).
@MainActor
public final class CanvasScreen {
    /// The board shown.
    public var board: CanvasBoard { wiring.board }
    /// The binder on the host's display hooks.
    public var binder: DisplayLifecycleBinder { wiring.binder }
    /// The wiring between the board, the host and the cells.
    public let wiring: CanvasScreenWiring<CollectionHost<CanvasCellSource>>
    /// The collection host.
    public let host: CollectionHost<CanvasCellSource>
    /// The data source and delegate of ``host``.
    public let source: CanvasCellSource
    /// The last batch update the host refused, if any (a wiring bug: the host then falls back to a counted
    /// reload).
    public var lastUpdateError: CollectionHostError? { host.lastBatchUpdateError }

    /// Creates the screen for `board`; nothing is laid out until ``screenDidAppear()``.
    ///
    /// - Parameters:
    ///   - board: the board to show.
    ///   - configuration: the host's viewport, prefetching, callback order and disappearance behaviour.
    ///   - coverProvider: where the cells' view-models get covers.
    ///   - coverSize: the largest cover a cell wants.
    ///   - log: where every registration and removal is audited. The default keeps the live registrations, their
    ///     peak and the violations, not the history (which would grow with every scroll of a long-lived screen);
    ///     pass `RegistrationLog()` to keep every entry.
    public init(
        board: CanvasBoard,
        configuration: CollectionHostConfiguration,
        coverProvider: (any CoverProvider)? = nil,
        coverSize: PixelSize = PixelSize(width: 320, height: 320),
        log: RegistrationLog = RegistrationLog(keepsEntries: false)
    ) {
        let wiring = CanvasScreenWiring<CollectionHost<CanvasCellSource>>(board: board, log: log)
        self.wiring = wiring
        let source = CanvasCellSource(wiring: wiring, coverProvider: coverProvider, coverSize: coverSize)
        self.source = source
        host = CollectionHost(dataSource: source, configuration: configuration)
        host.delegate = source
        wiring.collectionView = host
    }

    /// Applies the board's list changes that were made off the main actor and are still waiting (see
    /// `CanvasScreenWiring/applyPendingListChanges()`).
    public func applyPendingListChanges() { wiring.applyPendingListChanges() }

    /// The number of `reloadData()` calls so far: zero for a correct screen.
    public var reloadCount: Int { host.statistics.reloads }

    /// The visible cells with their indexes.
    public var visibleCells: [(index: Int, cell: CanvasCell)] { host.visibleCells }

    /// The screen enters the window (the first call lays out the visible cells).
    public func screenDidAppear() { host.screenDidAppear() }

    /// The screen leaves the window; every observation ends.
    public func screenWillDisappear() { host.screenWillDisappear() }

    /// Scrolls the viewport to start at `offset` (clamped).
    public func scroll(toOffset offset: Int) { host.scroll(toOffset: offset) }

    /// Scrolls so the canvas at `index` is visible.
    public func scrollToItem(at index: Int) { host.scrollToItem(at: index) }
}

/// The canvas screen's data source and delegate: makes cells, and forwards `cellForItem` and the display hooks to the
/// wiring, as a UIKit data source and delegate do.
@MainActor
public final class CanvasCellSource: CollectionHostDataSource, CollectionHostDelegate {
    /// Cells made so far.
    public private(set) var cellsMade = 0

    private unowned let wiring: CanvasScreenWiring<CollectionHost<CanvasCellSource>>
    private let coverProvider: (any CoverProvider)?
    private let coverSize: PixelSize

    init(
        wiring: CanvasScreenWiring<CollectionHost<CanvasCellSource>>, coverProvider: (any CoverProvider)?,
        coverSize: PixelSize
    ) {
        self.wiring = wiring
        self.coverProvider = coverProvider
        self.coverSize = coverSize
    }

    /// The canvases as the collection knows them (the wiring's `CanvasScreenWiring/items`).
    public var items: [CanvasModel] { wiring.items }

    /// The number of canvases the collection knows.
    public func numberOfItems() -> Int { wiring.items.count }

    /// A new cell with its own view-model, registering nothing.
    public func makeCell() -> CanvasCell {
        cellsMade += 1
        let viewModel = CanvasCellViewModel(coverProvider: coverProvider, coverSize: coverSize, log: wiring.binder.log)
        return CanvasCell(viewModel: viewModel, binder: wiring.binder)
    }

    /// Binds the cell's view-model to the canvas at `index` (no observation starts here).
    public func cellForItem(at index: Int, configuring cell: CanvasCell) {
        wiring.configure(cell, at: IndexPath(canvasItem: index))
    }

    /// Forwards to the wiring.
    public func willDisplay(_ cell: CanvasCell, at index: Int) {
        wiring.willDisplay(cell, at: IndexPath(canvasItem: index))
    }
    /// Forwards to the wiring.
    public func didEndDisplaying(_ cell: CanvasCell, at index: Int) {
        wiring.didEndDisplaying(cell, at: IndexPath(canvasItem: index))
    }
    /// Forwards to the wiring.
    public func screenWillDisappear() { wiring.screenWillDisappear() }
    /// Forwards to the wiring.
    public func screenDidAppear() { wiring.screenDidAppear() }
}

import CanvasKit
import Foundation
import Observing

/// The canvas screen, headless: a ``HeadlessCollectionView`` of ``CanvasCell``s showing a `CanvasBoard` through
/// CanvasKit's `CanvasScreenAdapter`, exactly as a UIKit screen hands its `UICollectionView` to the adapter.
///
/// The adapter does everything (see its documentation): each change of the board's canvas list becomes one batch
/// update, cells are bound in `cellForItem` and observe only while displayed, the live preview is in the displayed
/// cell of the previewing canvas, taps go to the tapped cell's canvas by identity. Nothing ever calls `reloadData()`
/// (``reloadCount`` stays zero).
///
/// Main-actor isolated, like a UIKit view controller. Events may be sent to the board from any thread (see
/// `CanvasScreenAdapter` for when list changes reach the collection).
@MainActor
public final class CanvasScreen {
    /// The adapter between the board, the collection view and the cells.
    public let adapter: CanvasScreenAdapter<HeadlessCollectionView, CanvasCell>
    /// The board shown.
    public var board: CanvasBoard { adapter.board }
    /// The binder on the collection view's display hooks.
    public var binder: DisplayLifecycleBinder { adapter.binder }
    /// The collection view.
    public var host: HeadlessCollectionView { adapter.collectionView }
    /// The last batch update the host refused, if any (an adapter bug: the host then falls back to a counted
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
        adapter = CanvasScreenAdapter(
            board: board, collectionView: HeadlessCollectionView(configuration: configuration),
            cellType: CanvasCell.self, coverProvider: coverProvider, coverSize: coverSize, log: log)
    }

    /// The number of `reloadData()` calls so far: zero for a correct screen.
    public var reloadCount: Int { host.statistics.reloads }

    /// The visible cells with their indexes, in index order.
    public var visibleCells: [(index: Int, cell: CanvasCell)] { adapter.visibleCells }

    /// The displayed cell of the canvas at `index`, if any.
    public func cell(at index: Int) -> CanvasCell? {
        host.displayedCell(at: index).flatMap { $0 as? CanvasCell }
    }

    /// The view-model of `cell`.
    public func viewModel(of cell: CanvasCell) -> CanvasCellViewModel? { adapter.viewModel(of: cell) }

    /// The first and last indexes of the canvases on screen (nil when none is: no canvas, or the screen is not in
    /// the window).
    public var viewport: ClosedRange<Int>? {
        let range = host.visibleRange
        return range.isEmpty || !host.isOnScreen ? nil : range.lowerBound...(range.upperBound - 1)
    }

    /// The index of the canvas whose cell holds the live preview (nil: no cell holds it).
    public var previewIndex: Int? { adapter.previewItem }

    /// The screen enters the window (the first call lays out the visible cells).
    public func screenDidAppear() { host.screenDidAppear() }

    /// The screen leaves the window; every observation ends.
    public func screenWillDisappear() { host.screenWillDisappear() }

    /// Scrolls the viewport to start at `offset` (clamped).
    public func scroll(toOffset offset: Int) { host.scroll(toOffset: offset) }

    /// Scrolls so the canvas at `index` is visible.
    public func scrollToItem(at index: Int) { host.scrollToItem(at: index) }

    /// The user taps the cell at `index` (nothing when out of range): the adapter sends a tap to the canvas it shows.
    public func selectItem(at index: Int) { host.selectItem(at: index) }
}

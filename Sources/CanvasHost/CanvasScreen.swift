import CanvasKit
import Foundation
import Locking
import Observing

/// The canvas screen, headless: a ``CollectionHost`` of ``CanvasCell``s showing a ``CanvasBoard``, with the
/// ``DisplayLifecycleBinder`` on its display hooks.
///
/// Wiring (DESIGN section 4): the board's canvas list is an observable ordered collection; each of its changes
/// (insertion, removal, replacement, with index sets) becomes one batch update on the host, with the screen's own
/// item list changed inside the update, as UIKit requires. Model changes reach the cells through their
/// view-models' observations; nothing ever calls `reloadData()` (``reloadCount`` stays zero).
///
/// Main-actor isolated, like a UIKit view controller. Events may be sent to the board from any thread:
/// - model changes (taps, record, stop, ...) reach the cells' view-models on the thread that makes them;
/// - a list change (`add`, `remove`) made on the main actor is applied at once, inside the board's notification, so
///   the collection never lags behind the board there. One made on another thread (an event sent there, or queued
///   behind one being applied there) is applied on the main actor as soon as it runs, or by
///   ``applyPendingListChanges()``; until then the collection shows the list as it was, like a UIKit data source
///   updated on the main queue. Either way the changes are applied in the order the board made them.
@MainActor
public final class CanvasScreen {
    /// The board shown.
    public let board: CanvasBoard
    /// The binder on the host's display hooks.
    public let binder: DisplayLifecycleBinder
    /// The collection host.
    public let host: CollectionHost<CanvasCellSource>
    /// The data source and delegate of ``host``.
    public let source: CanvasCellSource
    /// The last batch update the host refused, if any (a wiring bug: the screen then falls back to a counted
    /// reload).
    public private(set) var lastUpdateError: CollectionHostError?

    /// The observation of the board's canvas list (for lifetime tests).
    package private(set) var canvasesToken: ObservationToken?
    /// The board's list changes not applied yet, in the board's order.
    private let pendingListChanges = ListChangeQueue()
    private var isApplyingListChanges = false

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
        coverSize: CoverSize = CoverSize(width: 320, height: 320),
        log: RegistrationLog = RegistrationLog(keepsEntries: false)
    ) {
        self.board = board
        let binder = DisplayLifecycleBinder(log: log)
        self.binder = binder
        let source = CanvasCellSource(
            board: board, binder: binder, coverProvider: coverProvider, coverSize: coverSize)
        self.source = source
        host = CollectionHost(dataSource: source, configuration: configuration)
        host.delegate = source
        // Delivered on the mutating thread, which may be any thread: the change is queued there, in the board's
        // order, and the queue is applied on the main actor (at once when already there). A change is never applied
        // off the main actor, and never out of order (a change made on the main actor while earlier ones wait for
        // their hop applies those first).
        let pending = pendingListChanges
        canvasesToken = board.observe(\.canvases, options: [.new]) { [weak self] _, change in
            pending.append(change)
            guard let self else { return }
            if isOnMainActor {
                MainActor.assumeIsolated { self.applyPendingListChanges() }
            } else {
                Task { @MainActor in self.applyPendingListChanges() }
            }
        }
    }

    /// Applies the board's list changes that were made off the main actor and are still waiting, in order, each as
    /// one batch update. The screen calls it by itself; call it to bring the collection up to date at once.
    public func applyPendingListChanges() {
        // A change made while one is being applied (by a host callback) is picked up by the loop already running.
        guard !isApplyingListChanges else { return }
        isApplyingListChanges = true
        defer { isApplyingListChanges = false }
        while let change = pendingListChanges.next() { boardCanvasesDidChange(change) }
    }

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

    /// Applies one change of the board's canvas list as one batch update (package-visible for tests of the change
    /// kinds the board itself never sends).
    package func boardCanvasesDidChange(_ change: ObservedChange<[CanvasModel]>) {
        let source = self.source
        let indexes = change.indexes ?? IndexSet()
        let elements = change.newValue ?? []
        do {
            try host.performBatchUpdates { batch in
                switch change.kind {
                case .insertion:
                    for (offset, index) in indexes.enumerated() { source.items.insert(elements[offset], at: index) }
                    batch.insertItems(at: indexes)
                case .removal:
                    for index in indexes.reversed() { source.items.remove(at: index) }
                    batch.deleteItems(at: indexes)
                case .replacement:
                    for (offset, index) in indexes.enumerated() { source.items[index] = elements[offset] }
                    batch.deleteItems(at: indexes)
                    batch.insertItems(at: indexes)
                case .setting:
                    batch.deleteItems(at: IndexSet(integersIn: 0..<source.items.count))
                    source.items = elements
                    batch.insertItems(at: IndexSet(integersIn: 0..<elements.count))
                }
            }
        } catch {
            lastUpdateError = error
            host.reloadData()
        }
    }
}

/// The board's list changes, handed from the thread that made them to the main actor, in order.
private final class ListChangeQueue: Sendable {
    private let changes = LockedValue<[ObservedChange<[CanvasModel]>]>([])

    func append(_ change: ObservedChange<[CanvasModel]>) {
        changes.withLock { $0.append(change) }
    }

    /// The oldest waiting change, removed from the queue.
    func next() -> ObservedChange<[CanvasModel]>? {
        changes.withLock { $0.isEmpty ? nil : $0.removeFirst() }
    }
}

/// The canvas screen's data source and delegate: configures cells (binding, never observing) and forwards the
/// display hooks to the binder.
public final class CanvasCellSource: CollectionHostDataSource, CollectionHostDelegate {
    /// The canvases as the collection knows them; changed only inside batch updates.
    public internal(set) var items: [CanvasModel]
    /// Cells made so far.
    public private(set) var cellsMade = 0

    private let board: CanvasBoard
    private let binder: DisplayLifecycleBinder
    private let coverProvider: (any CoverProvider)?
    private let coverSize: CoverSize

    init(board: CanvasBoard, binder: DisplayLifecycleBinder, coverProvider: (any CoverProvider)?, coverSize: CoverSize)
    {
        self.board = board
        self.binder = binder
        self.coverProvider = coverProvider
        self.coverSize = coverSize
        items = board.canvases
    }

    /// The number of canvases the collection knows.
    public func numberOfItems() -> Int { items.count }

    /// A new cell with its own view-model, registering nothing.
    public func makeCell() -> CanvasCell {
        cellsMade += 1
        let viewModel = CanvasCellViewModel(coverProvider: coverProvider, coverSize: coverSize, log: binder.log)
        return CanvasCell(viewModel: viewModel, binder: binder)
    }

    /// Binds the cell's view-model to the canvas at `index` (no observation starts here).
    public func cellForItem(at index: Int, configuring cell: CanvasCell) {
        cell.viewModel.bind(to: items[index], on: board)
    }

    /// Forwards to the binder.
    public func willDisplay(_ cell: CanvasCell, at index: Int) { binder.willDisplay(cell, at: index) }
    /// Forwards to the binder.
    public func didEndDisplaying(_ cell: CanvasCell, at index: Int) { binder.didEndDisplaying(cell, at: index) }
    /// Forwards to the binder.
    public func screenWillDisappear() { binder.screenWillDisappear() }
    /// Forwards to the binder.
    public func screenDidAppear() { binder.screenDidAppear() }
}

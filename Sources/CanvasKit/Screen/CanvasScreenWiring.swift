import Foundation
import Locking
import Observing

/// The canvas screen's wiring over any collection view: board list changes become batch updates, cells are bound in
/// `cellForItem` and observe only while displayed, the screen's disappear/appear reach the binder.
///
/// A view controller (or the headless `CanvasScreen` of module CanvasHost) owns one wiring and forwards its
/// collection view's data-source and delegate calls to it:
///
/// | collection view call | wiring call |
/// | --- | --- |
/// | `numberOfItemsInSection` | ``items``.count |
/// | `cellForItemAt` (after dequeuing) | ``configure(_:at:)``: binds the cell's view-model, observes nothing |
/// | `willDisplay` / `didEndDisplaying` | ``willDisplay(_:at:)`` / ``didEndDisplaying(_:at:)`` |
/// | the cell's `prepareForReuse` | ``prepareForReuse(_:)`` |
/// | `viewWillDisappear` / `viewDidAppear` | ``screenWillDisappear()`` / ``screenDidAppear()`` |
///
/// The board's canvas list is an observable ordered collection; each change (insertion, removal, replacement,
/// setting, with its index set) becomes one ``CanvasCollectionView/performBatchUpdates(_:completion:)``, with
/// ``items`` changed inside the update, as UIKit requires. Nothing calls `reloadData()`.
///
/// Main-actor isolated, like a view controller. Events may be sent to the board from any thread: model changes
/// (taps, record, stop, ...) reach the cells' view-models on the thread that makes them; a list change (`add`,
/// `remove`) is queued, in the board's order, on the thread that made it, and the queue is applied on the main actor:
/// at once when the change was made there (inside the board's notification, so the collection never lags behind the
/// board), else as soon as the main actor runs, or when ``applyPendingListChanges()`` is called. Until then the
/// collection shows the list as it was: its indexes are those of ``items``, not of `board.canvases` (cells are bound
/// to models, so what they show stays right).
@MainActor
public final class CanvasScreenWiring<CollectionView: CanvasCollectionView> {
    /// The board shown.
    public let board: CanvasBoard
    /// The binder on the collection view's display hooks.
    public let binder: DisplayLifecycleBinder
    /// The collection view the list changes are applied to; held weakly (its owner, the view, holds it). Changes
    /// made while it is nil only change ``items``.
    public weak var collectionView: CollectionView?
    /// The canvases as the collection view knows them: its data source's items, changed only inside batch updates.
    public private(set) var items: [CanvasModel]

    /// The observation of the board's canvas list and its queue of changes.
    let follower: ListChangeFollower

    /// Starts following `board`'s canvas list.
    ///
    /// - Parameters:
    ///   - board: the board to show.
    ///   - collectionView: the collection view to apply list changes to (settable later, see ``collectionView``).
    ///   - log: where every registration and removal is audited. The default keeps the live registrations, their
    ///     peak and the violations, not the history (which would grow with every scroll of a long-lived screen);
    ///     pass `RegistrationLog()` to keep every entry.
    public init(
        board: CanvasBoard, collectionView: CollectionView? = nil,
        log: RegistrationLog = RegistrationLog(keepsEntries: false)
    ) {
        self.board = board
        self.collectionView = collectionView
        binder = DisplayLifecycleBinder(log: log)
        items = board.canvases
        follower = ListChangeFollower(board: board)
        follower.apply = { [weak self] change in self?.apply(change) }
    }

    // MARK: Data source and delegate

    /// Binds `cell`'s view-model to the canvas at `indexPath` (`cellForItemAt`): no observation starts here.
    ///
    /// The cell must have made its view-model before (see ``CanvasCellViewModelHolder``): configuring a cell without
    /// one is a programming error and stops the program, since the cell would show nothing, silently.
    public func configure(_ cell: some CanvasCellViewModelHolder, at indexPath: IndexPath) {
        guard let viewModel = cell.viewModel else {
            preconditionFailure("configure(_:at:): the cell has no view-model yet; make it before configuring the cell")
        }
        viewModel.bind(to: items[indexPath.canvasItem], on: board)
    }

    /// The cell is about to be displayed: forwarded to the binder, which starts its observations while the screen is
    /// on screen.
    public func willDisplay(_ cell: some CanvasCellViewModelHolder, at indexPath: IndexPath) {
        binder.willDisplay(cell, at: indexPath.canvasItem)
    }

    /// The cell is no longer displayed: forwarded to the binder, which stops its observations (the model stays
    /// bound).
    public func didEndDisplaying(_ cell: some CanvasCellViewModelHolder, at indexPath: IndexPath) {
        binder.didEndDisplaying(cell, at: indexPath.canvasItem)
    }

    /// The cell is about to be reused: forwarded to the binder, which unbinds its view-model.
    public func prepareForReuse(_ cell: some CanvasCellViewModelHolder) {
        binder.prepareForReuse(cell)
    }

    /// The screen leaves the window: every displayed cell's observations stop (UIKit sends no `didEndDisplaying`).
    public func screenWillDisappear() { binder.screenWillDisappear() }

    /// The screen is back: the observations of the cells still displayed start again.
    public func screenDidAppear() { binder.screenDidAppear() }

    /// The collection view's visible cells with their items, in item order (through
    /// ``CanvasCollectionView/indexPathsForVisibleItems`` and ``CanvasCollectionView/cellForItem(at:)``).
    public var visibleCells: [(index: Int, cell: CollectionView.Cell)] {
        guard let collectionView else { return [] }
        return collectionView.indexPathsForVisibleItems.map(\.canvasItem).sorted().compactMap { index in
            collectionView.cellForItem(at: IndexPath(canvasItem: index)).map { (index, $0) }
        }
    }

    // MARK: List changes

    /// Applies the board's list changes that were made off the main actor and are still waiting, in order, each as
    /// one batch update. The wiring calls it by itself; call it to bring the collection up to date at once.
    public func applyPendingListChanges() { follower.applyPendingListChanges() }

    /// Applies one change of the board's canvas list as one batch update (internal: tests use it for the change
    /// kinds the board itself never sends).
    func apply(_ change: ObservedChange<[CanvasModel]>) {
        let indexes = change.indexes ?? IndexSet()
        let elements = change.newValue ?? []
        guard let collectionView else {
            Self.update(items: &items, with: change.kind, at: indexes, elements: elements)
            return
        }
        collectionView.performBatchUpdates(
            {
                let countBefore = self.items.count
                Self.update(items: &self.items, with: change.kind, at: indexes, elements: elements)
                switch change.kind {
                case .insertion:
                    collectionView.insertItems(at: indexes.map(IndexPath.init(canvasItem:)))
                case .removal:
                    collectionView.deleteItems(at: indexes.map(IndexPath.init(canvasItem:)))
                case .replacement:
                    collectionView.deleteItems(at: indexes.map(IndexPath.init(canvasItem:)))
                    collectionView.insertItems(at: indexes.map(IndexPath.init(canvasItem:)))
                case .setting:
                    collectionView.deleteItems(at: (0..<countBefore).map(IndexPath.init(canvasItem:)))
                    collectionView.insertItems(at: (0..<elements.count).map(IndexPath.init(canvasItem:)))
                }
            }, completion: nil)
    }

    private static func update(
        items: inout [CanvasModel], with kind: ObservedChangeKind, at indexes: IndexSet, elements: [CanvasModel]
    ) {
        switch kind {
        case .insertion:
            for (offset, index) in indexes.enumerated() { items.insert(elements[offset], at: index) }
        case .removal:
            for index in indexes.reversed() { items.remove(at: index) }
        case .replacement:
            for (offset, index) in indexes.enumerated() { items[index] = elements[offset] }
        case .setting:
            items = elements
        }
    }
}

/// Follows a board's canvas list: the changes are queued on the thread that made them, in the board's order, and
/// applied on the main actor (at once when already there), through ``apply``. Not generic, so that the observation
/// handler, which runs on any thread, captures no type of the wiring.
@MainActor
final class ListChangeFollower {
    /// Applies one change; set by the wiring.
    var apply: ((ObservedChange<[CanvasModel]>) -> Void)?
    /// The observation of the board's canvas list.
    private(set) var canvasesToken: ObservationToken?
    /// The board's list changes not applied yet, in the board's order.
    private let pendingListChanges = ListChangeQueue()
    private var isApplyingListChanges = false

    init(board: CanvasBoard) {
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

    func applyPendingListChanges() {
        // A change made while one is being applied (by a collection view callback) is picked up by the loop already
        // running.
        guard !isApplyingListChanges else { return }
        isApplyingListChanges = true
        defer { isApplyingListChanges = false }
        while let change = pendingListChanges.next() { apply?(change) }
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

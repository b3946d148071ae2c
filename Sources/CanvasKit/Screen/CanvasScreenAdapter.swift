import Foundation
import Observing

/// The canvas screen's one adapter between a board and a collection view (the role of IGListKit's `ListAdapter`):
/// it is the collection view's data source and delegate, so an app writes the board, the adapter, and its cell's
/// drawing of a ``CanvasDisplay`` (``CanvasScreenCell``), and nothing else.
///
/// ```swift
/// let adapter = CanvasScreenAdapter(board: board, collectionView: collectionView, cellType: CanvasCellView.self)
/// ```
///
/// What it does, so the app does not:
/// - registers `cellType` and dequeues it (no reuse identifier or cast in the app), makes each cell's
///   ``CanvasCellViewModel`` (with the cover provider) and draws its display and cover through the cell;
/// - binds a cell in `cellForItemAt`, lets it observe only between `willDisplay` and `didEndDisplaying` while the
///   screen is on screen, and unbinds it when the collection view reuses it (see ``DisplayLifecycleBinder``);
/// - puts the live preview into the displayed cell of the canvas in live preview or recording, and takes it out
///   when that cell ends displaying, is reused or the screen disappears (``PreviewPlacement``), whatever the effects;
/// - applies each change of the board's canvas list as one batch update (never `reloadData()`);
/// - sends a tap on a cell to the canvas that cell shows, by identity (``CanvasEvent/tapCanvas(_:)``): the board
///   resolves it to that canvas's index when it applies it, so a list change made meanwhile cannot redirect it.
///
/// Threads: the adapter is main-actor isolated, like the collection view; the board and the view-models are
/// `Sendable`, and events may be sent to the board from any thread. A model change reaches the view-models on the
/// thread that makes it, and the cells on the main actor. A list change (`add`, `remove`) is applied on the main actor,
/// in the board's order, through Observing's main-actor delivery: at once when made there, otherwise as soon as the
/// main queue runs; until then the collection shows the list as it was: its index paths are those of ``items``, not of
/// `board.canvases`.
///
/// The collection view holds the adapter weakly (as UIKit holds its data source); keep the adapter alive as long as
/// the screen, e.g. in the view controller. The adapter holds the collection view and the cells it made.
@MainActor
public final class CanvasScreenAdapter<CollectionView: CanvasCollectionView, CellType: CanvasScreenCell>:
    CanvasCollectionViewAdapter
{
    /// The collection view's cell class.
    public typealias Cell = CollectionView.Cell

    /// The board shown.
    public let board: CanvasBoard
    /// The collection view driven.
    public let collectionView: CollectionView
    /// The binder on the display hooks (its log audits every registration).
    public let binder: DisplayLifecycleBinder
    /// The canvases as the collection view knows them: the data source's items, changed only inside batch updates.
    public private(set) var items: [CanvasModel]
    /// Where the effects of the events the adapter sends (taps) are carried out; nil: they are dropped.
    public weak var performer: (any CanvasEffectPerformer)?
    /// Called on the main actor after each tap was sent, with the canvas tapped and the outcome (a rejected tap:
    /// say why, e.g. that the screen is locked while recording).
    public var tapHandler: ((CanvasID, BoardOutcome) -> Void)?
    /// Which cell hosts the live preview (the adapter feeds it every hook and display change).
    public private(set) var placement = PreviewPlacement<ObjectIdentifier>()

    /// The cells made so far, by identity, with their view-models.
    private(set) var bindings: [ObjectIdentifier: CellBinding<CellType>] = [:]
    /// The observation of the board's canvas list (each change applied as one batch update).
    private(set) var canvasesToken: ObservationToken?
    private let coverProvider: (any CoverProvider)?
    private let coverSize: PixelSize
    private let reuseIdentifier: String
    /// What the collection view calls on the adapter's behalf, kept alive here (see
    /// ``CanvasCollectionView/setAdapter(_:)``).
    private var connection: AnyObject?

    /// Registers `cellType` with `collectionView`, becomes its data source and delegate, and follows `board`'s
    /// canvas list.
    ///
    /// - Parameters:
    ///   - board: the board to show.
    ///   - collectionView: the collection view; its cells must be of class `cellType` (dequeuing anything else stops
    ///     the program, naming both classes).
    ///   - cellType: the app's cell class.
    ///   - coverProvider: where the cells' covers come from; nil: no cover is requested (cells still show `cover`).
    ///   - coverSize: the largest cover a cell wants.
    ///   - log: where every registration and removal is audited. The default keeps the live registrations, their
    ///     peak and the violations, not the history; pass `RegistrationLog()` to keep every entry.
    public init(
        board: CanvasBoard, collectionView: CollectionView, cellType: CellType.Type,
        coverProvider: (any CoverProvider)? = nil, coverSize: PixelSize = PixelSize(width: 320, height: 320),
        log: RegistrationLog = RegistrationLog(keepsEntries: false)
    ) {
        self.board = board
        self.collectionView = collectionView
        self.coverProvider = coverProvider
        self.coverSize = coverSize
        binder = DisplayLifecycleBinder(log: log)
        items = board.canvases
        reuseIdentifier = "CanvasScreenAdapter." + String(reflecting: cellType)
        collectionView.register(cellType, forCellWithReuseIdentifier: reuseIdentifier)
        connection = collectionView.setAdapter(self)
        canvasesToken = board.observe(\.canvases, options: [.new], delivery: .mainActor) { [weak self] _, change in
            MainActor.assumeIsolated { self?.apply(change) }
        }
    }

    // MARK: Queries

    /// The visible cells with their items, in item order.
    public var visibleCells: [(index: Int, cell: CellType)] {
        collectionView.indexPathsForVisibleItems.map(\.canvasItem).sorted().compactMap { index in
            collectionView.cellForItem(at: IndexPath(canvasItem: index)).flatMap { cell in
                bindings[ObjectIdentifier(cell)].map { (index, $0.cell) }
            }
        }
    }

    /// The cell hosting the live preview, if any.
    public var previewCell: CellType? { placement.host.flatMap { bindings[$0]?.cell } }

    /// The index in ``items`` of the canvas whose cell hosts the live preview, if any.
    public var previewItem: Int? {
        guard let canvas = placement.hostCanvas else { return nil }
        return items.firstIndex { $0.id == canvas }
    }

    /// The view-model the adapter made for `cell` (nil for a cell it never dequeued).
    public func viewModel(of cell: CellType) -> CanvasCellViewModel? {
        bindings[ObjectIdentifier(cell)]?.model
    }

    /// The cells made so far (the collection view's cells of this adapter).
    public var cellCount: Int { bindings.count }

    // MARK: Events

    /// Sends `event` to the board, with its effects carried out by ``performer``.
    ///
    /// - Returns: the board's outcome.
    @discardableResult
    public func send(_ event: CanvasEvent) -> BoardOutcome {
        guard let performer else { return board.send(event) }
        return board.send(event, performingEffectsWith: performer)
    }

    // MARK: CanvasCollectionViewAdapter

    /// The number of ``items``.
    public func numberOfItems(inSection section: Int) -> Int { items.count }

    /// Dequeues a cell, unbinds it if it is reused (its view-model stops observing, its cover request ends, the
    /// preview leaves it), and binds it to the canvas at `indexPath`: it draws that canvas, observing nothing yet.
    public func cellForItem(at indexPath: IndexPath) -> Cell {
        let dequeued = collectionView.dequeueReusableCell(withReuseIdentifier: reuseIdentifier, for: indexPath)
        guard let cell = dequeued as? CellType else {
            preconditionFailure(
                "CanvasScreenAdapter: dequeued a \(type(of: dequeued)), not the \(CellType.self) it registered")
        }
        let binding = self.binding(for: cell)
        let model = items[indexPath.canvasItem]
        binding.canvas = model.id
        binding.model.bind(to: model, on: board)
        carryOut(placement.cell(binding.key, shows: model.id, display: binding.model.display))
        return dequeued
    }

    /// The cell starts observing its canvas while the screen is on screen; it hosts the preview if its canvas has it.
    public func willDisplay(_ cell: Cell, forItemAt indexPath: IndexPath) {
        guard let binding = bindings[ObjectIdentifier(cell)] else { return }
        binder.willDisplay(binding, at: indexPath.canvasItem)
        carryOut(placement.cellWillDisplay(binding.key))
    }

    /// The cell stops observing (it stays bound) and gives up the preview.
    public func didEndDisplaying(_ cell: Cell, forItemAt indexPath: IndexPath) {
        guard let binding = bindings[ObjectIdentifier(cell)] else { return }
        binder.didEndDisplaying(binding, at: indexPath.canvasItem)
        carryOut(placement.cellDidEndDisplaying(binding.key))
    }

    /// Sends a tap to the canvas at `indexPath` by identity (see ``send(_:)`` and ``tapHandler``).
    public func didSelectItem(at indexPath: IndexPath) {
        guard items.indices.contains(indexPath.canvasItem) else { return }
        let canvas = items[indexPath.canvasItem].id
        let outcome = send(.tapCanvas(canvas))
        tapHandler?(canvas, outcome)
    }

    /// Every displayed cell stops observing, and the preview leaves its cell.
    public func screenWillDisappear() {
        binder.screenWillDisappear()
        carryOut(placement.screenWillDisappear())
    }

    /// The displayed cells observe again (and redraw what changed meanwhile); the preview returns.
    public func screenDidAppear() {
        binder.screenDidAppear()
        carryOut(placement.screenDidAppear())
    }

    // MARK: Cells

    /// The binding of `cell`: made (with the cell's view-model and the observations drawing it) the first time the
    /// collection view hands the cell out; unbound when a bound cell comes back, since that is a reuse.
    private func binding(for cell: CellType) -> CellBinding<CellType> {
        let key = ObjectIdentifier(cell)
        if let binding = bindings[key] {
            if binding.canvas != nil {
                binder.prepareForReuse(binding)
                binding.canvas = nil
                carryOut(placement.cellWillBeReused(key))
            }
            return binding
        }
        let viewModel = CanvasCellViewModel(coverProvider: coverProvider, coverSize: coverSize, log: binder.log)
        let binding = CellBinding(cell: cell, model: viewModel)
        bindings[key] = binding
        binding.tokens = [
            // Each delivery draws the view-model's value now, not the one it carries: a change made on another thread
            // is delivered later on the main actor, possibly after the cell was reused for another canvas, and the
            // value it carries is then the old canvas's.
            // Delivered on the main actor (at once when the change is made there); the handler is entered there.
            viewModel.observe(\.display, options: [.initial], delivery: .mainActor) { [weak self, weak binding] _, _ in
                MainActor.assumeIsolated {
                    guard let self, let binding else { return }
                    self.displayChanged(binding, to: binding.model.display)
                }
            },
            viewModel.observe(\.cover, options: [.initial], delivery: .mainActor) { [weak binding] _, _ in
                MainActor.assumeIsolated {
                    guard let binding else { return }
                    binding.cell.draw(binding.model.cover)
                }
            },
        ]
        return binding
    }

    private func displayChanged(_ binding: CellBinding<CellType>, to display: CanvasDisplay?) {
        binding.cell.draw(display)
        carryOut(placement.cell(binding.key, shows: display == nil ? nil : binding.canvas, display: display))
    }

    /// Takes the preview out of the cell it leaves, then puts it into the cell it enters.
    private func carryOut(_ move: PreviewPlacement<ObjectIdentifier>.Move?) {
        guard let move else { return }
        if let from = move.from { bindings[from]?.cell.setHostsPreview(false) }
        if let to = move.to { bindings[to]?.cell.setHostsPreview(true) }
    }

    // MARK: List changes

    /// Applies one change of the board's canvas list as one batch update (internal: tests use it for the change
    /// kinds the board itself never sends).
    func apply(_ change: ObservedChange<[CanvasModel]>) {
        let indexes = change.indexes ?? IndexSet()
        let elements = change.newValue ?? []
        collectionView.performBatchUpdates(
            {
                let countBefore = self.items.count
                Self.update(items: &self.items, with: change.kind, at: indexes, elements: elements)
                let paths = indexes.map(IndexPath.init(canvasItem:))
                switch change.kind {
                case .insertion:
                    self.collectionView.insertItems(at: paths)
                case .removal:
                    self.collectionView.deleteItems(at: paths)
                case .replacement:
                    self.collectionView.deleteItems(at: paths)
                    self.collectionView.insertItems(at: paths)
                case .setting:
                    self.collectionView.deleteItems(at: (0..<countBefore).map(IndexPath.init(canvasItem:)))
                    self.collectionView.insertItems(at: (0..<elements.count).map(IndexPath.init(canvasItem:)))
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

/// One cell the adapter made, with its view-model and the observations drawing it: what the binder tracks.
@MainActor
final class CellBinding<CellType: CanvasScreenCell>: CanvasCellViewModelHolder {
    let cell: CellType
    /// The cell's view-model, for its whole life.
    let model: CanvasCellViewModel
    /// The canvas the cell is bound to (set in `cellForItemAt`, cleared on reuse).
    var canvas: CanvasID?
    /// The observations of the view-model's display and cover.
    var tokens: [ObservationToken] = []

    init(cell: CellType, model: CanvasCellViewModel) {
        self.cell = cell
        self.model = model
    }

    var key: ObjectIdentifier { ObjectIdentifier(cell) }
    var viewModel: CanvasCellViewModel? { model }
}

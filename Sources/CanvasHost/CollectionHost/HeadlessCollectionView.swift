import CanvasKit
import Foundation

/// The headless `UICollectionView` a `CanvasScreenAdapter` drives: a ``CollectionHost`` whose data source and
/// delegate is the adapter set by ``CollectionHost/setAdapter(_:)``, making its cells from the class registered with
/// ``CollectionHost/register(_:forCellWithReuseIdentifier:)``.
///
/// ```swift
/// let collectionView = HeadlessCollectionView(configuration: .init(viewportSize: 3))
/// let adapter = CanvasScreenAdapter(board: board, collectionView: collectionView, cellType: MyCell.self)
/// collectionView.screenDidAppear()
/// collectionView.selectItem(at: 0)  // the user taps the first cell
/// ```
///
/// It keeps one reuse pool: register one cell class (the adapter does).
public typealias HeadlessCollectionView = CollectionHost<HeadlessCollectionSource>

/// The headless `UICollectionViewCell`: the base class of the cells a ``HeadlessCollectionView`` makes from a
/// registered class (with `init()`, where UIKit uses `init(frame:)`).
@MainActor
open class HeadlessCell: CollectionHostCell {
    /// An empty cell.
    public required init() {}

    /// Called when the cell is taken from the reuse pool, before the data source's `cellForItemAt`. Does nothing.
    open func prepareForReuse() {}
}

/// What a ``HeadlessCollectionView`` asks and tells: it forwards the host's calls to the adapter set on it, and makes
/// cells of the registered class. Made and owned by the collection view.
@MainActor
public final class HeadlessCollectionSource: CollectionHostDataSource, CollectionHostDelegate {
    /// The adapter answering the host's calls; held weakly, as UIKit holds its data source.
    weak var adapter: (any CanvasCollectionViewAdapter<HeadlessCell>)?
    /// The classes registered, by reuse identifier.
    var registered: [String: HeadlessCell.Type] = [:]
    /// The class new cells are made of (the last registered).
    var cellClass: HeadlessCell.Type?
    /// The cell the host prepared for the running `cellForItemAt`, until the adapter dequeues it.
    var dequeueable: HeadlessCell?

    init() {}

    /// The adapter's item count (0 without an adapter).
    public func numberOfItems() -> Int { adapter?.numberOfItems(inSection: 0) ?? 0 }

    /// A new cell of the registered class. - Precondition: a class was registered.
    public func makeCell() -> HeadlessCell {
        guard let cellClass else {
            preconditionFailure("HeadlessCollectionView: no cell class registered before the first cell was needed")
        }
        return cellClass.init()
    }

    /// The adapter's `cellForItemAt`, which dequeues `cell`. - Precondition: it dequeues and returns that cell.
    public func cellForItem(at index: Int, configuring cell: HeadlessCell) {
        guard let adapter else { return }
        dequeueable = cell
        let returned = adapter.cellForItem(at: IndexPath(indexes: [0, index]))
        precondition(dequeueable == nil, "HeadlessCollectionView: cellForItemAt returned without dequeuing a cell")
        precondition(returned === cell, "HeadlessCollectionView: cellForItemAt returned a cell it did not dequeue")
    }

    /// Forwards to the adapter.
    public func willDisplay(_ cell: HeadlessCell, at index: Int) {
        adapter?.willDisplay(cell, forItemAt: IndexPath(indexes: [0, index]))
    }

    /// Forwards to the adapter.
    public func didEndDisplaying(_ cell: HeadlessCell, at index: Int) {
        adapter?.didEndDisplaying(cell, forItemAt: IndexPath(indexes: [0, index]))
    }

    /// Forwards to the adapter.
    public func screenWillDisappear() { adapter?.screenWillDisappear() }

    /// Forwards to the adapter.
    public func screenDidAppear() { adapter?.screenDidAppear() }
}

extension CollectionHost where DataSource == HeadlessCollectionSource {
    /// A headless collection view with no adapter yet (no items), laying out nothing until ``screenDidAppear()``.
    public convenience init(configuration: CollectionHostConfiguration) {
        let source = HeadlessCollectionSource()
        self.init(dataSource: source, configuration: configuration)
        ownedDataSource = source
        delegate = source
    }

    /// `UICollectionView`'s tap on an item: the adapter's `didSelectItem(at:)` (nothing for an index out of range).
    public func selectItem(at index: Int) {
        guard index >= 0, index < numberOfItems else { return }
        dataSource?.adapter?.didSelectItem(at: IndexPath(indexes: [0, index]))
    }
}

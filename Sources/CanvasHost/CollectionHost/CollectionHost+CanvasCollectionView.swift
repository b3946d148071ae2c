import CanvasKit
import Foundation

/// The headless collection view as CanvasKit's `CanvasCollectionView`: the same calls, names and index paths as
/// `UICollectionView`, so a `CanvasScreenAdapter` drives it exactly as it drives UIKit.
extension CollectionHost: CanvasCollectionView where DataSource == HeadlessCollectionSource {
    /// Makes `adapter` the data source and delegate (held weakly) and queries the items again. Returns nil: the
    /// host owns the object forwarding its calls.
    public func setAdapter(_ adapter: (any CanvasCollectionViewAdapter<HeadlessCell>)?) -> AnyObject? {
        dataSource?.adapter = adapter
        dataSourceDidChange()
        return nil
    }

    /// `UICollectionView.register(_:forCellWithReuseIdentifier:)`: `cellClass` must be a ``HeadlessCell`` subclass.
    public func register(_ cellClass: AnyClass?, forCellWithReuseIdentifier identifier: String) {
        guard let cellClass = cellClass as? HeadlessCell.Type else {
            preconditionFailure("HeadlessCollectionView: \(String(describing: cellClass)) is not a HeadlessCell")
        }
        dataSource?.registered[identifier] = cellClass
        dataSource?.cellClass = cellClass
    }

    /// `UICollectionView.dequeueReusableCell(withReuseIdentifier:for:)`: the cell the host took for the running
    /// `cellForItemAt` (new, or from the pool after its `prepareForReuse()`).
    ///
    /// - Precondition: called once from `cellForItemAt`, with a registered identifier.
    public func dequeueReusableCell(withReuseIdentifier identifier: String, for indexPath: IndexPath) -> HeadlessCell {
        guard let source = dataSource, source.registered[identifier] != nil else {
            preconditionFailure("HeadlessCollectionView: no class registered for the reuse identifier \(identifier)")
        }
        guard let cell = source.dequeueable else {
            preconditionFailure("HeadlessCollectionView: dequeueReusableCell called outside cellForItemAt")
        }
        source.dequeueable = nil
        return cell
    }

    /// `UICollectionView.performBatchUpdates(_:completion:)`: runs `updates`, in which the data source changes and
    /// ``insertItems(at:)-([IndexPath])``, ``deleteItems(at:)-([IndexPath])`` and ``moveItem(at:to:)-(IndexPath,_)``
    /// record the matching changes, then applies them as one update (see ``performBatchUpdates(_:)``) and calls
    /// `completion` with `true`.
    ///
    /// Where UIKit raises `NSInternalInconsistencyException` (an update that does not add up, or one started from a
    /// host callback), the host records the error in ``lastBatchUpdateError``, reloads (counted in
    /// ``CollectionHostStatistics/reloads``, so a test expecting none catches it) and calls `completion` with `false`.
    public func performBatchUpdates(_ updates: (() -> Void)?, completion: ((Bool) -> Void)? = nil) {
        let outer = recordingBatch
        do {
            try performBatchUpdates { (batch: inout CollectionBatchUpdate) in
                recordingBatch = CollectionBatchUpdate()
                updates?()
                batch = recordingBatch ?? CollectionBatchUpdate()
            }
            recordingBatch = outer
            completion?(true)
        } catch {
            recordingBatch = outer
            lastBatchUpdateError = error
            reloadData()
            completion?(false)
        }
    }

    /// `UICollectionView.insertItems(at:)`: recorded inside ``performBatchUpdates(_:completion:)``, else applied as
    /// an update of its own (a refused one is handled as in ``performBatchUpdates(_:completion:)``).
    public func insertItems(at indexPaths: [IndexPath]) {
        record { $0.insertItems(at: IndexSet(indexPaths.map(\.canvasItem))) }
    }

    /// `UICollectionView.deleteItems(at:)`: recorded or applied as ``insertItems(at:)-([IndexPath])``.
    public func deleteItems(at indexPaths: [IndexPath]) {
        record { $0.deleteItems(at: IndexSet(indexPaths.map(\.canvasItem))) }
    }

    /// `UICollectionView.moveItem(at:to:)`: recorded or applied as ``insertItems(at:)-([IndexPath])``.
    public func moveItem(at indexPath: IndexPath, to newIndexPath: IndexPath) {
        record { $0.moveItem(at: indexPath.canvasItem, to: newIndexPath.canvasItem) }
    }

    /// `UICollectionView.indexPathsForVisibleItems`: the displayed cells in the viewport.
    public var indexPathsForVisibleItems: [IndexPath] {
        visibleCells.map { IndexPath(canvasItem: $0.index) }
    }

    /// `UICollectionView.cellForItem(at:)`: the displayed cell of the item, if any.
    public func cellForItem(at indexPath: IndexPath) -> Cell? {
        displayedCell(at: indexPath.canvasItem)
    }

    private func record(_ change: (inout CollectionBatchUpdate) -> Void) {
        if recordingBatch != nil {
            change(&recordingBatch!)
            return
        }
        var single = CollectionBatchUpdate()
        change(&single)
        let recorded = single
        performBatchUpdates({ self.recordingBatch = recorded }, completion: nil)
    }
}

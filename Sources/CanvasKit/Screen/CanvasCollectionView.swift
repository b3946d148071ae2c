import Foundation

/// What the screen wiring needs of a collection view, with `UICollectionView`'s own names and signatures, so that a
/// UIKit app conforms it with an empty extension (see `Docs/Lifecycle.md`):
///
/// ```swift
/// // Apple platforms only
/// extension UICollectionView: CanvasCollectionView {}
/// ```
///
/// The headless `CollectionHost` (module CanvasHost) conforms the same way, and is what the package's tests drive.
/// One section: every index path is (section 0, item).
@MainActor
public protocol CanvasCollectionView: AnyObject {
    /// The cell class the collection view hands out.
    associatedtype Cell: AnyObject

    /// Applies the insertions, deletions and moves that `updates` records, with the data source changed inside
    /// `updates`, as one update; then calls `completion` with whether it finished.
    func performBatchUpdates(_ updates: (() -> Void)?, completion: ((Bool) -> Void)?)

    /// Records (inside ``performBatchUpdates(_:completion:)``) or applies the insertion of items at `indexPaths`.
    func insertItems(at indexPaths: [IndexPath])

    /// Records (inside ``performBatchUpdates(_:completion:)``) or applies the deletion of the items at `indexPaths`.
    func deleteItems(at indexPaths: [IndexPath])

    /// Records (inside ``performBatchUpdates(_:completion:)``) or applies the move of one item.
    func moveItem(at indexPath: IndexPath, to newIndexPath: IndexPath)

    /// Throws every cell away and asks the data source again. The wiring never calls it.
    func reloadData()

    /// The index paths of the visible items.
    var indexPathsForVisibleItems: [IndexPath] { get }

    /// The visible cell at `indexPath`, if any.
    func cellForItem(at indexPath: IndexPath) -> Cell?
}

extension IndexPath {
    /// The index path of `item` in section 0, the one section the canvas screen has.
    package init(canvasItem item: Int) {
        self.init(indexes: [0, item])
    }

    /// The item of a (section, item) index path (-1 for any other shape).
    package var canvasItem: Int { count == 2 ? self[1] : -1 }
}

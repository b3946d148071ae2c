import Foundation

/// What the screen adapter needs of a collection view, with `UICollectionView`'s own names and signatures.
///
/// A `CanvasScreenAdapter` drives one: it registers the cell class, dequeues cells, applies list changes as batch
/// updates and reads the visible cells. `UICollectionView` has every requirement but ``setAdapter(_:)``, which its
/// conformance implements by making the adapter its `dataSource` and `delegate` (through an object that forwards
/// UIKit's data-source and delegate calls to the ``CanvasCollectionViewAdapter`` calls of the same names). The
/// headless `CollectionHost` of module CanvasHost conforms the same way, and is what the package's tests drive.
///
/// One section: every index path is (section 0, item). Main-actor isolated, like `UICollectionView`.
@MainActor
public protocol CanvasCollectionView: AnyObject {
    /// The cell class the collection view hands out (`UICollectionViewCell`); the adapter's cells are a subclass.
    associatedtype Cell: AnyObject

    /// Makes `adapter` the collection view's data source and delegate (nil: none), and returns what must stay alive
    /// for that: UIKit's conformance sets its `dataSource` and `delegate` to an object forwarding to `adapter` and
    /// returns it, since UIKit holds them weakly. The caller keeps the returned object as long as it wants the
    /// adapter to serve (`CanvasScreenAdapter` does). The adapter itself is held weakly, as UIKit holds its data
    /// source: its owner (the view controller) keeps it alive.
    func setAdapter(_ adapter: (any CanvasCollectionViewAdapter<Cell>)?) -> AnyObject?

    /// `register(_:forCellWithReuseIdentifier:)`: cells dequeued with `identifier` are made of `cellClass`.
    func register(_ cellClass: AnyClass?, forCellWithReuseIdentifier identifier: String)

    /// `dequeueReusableCell(withReuseIdentifier:for:)`, called from the data source's `cellForItemAt`: a cell of the
    /// class registered for `identifier`, new or reused (after its `prepareForReuse()`).
    func dequeueReusableCell(withReuseIdentifier identifier: String, for indexPath: IndexPath) -> Cell

    /// Applies the insertions, deletions and moves that `updates` records, with the data source changed inside
    /// `updates`, as one update; then calls `completion` with whether it finished.
    func performBatchUpdates(_ updates: (() -> Void)?, completion: ((Bool) -> Void)?)

    /// Records (inside ``performBatchUpdates(_:completion:)``) or applies the insertion of items at `indexPaths`.
    func insertItems(at indexPaths: [IndexPath])

    /// Records (inside ``performBatchUpdates(_:completion:)``) or applies the deletion of the items at `indexPaths`.
    func deleteItems(at indexPaths: [IndexPath])

    /// Records (inside ``performBatchUpdates(_:completion:)``) or applies the move of one item.
    func moveItem(at indexPath: IndexPath, to newIndexPath: IndexPath)

    /// Throws every cell away and asks the data source again. The adapter never calls it.
    func reloadData()

    /// The index paths of the visible items.
    var indexPathsForVisibleItems: [IndexPath] { get }

    /// The visible cell at `indexPath`, if any.
    func cellForItem(at indexPath: IndexPath) -> Cell?
}

/// The data source and delegate of a ``CanvasCollectionView``: the calls UIKit makes on a
/// `UICollectionViewDataSource` and `UICollectionViewDelegate` (without the collection view argument: an adapter
/// serves one collection view), plus the screen's appearance. `CanvasScreenAdapter` implements it; a collection
/// view's conformance forwards to it (see ``CanvasCollectionView/setAdapter(_:)``).
///
/// Main-actor isolated, like UIKit's data sources and delegates.
@MainActor
public protocol CanvasCollectionViewAdapter<Cell>: AnyObject {
    /// The collection view's cell class.
    associatedtype Cell: AnyObject

    /// `collectionView(_:numberOfItemsInSection:)`.
    func numberOfItems(inSection section: Int) -> Int

    /// `collectionView(_:cellForItemAt:)`: dequeues a cell from the collection view, binds it and returns it.
    func cellForItem(at indexPath: IndexPath) -> Cell

    /// `collectionView(_:willDisplay:forItemAt:)`.
    func willDisplay(_ cell: Cell, forItemAt indexPath: IndexPath)

    /// `collectionView(_:didEndDisplaying:forItemAt:)`.
    func didEndDisplaying(_ cell: Cell, forItemAt indexPath: IndexPath)

    /// `collectionView(_:didSelectItemAt:)`: the user tapped the item.
    func didSelectItem(at indexPath: IndexPath)

    /// The screen holding the collection view is about to leave the window (a view controller's
    /// `viewWillDisappear(_:)`). UIKit sends no `didEndDisplaying` then.
    func screenWillDisappear()

    /// The screen is in the window again (a view controller's `viewDidAppear(_:)`).
    func screenDidAppear()
}

extension IndexPath {
    /// The index path of `item` in section 0, the one section the canvas screen has.
    package init(canvasItem item: Int) {
        self.init(indexes: [0, item])
    }

    /// The item of a (section, item) index path (-1 for any other shape).
    package var canvasItem: Int { count == 2 ? self[1] : -1 }
}

import CanvasKit

/// A cell the headless host dequeues, configures, displays and recycles: the role of `UICollectionViewCell`.
///
/// Cells are reference types because the host and its clients track them by identity, as UIKit does. A cell is
/// created by its data source's ``CollectionHostDataSource/makeCell()`` only when the reuse pool is empty.
///
/// Main-actor isolated, like `UICollectionViewCell`.
@MainActor
public protocol CollectionHostCell: AnyObject {
    /// Called by the host when the cell is taken out of the reuse pool for another item, before the data source's
    /// ``CollectionHostDataSource/cellForItem(at:configuring:)``; never called on a freshly made cell.
    func prepareForReuse()
}

/// The source of the host's items: the role of `UICollectionViewDataSource` for a single section.
///
/// The host queries ``numberOfItems()`` once at creation and after every batch update (inside
/// ``CollectionHost/performBatchUpdates(_:)``, right after the update closure ran), and on `reloadData()`; between
/// those it trusts its cached count, exactly as UIKit does. That is why a data change made without a matching batch
/// update is caught as UIKit's "invalid number of items" error at the next update.
///
/// Main-actor isolated, like `UICollectionViewDataSource` and the screen adapter it forwards to: a `@MainActor` view
/// controller conforms without any annotation on the conformance.
@MainActor
public protocol CollectionHostDataSource<Cell>: AnyObject {
    /// The cell type this data source configures.
    associatedtype Cell: CollectionHostCell

    /// The number of items in the (single) section.
    func numberOfItems() -> Int

    /// Makes a new cell; the host calls it only when its reuse pool is empty (UIKit's registered cell class).
    func makeCell() -> Cell

    /// Configures `cell` for the item at `index`: the `collectionView(_:cellForItemAt:)` step. The cell was just
    /// dequeued (made new, or taken from the pool after ``CollectionHostCell/prepareForReuse()``). In prefetching mode
    /// this may run for an item that is never displayed, and a displayed-then-ended cell may be displayed again
    /// without a new call.
    func cellForItem(at index: Int, configuring cell: Cell)
}

/// Display and screen notifications: the role of `UICollectionViewDelegate` plus the view controller's appearance
/// callbacks. Every requirement has an empty default implementation.
///
/// | method | UIKit counterpart | what `HeadlessCollectionView` does in it |
/// | --- | --- | --- |
/// | ``willDisplay(_:at:)`` | `collectionView(_:willDisplay:forItemAt:)` | the adapter's `willDisplay(_:forItemAt:)`: the cell starts observing |
/// | ``didEndDisplaying(_:at:)`` | `collectionView(_:didEndDisplaying:forItemAt:)` | the adapter's `didEndDisplaying(_:forItemAt:)`: it stops |
/// | ``screenWillDisappear()`` | the view controller's `viewWillDisappear(_:)` | the adapter's `screenWillDisappear()` |
/// | ``screenDidAppear()`` | the view controller's `viewDidAppear(_:)` | the adapter's `screenDidAppear()` |
///
/// Main-actor isolated, like `UICollectionViewDelegate` and the screen adapter it forwards to.
@MainActor
public protocol CollectionHostDelegate<Cell>: AnyObject {
    /// The cell type the notifications carry.
    associatedtype Cell: CollectionHostCell

    /// The cell is about to become visible at `index`. It was configured by `cellForItem` for that item, but not
    /// necessarily just before: in prefetching mode the configuration may be earlier, or from an earlier display.
    /// In prefetching mode a cell whose end of display is still pending may get a second `willDisplay` without a
    /// `didEndDisplaying` in between.
    func willDisplay(_ cell: Cell, at index: Int)

    /// The cell is no longer visible; `index` is the item it showed (for a deleted item, its index before the
    /// update). In prefetching mode this may arrive one layout pass late. The cell goes to the reuse pool afterwards
    /// unless it is kept for prefetching.
    func didEndDisplaying(_ cell: Cell, at index: Int)

    /// The screen holding the collection is about to leave the window. With the UIKit behaviour
    /// (``CollectionHostConfiguration/Disappearance/keepsCellsDisplayed``) the visible cells stay displayed and get
    /// no `didEndDisplaying`: whoever does work for visible cells must stop it here.
    func screenWillDisappear()

    /// The screen is back in the window (or there for the first time) and its visible cells are laid out.
    func screenDidAppear()
}

extension CollectionHostDelegate {
    /// Does nothing.
    public func willDisplay(_ cell: Cell, at index: Int) {}
    /// Does nothing.
    public func didEndDisplaying(_ cell: Cell, at index: Int) {}
    /// Does nothing.
    public func screenWillDisappear() {}
    /// Does nothing.
    public func screenDidAppear() {}
}

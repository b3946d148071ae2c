import CanvasKit

/// Why a ``CollectionHost`` refused a batch update: the inconsistencies for which `UICollectionView` raises
/// `NSInternalInconsistencyException`, thrown here as values so a test (or a fuzzer) can catch them.
///
/// When a batch update throws, the host delivers no callback and keeps its cells, offset and cached item count as
/// they were; the data source has usually changed already (the change is made inside the update), so host and data
/// source disagree until a correct update or `reloadData()`.
public enum CollectionHostError: Error, Equatable, Sendable {
    /// The count after the update is not the count before, plus the inserted items, minus the deleted ones.
    case invalidNumberOfItems(before: Int, after: Int, inserted: Int, deleted: Int)
    /// A deleted index does not exist before the update.
    case deleteOutOfBounds(index: Int, countBefore: Int)
    /// A moved item does not exist before the update.
    case moveOutOfBounds(index: Int, countBefore: Int)
    /// An inserted index does not exist after the update.
    case insertOutOfBounds(index: Int, countAfter: Int)
    /// A move destination does not exist after the update.
    case moveDestinationOutOfBounds(index: Int, countAfter: Int)
    /// The same item is deleted and moved.
    case deleteAndMoveOfSameItem(index: Int)
    /// The same item is moved twice.
    case itemMovedTwice(index: Int)
    /// Two changes (an insertion and a move, or two moves) land on the same index after the update.
    case conflictingDestination(index: Int)
    /// A batch update or `reloadData()` was started from inside a host callback while the host was laying out.
    case updateDuringLayout
}

extension CollectionHostError: CustomStringConvertible {
    /// The message UIKit gives for the same inconsistency (section 0; this host has one section).
    public var description: String {
        switch self {
        case .invalidNumberOfItems(let before, let after, let inserted, let deleted):
            "Invalid update: invalid number of items in section 0. The number of items contained in an existing "
                + "section after the update (\(after)) must be equal to the number of items contained in that "
                + "section before the update (\(before)), plus or minus the number of items inserted or deleted "
                + "from that section (\(inserted) inserted, \(deleted) deleted) and plus or minus the number of "
                + "items moved into or out of that section (0 moved in, 0 moved out)."
        case .deleteOutOfBounds(let index, let countBefore):
            "Invalid update: attempt to delete item \(index) from section 0 which only contains \(countBefore) "
                + "items before the update"
        case .moveOutOfBounds(let index, let countBefore):
            "Invalid update: attempt to move item \(index) from section 0 which only contains \(countBefore) "
                + "items before the update"
        case .insertOutOfBounds(let index, let countAfter):
            "Invalid update: attempt to insert item \(index) into section 0, but there are only \(countAfter) "
                + "items in section 0 after the update"
        case .moveDestinationOutOfBounds(let index, let countAfter):
            "Invalid update: attempt to move an item to item \(index) of section 0, but there are only "
                + "\(countAfter) items in section 0 after the update"
        case .deleteAndMoveOfSameItem(let index):
            "Invalid update: attempt to delete and move the same item (item \(index) of section 0)"
        case .itemMovedTwice(let index):
            "Invalid update: attempt to move item \(index) of section 0 more than once"
        case .conflictingDestination(let index):
            "Invalid update: attempt to insert or move more than one item to item \(index) of section 0"
        case .updateDuringLayout:
            "Invalid update: a batch update or reload was started while the collection was laying out its cells"
        }
    }
}

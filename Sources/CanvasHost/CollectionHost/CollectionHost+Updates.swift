import Foundation

extension CollectionHost {
    /// Inserts items at `indexes` (after the update) as a batch update of its own; the data source must already
    /// count them.
    ///
    /// - Throws: ``CollectionHostError`` as ``performBatchUpdates(_:)``.
    public func insertItems(at indexes: IndexSet) throws(CollectionHostError) {
        try performBatchUpdates { $0.insertItems(at: indexes) }
    }

    /// Deletes the items at `indexes` (before the update) as a batch update of its own; the data source must already
    /// have dropped them.
    ///
    /// - Throws: ``CollectionHostError`` as ``performBatchUpdates(_:)``.
    public func deleteItems(at indexes: IndexSet) throws(CollectionHostError) {
        try performBatchUpdates { $0.deleteItems(at: indexes) }
    }

    /// Moves one item as a batch update of its own; the data source must already have moved it.
    ///
    /// - Throws: ``CollectionHostError`` as ``performBatchUpdates(_:)``.
    public func moveItem(at source: Int, to destination: Int) throws(CollectionHostError) {
        try performBatchUpdates { $0.moveItem(at: source, to: destination) }
    }
}

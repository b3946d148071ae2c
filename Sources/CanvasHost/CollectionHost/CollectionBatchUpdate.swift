import CanvasKit
import Foundation

/// The changes of one batch update, in UIKit's index spaces: deletions and move sources are indexes before the
/// update, insertions and move destinations are indexes after it.
///
/// Build it inside ``CollectionHost/performBatchUpdates(_:)``, in the same closure that changes the data.
public struct CollectionBatchUpdate: Sendable, Equatable {
    /// One move: the item at `source` before the update is at `destination` after it.
    public struct Move: Sendable, Hashable {
        /// Index before the update.
        public var source: Int
        /// Index after the update.
        public var destination: Int

        /// Creates a move.
        public init(source: Int, destination: Int) {
            self.source = source
            self.destination = destination
        }
    }

    /// Indexes (after the update) of the inserted items.
    public private(set) var insertedIndexes = IndexSet()
    /// Indexes (before the update) of the deleted items.
    public private(set) var deletedIndexes = IndexSet()
    /// The moved items, in the order they were recorded.
    public private(set) var moves: [Move] = []

    /// An empty update.
    public init() {}

    /// Records insertions at `indexes` (after the update).
    public mutating func insertItems(at indexes: IndexSet) {
        insertedIndexes.formUnion(indexes)
    }

    /// Records deletions of the items at `indexes` (before the update).
    public mutating func deleteItems(at indexes: IndexSet) {
        deletedIndexes.formUnion(indexes)
    }

    /// Records that the item at `source` (before) ends up at `destination` (after).
    public mutating func moveItem(at source: Int, to destination: Int) {
        moves.append(Move(source: source, destination: destination))
    }

    /// Whether the update records nothing.
    public var isEmpty: Bool {
        insertedIndexes.isEmpty && deletedIndexes.isEmpty && moves.isEmpty
    }

    /// Checks the update against the counts before and after it, in UIKit's order, and returns, for every index
    /// before the update, its index after it (nil for a deleted item).
    ///
    /// - Throws: ``CollectionHostError`` naming the first inconsistency.
    func indexMapping(countBefore: Int, countAfter: Int) throws(CollectionHostError) -> [Int?] {
        for index in deletedIndexes where index < 0 || index >= countBefore {
            throw .deleteOutOfBounds(index: index, countBefore: countBefore)
        }
        var sources = Set<Int>()
        for move in moves {
            guard move.source >= 0, move.source < countBefore else {
                throw .moveOutOfBounds(index: move.source, countBefore: countBefore)
            }
            guard !deletedIndexes.contains(move.source) else { throw .deleteAndMoveOfSameItem(index: move.source) }
            guard sources.insert(move.source).inserted else { throw .itemMovedTwice(index: move.source) }
        }
        guard countAfter == countBefore + insertedIndexes.count - deletedIndexes.count else {
            throw .invalidNumberOfItems(
                before: countBefore, after: countAfter,
                inserted: insertedIndexes.count, deleted: deletedIndexes.count)
        }
        for index in insertedIndexes where index < 0 || index >= countAfter {
            throw .insertOutOfBounds(index: index, countAfter: countAfter)
        }
        var taken = Set(insertedIndexes)
        for move in moves {
            guard move.destination >= 0, move.destination < countAfter else {
                throw .moveDestinationOutOfBounds(index: move.destination, countAfter: countAfter)
            }
            guard taken.insert(move.destination).inserted else {
                throw .conflictingDestination(index: move.destination)
            }
        }
        // Items neither deleted nor moved keep their relative order and fill the positions left free.
        var mapping = [Int?](repeating: nil, count: countBefore)
        for move in moves { mapping[move.source] = move.destination }
        var freePosition = 0
        for index in 0..<countBefore where !deletedIndexes.contains(index) && !sources.contains(index) {
            while taken.contains(freePosition) { freePosition += 1 }
            mapping[index] = freePosition
            freePosition += 1
        }
        return mapping
    }
}

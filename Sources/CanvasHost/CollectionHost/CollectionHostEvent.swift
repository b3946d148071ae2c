import CanvasKit

/// One step of a ``CollectionHost``'s cell lifecycle, as recorded when ``CollectionHost/recordsEvents`` is on.
///
/// Cells are named by `ObjectIdentifier`, so a log can be compared without keeping cells alive.
public enum CollectionHostEvent: Sendable, Hashable {
    /// A cell was taken for an item: made new (`reused == false`) or taken from the reuse pool.
    case dequeued(cell: ObjectIdentifier, reused: Bool)
    /// A pooled cell got `prepareForReuse()` (right after its `dequeued` event).
    case preparedForReuse(cell: ObjectIdentifier)
    /// The data source configured the cell for the item.
    case cellForItem(index: Int, cell: ObjectIdentifier)
    /// The delegate was told the cell is about to be displayed.
    case willDisplay(index: Int, cell: ObjectIdentifier)
    /// The delegate was told the cell is no longer displayed.
    case didEndDisplaying(index: Int, cell: ObjectIdentifier)
    /// The cell went to the reuse pool.
    case enqueued(cell: ObjectIdentifier)
    /// `reloadData()` ran.
    case reloadData
    /// The delegate was told the screen will disappear.
    case screenWillDisappear
    /// The delegate was told the screen did appear.
    case screenDidAppear
}

/// Counters a ``CollectionHost`` keeps from its creation.
public struct CollectionHostStatistics: Sendable, Equatable {
    /// `reloadData()` calls; a screen that updates its cells in place keeps this at zero.
    public var reloads = 0
    /// Cells made by the data source.
    public var cellsMade = 0
    /// Cells taken from the reuse pool.
    public var cellsReused = 0
    /// `cellForItem` calls.
    public var cellForItemCalls = 0
    /// `willDisplay` calls.
    public var willDisplayCalls = 0
    /// `didEndDisplaying` calls.
    public var didEndDisplayingCalls = 0
    /// Batch updates applied (refused ones are not counted).
    public var batchUpdates = 0
    /// Layout passes run.
    public var layoutPasses = 0

    /// All zero.
    public init() {}
}

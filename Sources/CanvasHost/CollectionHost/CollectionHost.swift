import CanvasKit
import Foundation
import SeededRandom

/// A headless collection view: one section of items shown through a viewport of
/// ``CollectionHostConfiguration/viewportSize`` consecutive items, reproducing `UICollectionView`'s cell lifecycle so
/// view-model code can be tested on Linux against the orders UIKit really uses.
///
/// Lifecycle of a cell, as in UIKit:
/// 1. dequeue: a new cell from ``CollectionHostDataSource/makeCell()``, or a pooled one after
///    ``CollectionHostCell/prepareForReuse()``;
/// 2. ``CollectionHostDataSource/cellForItem(at:configuring:)``;
/// 3. ``CollectionHostDelegate/willDisplay(_:at:)``; the cell is visible;
/// 4. when it leaves the viewport, its item is deleted or the data reloads:
///    ``CollectionHostDelegate/didEndDisplaying(_:at:)``, then the reuse pool.
///
/// Nothing is laid out before the first ``screenDidAppear()``. Every change of offset, batch update, reload or
/// appearance runs one layout pass; ``CollectionHostConfiguration`` decides whether cells are prefetched, whether
/// ends come late, and in which order a pass delivers its callbacks.
///
/// The host holds its data source and delegate weakly, as UIKit does (a missing data source counts as zero items).
/// It is main-actor isolated, like a `UICollectionView`: its data source and delegate are called synchronously on the
/// main actor.
@MainActor
public final class CollectionHost<DataSource: CollectionHostDataSource> {
    /// The cell type of the data source.
    public typealias Cell = DataSource.Cell

    /// The data source; held weakly, unless the host made it (see ``HeadlessCollectionView``).
    public private(set) weak var dataSource: DataSource?
    /// The data source the host made and owns, if any.
    var ownedDataSource: DataSource?
    /// The delegate; held weakly.
    public weak var delegate: (any CollectionHostDelegate<Cell>)?
    /// The layout and ordering rules, fixed at creation.
    public let configuration: CollectionHostConfiguration

    /// The item count the host believes in: queried at creation, after each batch update and on reload.
    public private(set) var numberOfItems: Int
    /// The index of the first item in the viewport (the content offset, in items).
    public private(set) var offset = 0
    /// Whether the screen is in the window (between ``screenDidAppear()`` and ``screenWillDisappear()``).
    public private(set) var isOnScreen = false
    /// Counters since creation; ``CollectionHostStatistics/reloads`` must stay zero for a screen that updates in place.
    public private(set) var statistics = CollectionHostStatistics()
    /// The last update ``performBatchUpdates(_:completion:)`` refused, if any (where UIKit raises
    /// `NSInternalInconsistencyException`, the host records the error and falls back to a counted reload).
    public internal(set) var lastBatchUpdateError: CollectionHostError?
    /// The changes recorded by the index-path calls inside the running ``performBatchUpdates(_:completion:)``.
    var recordingBatch: CollectionBatchUpdate?
    /// When true, every lifecycle step is appended to ``events``.
    public var recordsEvents = false
    /// The recorded lifecycle steps, oldest first (see ``recordsEvents``).
    public private(set) var events: [CollectionHostEvent] = []

    private var slots: [Int: HostSlot] = [:]
    private var pool: [AnyObject] = []
    private var hasAppeared = false
    private var isBusy = false
    private var needsLayout = false
    private var needsReload = false
    private var generator: SplitMix64?

    /// Creates a host showing `dataSource`'s items, queries their count once, and lays out nothing until the first
    /// ``screenDidAppear()``.
    public init(dataSource: DataSource, configuration: CollectionHostConfiguration) {
        self.dataSource = dataSource
        self.configuration = configuration
        self.numberOfItems = max(0, dataSource.numberOfItems())
        if case .shuffled(let seed) = configuration.callbackOrder {
            generator = SplitMix64(seed: seed)
        }
    }

    // MARK: Queries

    /// The indexes of the items in the viewport.
    public var visibleRange: Range<Int> {
        offset..<min(offset + configuration.viewportSize, numberOfItems)
    }

    /// The displayed cells (between `willDisplay` and `didEndDisplaying`) that are in the viewport, by index.
    public var visibleCells: [(index: Int, cell: Cell)] {
        visibleRange.compactMap { index in
            guard let slot = slots[index], slot.phase == .displayed else { return nil }
            return (index, cell(of: slot))
        }
    }

    /// Every cell that has had `willDisplay` and not yet `didEndDisplaying` (in prefetching mode this includes cells
    /// that left the viewport and whose end is pending), by index.
    public var displayedCells: [(index: Int, cell: Cell)] {
        slots.filter { $0.value.phase != .prepared }.sorted { $0.key < $1.key }.map { ($0.key, cell(of: $0.value)) }
    }

    /// The cell displayed for the item at `index`, if it is displayed.
    public func displayedCell(at index: Int) -> Cell? {
        guard let slot = slots[index], slot.phase != .prepared else { return nil }
        return cell(of: slot)
    }

    /// Cells configured for an item (displayed or prefetched), not in the pool.
    public var attachedCellCount: Int { slots.count }

    /// Cells waiting in the reuse pool.
    public var pooledCellCount: Int { pool.count }

    /// Forgets the recorded ``events``.
    public func removeAllEvents() {
        events.removeAll()
    }

    // MARK: Scrolling

    /// Scrolls so the viewport starts at `offset` (clamped to the content) and runs a layout pass.
    public func scroll(toOffset offset: Int) {
        self.offset = clampedOffset(offset)
        layoutIfPossible()
    }

    /// Scrolls by `delta` items (negative scrolls back) and runs a layout pass.
    public func scroll(by delta: Int) {
        scroll(toOffset: offset + delta)
    }

    /// Scrolls the least needed to bring the item at `index` into the viewport and runs a layout pass.
    public func scrollToItem(at index: Int) {
        if index < offset {
            scroll(toOffset: index)
        } else if index >= offset + configuration.viewportSize {
            scroll(toOffset: index - configuration.viewportSize + 1)
        } else {
            scroll(toOffset: offset)
        }
    }

    // MARK: Screen

    /// The screen leaves the window. With ``CollectionHostConfiguration/Disappearance/keepsCellsDisplayed`` (UIKit)
    /// the cells stay displayed; with ``CollectionHostConfiguration/Disappearance/endsDisplayingVisibleCells`` each
    /// displayed cell gets `didEndDisplaying` first. Then the delegate gets `screenWillDisappear()`. Does nothing if
    /// the screen is not on screen.
    public func screenWillDisappear() {
        guard isOnScreen else { return }
        isOnScreen = false
        if configuration.disappearance == .endsDisplayingVisibleCells { layoutIfPossible() }
        record(.screenWillDisappear)
        delegate?.screenWillDisappear()
    }

    /// The screen enters the window: the visible cells are laid out (the first time, dequeued and configured), then
    /// the delegate gets `screenDidAppear()`. Does nothing if the screen is already on screen.
    public func screenDidAppear() {
        guard !isOnScreen else { return }
        isOnScreen = true
        hasAppeared = true
        layoutIfPossible()
        record(.screenDidAppear)
        delegate?.screenDidAppear()
    }

    // MARK: Reload and batch updates

    /// Throws everything away and asks the data source again: every displayed cell ends, every cell goes to the
    /// pool, the count is queried, the viewport is laid out anew. Counted in ``CollectionHostStatistics/reloads``;
    /// a screen that updates its cells in place never needs it. Called from inside a host callback, it runs right
    /// after the current layout pass.
    public func reloadData() {
        statistics.reloads += 1
        record(.reloadData)
        if isBusy {
            needsReload = true
            return
        }
        performReload()
    }

    /// Applies one batch update, UIKit style: `updates` changes the data source and records the matching changes in
    /// the ``CollectionBatchUpdate`` it is given. The host then queries the new count, checks it against its cached
    /// count and the recorded changes, moves the cells of surviving items to their new indexes without
    /// reconfiguring them, ends and recycles the cells of deleted items (reported at their old index), and runs a
    /// layout pass that configures and displays items that became visible.
    ///
    /// - Throws: ``CollectionHostError`` (UIKit's `NSInternalInconsistencyException` cases, such as
    ///   ``CollectionHostError/invalidNumberOfItems(before:after:inserted:deleted:)``) when the update does not add
    ///   up, or ``CollectionHostError/updateDuringLayout`` when called from a host callback. Nothing is delivered
    ///   and the host keeps its previous state when it throws.
    public func performBatchUpdates(_ updates: (inout CollectionBatchUpdate) -> Void) throws(CollectionHostError) {
        guard !isBusy else { throw .updateDuringLayout }
        var batch = CollectionBatchUpdate()
        isBusy = true
        updates(&batch)
        isBusy = false
        let countAfter = max(0, dataSource?.numberOfItems() ?? 0)
        let mapping = try batch.indexMapping(countBefore: numberOfItems, countAfter: countAfter)
        var moved: [Int: HostSlot] = [:]
        var deleted: [HostOperation] = []
        for (index, slot) in slots.sorted(by: { $0.key < $1.key }) {
            if let newIndex = mapping[index] {
                moved[newIndex] = slot
            } else if slot.phase == .prepared {
                recycle(slot.object)
            } else {
                deleted.append(.endDeleted(cell: slot.object, index: index))
            }
        }
        slots = moved
        numberOfItems = countAfter
        offset = clampedOffset(offset)
        statistics.batchUpdates += 1
        if hasAppeared {
            runLayout(deleted: deleted)
        } else {
            for case .endDeleted(let object, _) in deleted { recycle(object) }
        }
    }

    /// The data source changed (a new adapter): the count is queried again and, once laid out, every cell is thrown
    /// away and the viewport laid out anew, as UIKit does when its data source is set (not counted as a reload).
    func dataSourceDidChange() {
        guard hasAppeared else {
            numberOfItems = max(0, dataSource?.numberOfItems() ?? 0)
            return
        }
        performReload()
    }

    // MARK: Layout

    private func clampedOffset(_ offset: Int) -> Int {
        min(max(0, offset), max(0, numberOfItems - configuration.viewportSize))
    }

    /// Whether displayed cells are shown at all: not before the first appearance, and not while off screen when the
    /// host ends displaying on disappearance.
    private var showsCells: Bool {
        hasAppeared && (isOnScreen || configuration.disappearance == .keepsCellsDisplayed)
    }

    private func layoutIfPossible() {
        guard hasAppeared else { return }
        if isBusy {
            needsLayout = true
            return
        }
        runLayout(deleted: [])
    }

    private func runLayout(deleted: [HostOperation]) {
        var pendingDeleted = deleted
        repeat {
            needsLayout = false
            layoutPass(deleted: pendingDeleted)
            pendingDeleted = []
            if needsReload {
                needsReload = false
                performReload()
            }
        } while needsLayout
    }

    private func performReload() {
        isBusy = true
        let ordered = slots.sorted { $0.key < $1.key }
        slots = [:]
        for (index, slot) in ordered {
            if slot.phase != .prepared { deliverEnd(cell(of: slot), at: index) }
            recycle(slot.object)
        }
        isBusy = false
        numberOfItems = max(0, dataSource?.numberOfItems() ?? 0)
        offset = clampedOffset(offset)
        layoutIfPossible()
    }

    private func layoutPass(deleted: [HostOperation]) {
        isBusy = true
        defer { isBusy = false }
        statistics.layoutPasses += 1
        let visible = visibleRange
        let display = showsCells ? visible : visible.lowerBound..<visible.lowerBound
        let distance = configuration.prefetchDistance
        let retain = max(0, visible.lowerBound - distance)..<min(numberOfItems, visible.upperBound + distance)
        // Ends are late only while cells are shown; a disappearing stricter host ends its cells at once.
        let lateEnds = configuration.deliversLateEnds && showsCells

        var operations = deleted
        for (index, slot) in slots.sorted(by: { $0.key < $1.key }) {
            switch slot.phase {
            case .endPending:
                operations.append(display.contains(index) ? .redisplay(index: index) : .end(index: index))
            case .displayed where !display.contains(index):
                if lateEnds {
                    slots[index]?.phase = .endPending
                } else {
                    operations.append(.end(index: index))
                }
            case .displayed:
                break
            case .prepared where display.contains(index):
                operations.append(.display(index: index))
            case .prepared:
                break
            }
        }
        for index in display where slots[index] == nil {
            operations.append(.display(index: index))
        }
        for index in retain where slots[index] == nil && !display.contains(index) {
            operations.append(.prefetch(index: index))
        }
        if var generator {
            operations.shuffle(using: &generator)
            self.generator = generator
        } else {
            // Ends first (so their cells can be reused in this pass), then displays and prefetches by index.
            var ends: [HostOperation] = []
            var others: [HostOperation] = []
            for operation in operations {
                if operation.isEnd { ends.append(operation) } else { others.append(operation) }
            }
            operations = ends + others
        }
        for operation in operations {
            perform(operation, retain: retain)
        }
        // Prefetched or ended cells that drifted out of the prefetch range go back to the pool.
        let drifted = slots.filter { $0.value.phase == .prepared && !retain.contains($0.key) }
        for (index, slot) in drifted.sorted(by: { $0.key < $1.key }) {
            slots[index] = nil
            recycle(slot.object)
        }
    }

    private func perform(_ operation: HostOperation, retain: Range<Int>) {
        switch operation {
        case .endDeleted(let object, let index):
            deliverEnd(unsafeDowncast(object, to: Cell.self), at: index)
            recycle(object)
        case .end(let index):
            guard let slot = slots[index] else { return }
            slots[index]?.phase = .prepared
            deliverEnd(cell(of: slot), at: index)
            if !retain.contains(index), slots[index]?.object === slot.object {
                slots[index] = nil
                recycle(slot.object)
            }
        case .display(let index):
            let cell: Cell
            if let slot = slots[index] {
                cell = self.cell(of: slot)
            } else {
                guard let configured = dequeueAndConfigure(at: index) else { return }
                cell = configured
            }
            slots[index] = HostSlot(object: cell, phase: .displayed)
            deliverWillDisplay(cell, at: index)
        case .redisplay(let index):
            guard let slot = slots[index] else { return }
            slots[index]?.phase = .displayed
            deliverWillDisplay(cell(of: slot), at: index)
        case .prefetch(let index):
            guard slots[index] == nil, let cell = dequeueAndConfigure(at: index) else { return }
            slots[index] = HostSlot(object: cell, phase: .prepared)
        }
    }

    private func dequeueAndConfigure(at index: Int) -> Cell? {
        guard let dataSource else { return nil }
        let cell: Cell
        if let pooled = pool.popLast() {
            cell = unsafeDowncast(pooled, to: Cell.self)
            statistics.cellsReused += 1
            record(.dequeued(cell: ObjectIdentifier(cell), reused: true))
            cell.prepareForReuse()
            record(.preparedForReuse(cell: ObjectIdentifier(cell)))
        } else {
            cell = dataSource.makeCell()
            statistics.cellsMade += 1
            record(.dequeued(cell: ObjectIdentifier(cell), reused: false))
        }
        statistics.cellForItemCalls += 1
        record(.cellForItem(index: index, cell: ObjectIdentifier(cell)))
        dataSource.cellForItem(at: index, configuring: cell)
        return cell
    }

    private func deliverWillDisplay(_ cell: Cell, at index: Int) {
        statistics.willDisplayCalls += 1
        record(.willDisplay(index: index, cell: ObjectIdentifier(cell)))
        delegate?.willDisplay(cell, at: index)
    }

    private func deliverEnd(_ cell: Cell, at index: Int) {
        statistics.didEndDisplayingCalls += 1
        record(.didEndDisplaying(index: index, cell: ObjectIdentifier(cell)))
        delegate?.didEndDisplaying(cell, at: index)
    }

    private func recycle(_ object: AnyObject) {
        pool.append(object)
        record(.enqueued(cell: ObjectIdentifier(object)))
    }

    /// The slot's cell with its type. Safe: slots and the pool only ever hold cells made by the data source.
    private func cell(of slot: HostSlot) -> Cell {
        unsafeDowncast(slot.object, to: Cell.self)
    }

    private func record(_ event: CollectionHostEvent) {
        if recordsEvents { events.append(event) }
    }
}

// The host's bookkeeping is not generic: cells are stored as `AnyObject` (every stored object is a `Cell` made by the
// data source, and is typed again on the way out), so the dictionaries and arrays of a layout pass use concrete,
// specialized code instead of generic code called through metadata from another module, which cost several
// microseconds per pass.

/// Where a cell attached to an item is in its lifecycle.
private enum HostPhase {
    /// Configured by `cellForItem`, not displayed (prefetched, or displayed earlier and ended).
    case prepared
    /// Displayed (got `willDisplay`, no `didEndDisplaying` since).
    case displayed
    /// Left the viewport; its `didEndDisplaying` is delivered at the next pass (prefetching mode).
    case endPending
}

/// A cell attached to an item.
private struct HostSlot {
    let object: AnyObject
    var phase: HostPhase
}

/// One callback of a layout pass.
private enum HostOperation {
    case end(index: Int)
    case endDeleted(cell: AnyObject, index: Int)
    case display(index: Int)
    case redisplay(index: Int)
    case prefetch(index: Int)

    var isEnd: Bool {
        switch self {
        case .end, .endDeleted: true
        case .display, .redisplay, .prefetch: false
        }
    }
}

import CanvasHost
import CanvasKit
import Foundation
import SeededRandom
import Testing

// MARK: Test support

/// A cell that shows one string and counts its reuses.
@MainActor
private final class TextCell: CollectionHostCell {
    var text: String?
    var reuseCount = 0

    func prepareForReuse() {
        reuseCount += 1
        text = nil
    }
}

/// A data source over an array of strings; the array is changed by the tests, inside batch updates.
@MainActor
private final class ListDataSource: CollectionHostDataSource {
    var items: [String]

    init(count: Int) {
        items = (0..<count).map { "item \($0)" }
    }

    func numberOfItems() -> Int { items.count }
    func makeCell() -> TextCell { TextCell() }
    func cellForItem(at index: Int, configuring cell: TextCell) {
        cell.text = items[index]
    }
}

/// A delegate that checks the pairing of display callbacks and collects anything unexpected.
@MainActor
private final class DisplayRecorder: CollectionHostDelegate {
    var displayed: [ObjectIdentifier: Int] = [:]
    var problems: [String] = []
    var repeatedWillDisplays = 0
    var disappearances = 0
    var appearances = 0
    var onWillDisplay: ((TextCell, Int) -> Void)?

    func willDisplay(_ cell: TextCell, at index: Int) {
        if displayed[ObjectIdentifier(cell)] != nil { repeatedWillDisplays += 1 }
        displayed[ObjectIdentifier(cell)] = index
        if cell.text == nil { problems.append("willDisplay of an unconfigured cell at \(index)") }
        onWillDisplay?(cell, index)
    }

    func didEndDisplaying(_ cell: TextCell, at index: Int) {
        if displayed.removeValue(forKey: ObjectIdentifier(cell)) == nil {
            problems.append("didEndDisplaying without willDisplay at \(index)")
        }
    }

    func screenWillDisappear() { disappearances += 1 }
    func screenDidAppear() { appearances += 1 }
}

/// A host with its data source and delegate kept alive together.
@MainActor
private struct Fixture {
    let dataSource: ListDataSource
    let recorder = DisplayRecorder()
    let host: CollectionHost<ListDataSource>

    init(count: Int, _ configuration: CollectionHostConfiguration, recording: Bool = true) {
        dataSource = ListDataSource(count: count)
        host = CollectionHost(dataSource: dataSource, configuration: configuration)
        host.delegate = recorder
        host.recordsEvents = recording
    }

    /// The structural invariants that hold after every host operation in every mode.
    func checkInvariants(sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(recorder.problems.isEmpty, sourceLocation: sourceLocation)
        for (index, cell) in host.visibleCells {
            #expect(cell.text == dataSource.items[index], "cell at \(index)", sourceLocation: sourceLocation)
            #expect(recorder.displayed[ObjectIdentifier(cell)] != nil, sourceLocation: sourceLocation)
        }
        let displayedByHost = Set(host.displayedCells.map { ObjectIdentifier($0.cell) })
        #expect(displayedByHost == Set(recorder.displayed.keys), sourceLocation: sourceLocation)
        let stats = host.statistics
        #expect(host.attachedCellCount + host.pooledCellCount == stats.cellsMade, sourceLocation: sourceLocation)
        #expect(stats.reloads == 0, sourceLocation: sourceLocation)
    }
}

private func ids(_ cells: [(index: Int, cell: TextCell)]) -> [ObjectIdentifier] {
    cells.map { ObjectIdentifier($0.cell) }
}

// MARK: Tests

@Suite("Collection host: UIKit cell lifecycle")
@MainActor
struct CollectionHostTests {
    @Test("nothing is laid out before the first appearance; then dequeue, cellForItem, willDisplay per item")
    func firstAppearance() {
        let fixture = Fixture(count: 10, .init(viewportSize: 3))
        #expect(fixture.host.events.isEmpty)
        #expect(fixture.host.visibleCells.isEmpty)
        fixture.host.screenDidAppear()
        let cells = ids(fixture.host.visibleCells)
        #expect(cells.count == 3)
        var expected: [CollectionHostEvent] = []
        for (index, cell) in cells.enumerated() {
            expected += [
                .dequeued(cell: cell, reused: false), .cellForItem(index: index, cell: cell),
                .willDisplay(index: index, cell: cell),
            ]
        }
        expected.append(.screenDidAppear)
        #expect(fixture.host.events == expected)
        #expect(fixture.recorder.appearances == 1)
        fixture.checkInvariants()
    }

    @Test("a cell scrolled off ends, goes to the pool, and is reused after prepareForReuse")
    func scrollingReusesAfterEnding() throws {
        let fixture = Fixture(count: 10, .init(viewportSize: 3))
        fixture.host.screenDidAppear()
        let first = try #require(fixture.host.displayedCell(at: 0))
        fixture.host.removeAllEvents()
        fixture.host.scroll(by: 1)
        let id = ObjectIdentifier(first)
        #expect(
            fixture.host.events == [
                .didEndDisplaying(index: 0, cell: id), .enqueued(cell: id), .dequeued(cell: id, reused: true),
                .preparedForReuse(cell: id), .cellForItem(index: 3, cell: id), .willDisplay(index: 3, cell: id),
            ])
        #expect(first.reuseCount == 1)
        #expect(first.text == "item 3")
        #expect(fixture.host.visibleRange == 1..<4)
        fixture.checkInvariants()
    }

    @Test("scrolling end to end and back makes only viewport-many cells")
    func scrollingEndToEnd() {
        let fixture = Fixture(count: 50, .init(viewportSize: 4), recording: false)
        fixture.host.screenDidAppear()
        for _ in 0..<60 {
            fixture.host.scroll(by: 1)
            fixture.checkInvariants()
        }
        #expect(fixture.host.offset == 46)
        fixture.host.scrollToItem(at: 0)
        #expect(fixture.host.offset == 0)
        fixture.host.scrollToItem(at: 20)
        #expect(fixture.host.visibleRange == 17..<21)
        fixture.checkInvariants()
        #expect(fixture.host.statistics.cellsMade == 4)
        #expect(fixture.host.statistics.willDisplayCalls == fixture.host.statistics.cellForItemCalls)
    }

    @Test("prefetching configures ahead, ends late, and redisplays without a new cellForItem")
    func prefetching() throws {
        let fixture = Fixture(count: 20, .init(viewportSize: 2, prefetching: .enabled(distance: 1)))
        let host = fixture.host
        host.screenDidAppear()
        // Items 0 and 1 displayed, item 2 configured but not displayed.
        #expect(host.visibleCells.map(\.index) == [0, 1])
        #expect(host.attachedCellCount == 3)
        #expect(host.statistics.cellForItemCalls == 3)
        #expect(host.statistics.willDisplayCalls == 2)

        host.removeAllEvents()
        host.scroll(by: 1)
        let cellForItems = host.events.compactMap { if case .cellForItem(let i, _) = $0 { i } else { nil } }
        #expect(cellForItems == [3], "item 2 was prefetched, item 3 is the new prefetch")
        #expect(host.events.contains { if case .willDisplay(2, _) = $0 { true } else { false } })
        #expect(!host.events.contains { if case .didEndDisplaying = $0 { true } else { false } }, "end is late")
        let zero = try #require(host.displayedCell(at: 0), "item 0 still awaits its end")
        #expect(!host.visibleCells.contains { $0.cell === zero })

        host.removeAllEvents()
        host.scroll(by: 0)
        #expect(
            host.events == [.didEndDisplaying(index: 0, cell: ObjectIdentifier(zero))], "late end, kept for prefetch")
        fixture.checkInvariants()

        host.removeAllEvents()
        host.scroll(by: -1)
        #expect(host.displayedCell(at: 0) === zero)
        #expect(!host.events.contains { if case .cellForItem(0, _) = $0 { true } else { false } })
        #expect(host.events.contains(.willDisplay(index: 0, cell: ObjectIdentifier(zero))))
        fixture.checkInvariants()
    }

    @Test("prefetching: a prefetched cell may never be displayed, a pending end may meet a second willDisplay")
    func prefetchingEdgeCases() throws {
        let fixture = Fixture(count: 30, .init(viewportSize: 2, prefetching: .enabled(distance: 2)))
        let host = fixture.host
        host.screenDidAppear()
        let prefetched = try #require(
            host.events.compactMap { event -> ObjectIdentifier? in
                if case .cellForItem(3, let cell) = event { cell } else { nil }
            }.first)
        host.scroll(toOffset: 20)
        host.scroll(by: 0)
        let prefetchedEvents = host.events.filter {
            switch $0 {
            case .willDisplay(_, let cell), .didEndDisplaying(_, let cell): cell == prefetched
            default: false
            }
        }
        #expect(prefetchedEvents.isEmpty, "configured for item 3, recycled without being displayed")
        fixture.checkInvariants()

        // Scroll away and straight back: the cell whose end is pending is displayed again, with no end between.
        let before = fixture.recorder.repeatedWillDisplays
        host.scroll(by: 1)
        host.scroll(by: -1)
        #expect(fixture.recorder.repeatedWillDisplays == before + 1)
        fixture.checkInvariants()
    }

    @Test("shuffled order: same callbacks as index order, a different order, reproducible per seed")
    func shuffledOrder() {
        func run(_ order: CollectionHostConfiguration.CallbackOrder) -> (events: [CollectionHostEvent], texts: [String])
        {
            let fixture = Fixture(count: 40, .init(viewportSize: 6, callbackOrder: order))
            fixture.host.screenDidAppear()
            for step in [3, 4, -2, 9, 1, -5] {
                fixture.host.scroll(by: step)
                fixture.checkInvariants()
            }
            let normalized = fixture.host.events.compactMap { event -> CollectionHostEvent? in
                switch event {
                case .willDisplay(let index, _): .willDisplay(index: index, cell: ObjectIdentifier(TextCell.self))
                case .didEndDisplaying(let index, _):
                    .didEndDisplaying(index: index, cell: ObjectIdentifier(TextCell.self))
                default: nil
                }
            }
            return (normalized, fixture.host.visibleCells.map { $0.cell.text ?? "" })
        }
        let ordered = run(.indexOrder)
        let shuffled = run(.shuffled(seed: 7))
        let again = run(.shuffled(seed: 7))
        #expect(Set(ordered.events) == Set(shuffled.events))
        #expect(ordered.events.count == shuffled.events.count)
        #expect(ordered.events != shuffled.events)
        #expect(shuffled.events == again.events)
        #expect(ordered.texts == shuffled.texts)
    }

    @Test("reloadData is counted, ends every displayed cell and reconfigures the viewport")
    func reloadIsCounted() {
        let fixture = Fixture(count: 10, .init(viewportSize: 3))
        fixture.host.screenDidAppear()
        #expect(fixture.host.statistics.reloads == 0)
        fixture.dataSource.items[1] = "changed"
        fixture.host.reloadData()
        #expect(fixture.host.statistics.reloads == 1)
        #expect(fixture.host.statistics.didEndDisplayingCalls == 3)
        #expect(fixture.host.visibleCells.map { $0.cell.text } == ["item 0", "changed", "item 2"])
        #expect(fixture.recorder.problems.isEmpty)
    }

    @Test("UIKit disappearance keeps cells displayed; the stricter host ends and redisplays them")
    func disappearance() {
        let uikit = Fixture(count: 10, .init(viewportSize: 3))
        uikit.host.screenDidAppear()
        uikit.host.removeAllEvents()
        uikit.host.screenWillDisappear()
        #expect(uikit.host.events == [.screenWillDisappear])
        #expect(uikit.recorder.disappearances == 1)
        uikit.host.screenDidAppear()
        #expect(uikit.host.events == [.screenWillDisappear, .screenDidAppear])
        uikit.checkInvariants()

        let strict = Fixture(count: 10, .init(viewportSize: 3, disappearance: .endsDisplayingVisibleCells))
        strict.host.screenDidAppear()
        strict.host.removeAllEvents()
        strict.host.screenWillDisappear()
        #expect(strict.host.events.filter { if case .didEndDisplaying = $0 { true } else { false } }.count == 3)
        #expect(strict.host.events.last == .screenWillDisappear)
        #expect(strict.recorder.displayed.isEmpty)
        strict.host.scroll(by: 2)
        #expect(strict.recorder.displayed.isEmpty, "nothing is displayed while off screen")
        strict.host.removeAllEvents()
        strict.host.screenDidAppear()
        #expect(strict.host.visibleCells.count == 3)
        #expect(strict.host.events.last == .screenDidAppear)
        #expect(strict.host.events.filter { if case .willDisplay = $0 { true } else { false } }.count == 3)
        #expect(!strict.host.events.contains { if case .cellForItem = $0 { true } else { false } })
        strict.checkInvariants()
    }
}

@Suite("Collection host: batch updates")
@MainActor
struct CollectionHostBatchUpdateTests {
    @Test("an insertion in the viewport configures only the new item; surviving cells move without cellForItem")
    func insertion() throws {
        let fixture = Fixture(count: 6, .init(viewportSize: 3))
        let host = fixture.host
        host.screenDidAppear()
        let zero = try #require(host.displayedCell(at: 0))
        let one = try #require(host.displayedCell(at: 1))
        let two = try #require(host.displayedCell(at: 2))
        host.removeAllEvents()
        try host.performBatchUpdates { batch in
            fixture.dataSource.items.insert("new", at: 1)
            batch.insertItems(at: [1])
        }
        #expect(host.displayedCell(at: 0) === zero)
        #expect(host.displayedCell(at: 2) === one)
        #expect(host.visibleCells.map { $0.cell.text } == ["item 0", "new", "item 1"])
        let cellForItems = host.events.compactMap { if case .cellForItem(let i, _) = $0 { i } else { nil } }
        #expect(cellForItems == [1])
        #expect(host.events.contains(.didEndDisplaying(index: 3, cell: ObjectIdentifier(two))), "pushed out, new index")
        #expect(host.numberOfItems == 7)
        #expect(host.statistics.batchUpdates == 1)
        fixture.checkInvariants()
    }

    @Test("a deletion ends the deleted item's cell at its old index and fills the viewport")
    func deletion() throws {
        let fixture = Fixture(count: 6, .init(viewportSize: 3))
        let host = fixture.host
        host.screenDidAppear()
        let one = try #require(host.displayedCell(at: 1))
        host.removeAllEvents()
        try host.performBatchUpdates { batch in
            fixture.dataSource.items.remove(at: 1)
            batch.deleteItems(at: [1])
        }
        #expect(host.events.first == .didEndDisplaying(index: 1, cell: ObjectIdentifier(one)))
        #expect(host.visibleCells.map { $0.cell.text } == ["item 0", "item 2", "item 3"])
        fixture.checkInvariants()
    }

    @Test("moves, inserts and deletes together follow UIKit's index spaces")
    func combined() throws {
        let fixture = Fixture(count: 8, .init(viewportSize: 8))
        let host = fixture.host
        host.screenDidAppear()
        try host.performBatchUpdates { batch in
            // before: 0 1 2 3 4 5 6 7 ; delete 2, move 0 -> last, insert "x" at 1
            var items = fixture.dataSource.items
            items.remove(at: 2)
            let first = items.removeFirst()
            items.append(first)
            items.insert("x", at: 1)
            fixture.dataSource.items = items
            batch.deleteItems(at: [2])
            batch.moveItem(at: 0, to: 7)
            batch.insertItems(at: [1])
        }
        #expect(
            fixture.dataSource.items == ["item 1", "x", "item 3", "item 4", "item 5", "item 6", "item 7", "item 0"])
        #expect(host.visibleCells.map { $0.cell.text } == fixture.dataSource.items)
        fixture.checkInvariants()
    }

    @Test("counts that do not add up raise UIKit's invalid-number-of-items error, and nothing happens")
    func invalidNumberOfItems() throws {
        let fixture = Fixture(count: 5, .init(viewportSize: 3))
        let host = fixture.host
        host.screenDidAppear()
        host.removeAllEvents()
        let error = #expect(throws: CollectionHostError.self) {
            try host.performBatchUpdates { _ in fixture.dataSource.items.append("unannounced") }
        }
        #expect(error == .invalidNumberOfItems(before: 5, after: 6, inserted: 0, deleted: 0))
        #expect(
            error?.description
                == "Invalid update: invalid number of items in section 0. The number of items contained in an "
                + "existing section after the update (6) must be equal to the number of items contained in that "
                + "section before the update (5), plus or minus the number of items inserted or deleted from that "
                + "section (0 inserted, 0 deleted) and plus or minus the number of items moved into or out of that "
                + "section (0 moved in, 0 moved out).")
        #expect(host.events.isEmpty)
        #expect(host.numberOfItems == 5)
        #expect(host.statistics.batchUpdates == 0)

        // A data change made outside any update is caught at the next update, which counts it wrongly.
        fixture.dataSource.items.removeAll()
        #expect(throws: CollectionHostError.invalidNumberOfItems(before: 5, after: 1, inserted: 1, deleted: 0)) {
            try host.performBatchUpdates { batch in
                fixture.dataSource.items = ["only"]
                batch.insertItems(at: [0])
            }
        }
    }

    @Test(
        "out-of-bounds and conflicting changes raise UIKit's errors",
        arguments: [
            (CollectionBatchUpdate.deleting(9), 4, CollectionHostError.deleteOutOfBounds(index: 9, countBefore: 5)),
            (.moving(7, to: 0), 5, .moveOutOfBounds(index: 7, countBefore: 5)),
            (.inserting(8), 6, .insertOutOfBounds(index: 8, countAfter: 6)),
            (.moving(1, to: 6), 5, .moveDestinationOutOfBounds(index: 6, countAfter: 5)),
            (.deleting(1).moving(1, to: 0), 4, .deleteAndMoveOfSameItem(index: 1)),
            (.moving(1, to: 0).moving(1, to: 2), 5, .itemMovedTwice(index: 1)),
            (.inserting(2).moving(0, to: 2), 6, .conflictingDestination(index: 2)),
        ])
    func invalidUpdates(update: CollectionBatchUpdate, countAfter: Int, error: CollectionHostError) {
        let fixture = Fixture(count: 5, .init(viewportSize: 3))
        fixture.host.screenDidAppear()
        #expect(throws: error) {
            try fixture.host.performBatchUpdates { batch in
                fixture.dataSource.items = (0..<countAfter).map { "after \($0)" }
                batch = update
            }
        }
        #expect(fixture.host.numberOfItems == 5)
    }

    @Test("a batch update started from a display callback is refused")
    func updateDuringLayout() throws {
        let fixture = Fixture(count: 10, .init(viewportSize: 2))
        var caught: CollectionHostError?
        fixture.recorder.onWillDisplay = { _, _ in
            do throws(CollectionHostError) {
                try fixture.host.performBatchUpdates { _ in }
            } catch {
                caught = error
            }
        }
        fixture.host.screenDidAppear()
        #expect(caught == .updateDuringLayout)
    }

    @Test("a scroll or a reload requested from a display callback runs right after the current pass")
    func reentrantScrollAndReload() throws {
        let fixture = Fixture(count: 20, .init(viewportSize: 3))
        var requested = false
        // The recorder holds this closure, so it holds the host weakly: capturing `fixture` (which holds the recorder)
        // made a cycle that LeakSanitizer reported.
        fixture.recorder.onWillDisplay = { [weak host = fixture.host] _, index in
            guard index == 3, !requested, let host else { return }
            requested = true
            host.scroll(toOffset: 10)
            host.reloadData()
        }
        fixture.host.screenDidAppear()
        fixture.host.scroll(by: 1)
        #expect(requested)
        #expect(fixture.host.visibleRange == 10..<13)
        #expect(fixture.host.visibleCells.map { $0.cell.text } == ["item 10", "item 11", "item 12"])
        #expect(fixture.host.statistics.reloads == 1)
        #expect(fixture.recorder.problems.isEmpty)
        #expect(
            Set(fixture.recorder.displayed.keys) == Set(fixture.host.displayedCells.map { ObjectIdentifier($0.cell) }))
    }

    @Test("updates before the first appearance only change the count", arguments: [false, true])
    func updatesBeforeAppearance(prefetching: Bool) throws {
        let configuration = CollectionHostConfiguration(
            viewportSize: 3, prefetching: prefetching ? .enabled(distance: 2) : .disabled)
        let fixture = Fixture(count: 2, configuration)
        try fixture.host.performBatchUpdates { batch in
            fixture.dataSource.items += ["a", "b"]
            batch.insertItems(at: [2, 3])
        }
        #expect(fixture.host.events.isEmpty)
        fixture.host.screenDidAppear()
        #expect(fixture.host.visibleCells.map { $0.cell.text } == ["item 0", "item 1", "a"])
        fixture.checkInvariants()
    }
}

@Suite("Collection host: randomized sequences")
@MainActor
struct CollectionHostFuzzTests {
    nonisolated static let configurations: [CollectionHostConfiguration] = [
        .init(viewportSize: 4),
        .init(viewportSize: 4, prefetching: .enabled(distance: 2)),
        .init(viewportSize: 3, callbackOrder: .shuffled(seed: 11)),
        .init(viewportSize: 5, prefetching: .enabled(distance: 1), callbackOrder: .shuffled(seed: 3)),
        .init(viewportSize: 4, disappearance: .endsDisplayingVisibleCells),
        .init(
            viewportSize: 2, prefetching: .enabled(distance: 3), callbackOrder: .shuffled(seed: 5),
            disappearance: .endsDisplayingVisibleCells),
    ]

    @Test("scrolls, updates and appearances keep every invariant", arguments: configurations)
    func randomSequences(configuration: CollectionHostConfiguration) throws {
        for seed in UInt64(1)...20 {
            var random = SplitMix64(seed: seed)
            let fixture = Fixture(count: Int.random(in: 0...12, using: &random), configuration, recording: false)
            let host = fixture.host
            host.screenDidAppear()
            var serial = 0
            for _ in 0..<120 {
                let count = fixture.dataSource.items.count
                switch Int.random(in: 0..<10, using: &random) {
                case 0...2: host.scroll(by: Int.random(in: -3...3, using: &random))
                case 3: host.scrollToItem(at: Int.random(in: 0...max(0, count), using: &random))
                case 4, 5:
                    let at = Int.random(in: 0...count, using: &random)
                    serial += 1
                    try host.performBatchUpdates { batch in
                        fixture.dataSource.items.insert("new \(serial)", at: at)
                        batch.insertItems(at: [at])
                    }
                case 6 where count > 0:
                    let at = Int.random(in: 0..<count, using: &random)
                    try host.performBatchUpdates { batch in
                        fixture.dataSource.items.remove(at: at)
                        batch.deleteItems(at: [at])
                    }
                case 7 where count > 1:
                    let from = Int.random(in: 0..<count, using: &random)
                    let to = Int.random(in: 0..<count, using: &random)
                    try host.performBatchUpdates { batch in
                        fixture.dataSource.items.insert(fixture.dataSource.items.remove(at: from), at: to)
                        batch.moveItem(at: from, to: to)
                    }
                case 8: host.screenWillDisappear()
                default: host.screenDidAppear()
                }
                fixture.checkInvariants()
                if host.isOnScreen {
                    #expect(host.visibleCells.count == host.visibleRange.count)
                }
            }
        }
    }
}

extension CollectionBatchUpdate {
    fileprivate static func deleting(_ index: Int) -> Self { Self().deleting(index) }
    fileprivate static func inserting(_ index: Int) -> Self { Self().inserting(index) }
    fileprivate static func moving(_ source: Int, to destination: Int) -> Self {
        Self().moving(source, to: destination)
    }

    fileprivate func deleting(_ index: Int) -> Self {
        var copy = self
        copy.deleteItems(at: [index])
        return copy
    }

    fileprivate func inserting(_ index: Int) -> Self {
        var copy = self
        copy.insertItems(at: [index])
        return copy
    }

    fileprivate func moving(_ source: Int, to destination: Int) -> Self {
        var copy = self
        copy.moveItem(at: source, to: destination)
        return copy
    }
}

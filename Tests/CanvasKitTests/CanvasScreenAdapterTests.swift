import CanvasKit
import Dispatch
import Foundation
import Testing

/// The base cell class of ``RecordingCollectionView`` (its `UICollectionViewCell`).
@MainActor
private class BaseCell {
    required init() {}
}

/// The app's cell: records what the adapter tells it.
private final class RecordingCell: BaseCell, CanvasScreenCell {
    var display: CanvasDisplay?
    var hostsPreview = false
    func draw(_ display: CanvasDisplay?) { self.display = display }
    func draw(_ cover: CoverImage?) {}
    func setHostsPreview(_ hostsPreview: Bool) { self.hostsPreview = hostsPreview }
}

/// A collection view with UIKit's names and nothing else, as `UICollectionView` is to the adapter. It records every
/// call, makes cells of the registered class, and shows items when told (`cellForItemAt`, then `willDisplay`).
@MainActor
private final class RecordingCollectionView: CanvasCollectionView {
    typealias Cell = BaseCell

    weak var adapter: (any CanvasCollectionViewAdapter<BaseCell>)?
    var calls: [String] = []
    var visible: [IndexPath: BaseCell] = [:]
    private var registered: [String: BaseCell.Type] = [:]

    func setAdapter(_ adapter: (any CanvasCollectionViewAdapter<BaseCell>)?) -> AnyObject? {
        self.adapter = adapter
        return nil
    }
    func register(_ cellClass: AnyClass?, forCellWithReuseIdentifier identifier: String) {
        registered[identifier] = cellClass as? BaseCell.Type
        calls.append("register")
    }
    func dequeueReusableCell(withReuseIdentifier identifier: String, for indexPath: IndexPath) -> BaseCell {
        registered[identifier]!.init()
    }
    func performBatchUpdates(_ updates: (() -> Void)?, completion: ((Bool) -> Void)?) {
        calls.append("begin")
        updates?()
        calls.append("end")
        completion?(true)
    }
    func insertItems(at indexPaths: [IndexPath]) { calls.append("insert \(indexPaths.map { $0[1] })") }
    func deleteItems(at indexPaths: [IndexPath]) { calls.append("delete \(indexPaths.map { $0[1] })") }
    func moveItem(at indexPath: IndexPath, to newIndexPath: IndexPath) { calls.append("move") }
    func reloadData() { calls.append("reload") }
    var indexPathsForVisibleItems: [IndexPath] { Array(visible.keys) }
    func cellForItem(at indexPath: IndexPath) -> BaseCell? { visible[indexPath] }

    /// Shows the item as UIKit does: `cellForItemAt`, then `willDisplay`.
    @discardableResult
    func show(_ item: Int) -> BaseCell {
        let path = IndexPath(indexes: [0, item])
        let cell = adapter!.cellForItem(at: path)
        visible[path] = cell
        adapter!.willDisplay(cell, forItemAt: path)
        return cell
    }
}

@Suite("The screen adapter over a collection view with UIKit's names")
@MainActor
struct CanvasScreenAdapterProtocolTests {
    @Test("the adapter registers its cell class and becomes the data source; the count is the board's")
    func registersAndServes() {
        let board = CanvasBoard(canvasCount: 3)
        let collectionView = RecordingCollectionView()
        let adapter = CanvasScreenAdapter(board: board, collectionView: collectionView, cellType: RecordingCell.self)
        #expect(collectionView.calls == ["register"])
        #expect(collectionView.adapter === adapter)
        #expect(adapter.numberOfItems(inSection: 0) == 3)
        let cell = collectionView.show(1)
        #expect((cell as? RecordingCell)?.display?.picture == .addButton)
    }

    @Test("add and remove become one batch update each, in (section 0, item) index paths; never a reload")
    func listChanges() {
        let board = CanvasBoard(canvasCount: 3)
        let collectionView = RecordingCollectionView()
        let adapter = CanvasScreenAdapter(board: board, collectionView: collectionView, cellType: RecordingCell.self)
        collectionView.calls = []
        _ = board.send(.add)
        _ = board.send(.remove(1))
        #expect(collectionView.calls == ["begin", "insert [3]", "end", "begin", "delete [1]", "end"])
        #expect(adapter.items.map(\.id) == board.canvases.map(\.id))
    }

    @Test("visible cells come from indexPathsForVisibleItems and cellForItem(at:), in item order")
    func visibleCells() {
        let board = CanvasBoard(canvasCount: 3)
        let collectionView = RecordingCollectionView()
        let adapter = CanvasScreenAdapter(board: board, collectionView: collectionView, cellType: RecordingCell.self)
        let second = collectionView.show(2)
        let first = collectionView.show(0)
        #expect(adapter.visibleCells.map(\.index) == [0, 2])
        #expect(adapter.visibleCells.map { ObjectIdentifier($0.cell) } == [first, second].map(ObjectIdentifier.init))
    }

    @Test("a tap goes to the canvas the tapped cell shows, even when a removal is still on its way to the collection")
    func tapByIdentity() async {
        let board = CanvasBoard(canvasCount: 4)
        let collectionView = RecordingCollectionView()
        let adapter = CanvasScreenAdapter(board: board, collectionView: collectionView, cellType: RecordingCell.self)
        let tapped = board.canvases[2].id
        // Removed on another thread while the main actor waits: the collection still shows four items until the main
        // actor runs again and applies the removal.
        DispatchQueue.global().sync { _ = board.send(.remove(0)) }
        #expect(adapter.items.count == 4, "the removal waits for the main actor")
        var outcome: BoardOutcome?
        adapter.tapHandler = { _, result in outcome = result }
        adapter.didSelectItem(at: IndexPath(indexes: [0, 2]))
        #expect(outcome?.isAccepted == true)
        #expect(board.state.previewIndex == 1, "the canvas shown at item 2 is at index 1 once the removal applied")
        #expect(board.state.id(at: 1) == tapped)
        // The removal reaches the collection when the main queue runs.
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.main.async { done.resume() }
        }
        #expect(adapter.items.map(\.id) == board.canvases.map(\.id))
    }

    @Test("a tap on a canvas removed meanwhile is refused, naming the canvas, and changes nothing")
    func tapOnRemovedCanvas() {
        let board = CanvasBoard(canvasCount: 2)
        let removed = board.canvases[1].id
        _ = board.send(.remove(1))
        let outcome = board.send(.tapCanvas(removed))
        #expect(outcome.rejection == .canvasNotOnBoard(removed))
        #expect(outcome.rejection?.description == "canvas not on board: canvas \(removed) was removed")
        #expect(board.state.previewIndex == nil)
        #expect(CanvasEvent.tapCanvas(removed).description == "tap \(removed)")
    }

    @Test("the preview is in the displayed cell of the previewing canvas, and leaves it when it ends displaying")
    func previewFollowsCanvas() {
        let board = CanvasBoard(canvasCount: 3)
        let collectionView = RecordingCollectionView()
        let adapter = CanvasScreenAdapter(board: board, collectionView: collectionView, cellType: RecordingCell.self)
        let cells = (0..<3).map { collectionView.show($0) as? RecordingCell }
        adapter.didSelectItem(at: IndexPath(indexes: [0, 1]))
        #expect(cells.map { $0?.hostsPreview } == [false, true, false])
        #expect(adapter.previewItem == 1)
        adapter.didEndDisplaying(cells[1]!, forItemAt: IndexPath(indexes: [0, 1]))
        #expect(cells.map { $0?.hostsPreview } == [false, false, false])
        #expect(adapter.previewCell == nil)
        adapter.willDisplay(cells[1]!, forItemAt: IndexPath(indexes: [0, 1]))
        #expect(adapter.previewCell === cells[1])
        adapter.didSelectItem(at: IndexPath(indexes: [0, 2]))
        #expect(cells.map { $0?.hostsPreview } == [false, false, true])
    }
}

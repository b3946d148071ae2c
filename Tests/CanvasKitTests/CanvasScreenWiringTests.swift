import CanvasKit
import Foundation
import Testing

/// A collection view with UIKit's names and nothing else: what `extension UICollectionView: CanvasCollectionView {}`
/// gives the wiring. It records every call.
@MainActor
private final class RecordingCollectionView: CanvasCollectionView {
    final class Cell {}

    var calls: [String] = []
    var visible: [IndexPath: Cell] = [:]

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
    func cellForItem(at indexPath: IndexPath) -> Cell? { visible[indexPath] }
}

@Suite("The screen wiring over a collection view with UIKit's names")
@MainActor
struct CanvasScreenWiringProtocolTests {
    @Test("add and remove become one batch update each, in (section 0, item) index paths; never a reload")
    func listChanges() {
        let board = CanvasBoard(canvasCount: 3)
        let collectionView = RecordingCollectionView()
        let wiring = CanvasScreenWiring(board: board, collectionView: collectionView)
        _ = board.send(.add)
        _ = board.send(.remove(1))
        #expect(collectionView.calls == ["begin", "insert [3]", "end", "begin", "delete [1]", "end"])
        #expect(wiring.items.map(\.id) == board.canvases.map(\.id))
    }

    @Test("visible cells come from indexPathsForVisibleItems and cellForItem(at:), in item order")
    func visibleCells() {
        let board = CanvasBoard(canvasCount: 3)
        let collectionView = RecordingCollectionView()
        let wiring = CanvasScreenWiring(board: board, collectionView: collectionView)
        let first = RecordingCollectionView.Cell()
        let second = RecordingCollectionView.Cell()
        collectionView.visible = [IndexPath(indexes: [0, 2]): second, IndexPath(indexes: [0, 0]): first]
        #expect(wiring.visibleCells.map(\.index) == [0, 2])
        #expect(
            wiring.visibleCells.map { ObjectIdentifier($0.cell) } == [
                ObjectIdentifier(first), ObjectIdentifier(second),
            ])
    }

    @Test("without a collection view, list changes only change the items")
    func withoutCollectionView() {
        let board = CanvasBoard(canvasCount: 2)
        let wiring = CanvasScreenWiring<RecordingCollectionView>(board: board)
        _ = board.send(.add)
        #expect(wiring.items.map(\.id) == board.canvases.map(\.id))
    }
}

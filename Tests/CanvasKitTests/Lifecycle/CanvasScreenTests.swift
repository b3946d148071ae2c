import CanvasKit
import Foundation
import Observing
import Testing

@Suite("Canvas screen: list changes become batch updates")
@MainActor
struct CanvasScreenWiringTests {
    @Test("add and remove become one insertion and one deletion each, never a reload")
    func addAndRemove() throws {
        let board = CanvasBoard(canvasCount: 3)
        let screen = CanvasScreen(board: board, configuration: .init(viewportSize: 4))
        screen.screenDidAppear()
        _ = board.send(.add)
        #expect(screen.host.statistics.batchUpdates == 1)
        #expect(screen.host.numberOfItems == 4)
        #expect(screen.visibleCells.count == 4)
        _ = board.send(.remove(0))
        #expect(screen.host.statistics.batchUpdates == 2)
        #expect(screen.source.items.map(\.id) == board.canvases.map(\.id))
        #expect(screen.reloadCount == 0)
    }

    @Test("a replacement and a whole-list setting are batch updates too")
    func replacementAndSetting() throws {
        let board = CanvasBoard(canvasCount: 3)
        let other = CanvasBoard(canvasCount: 5)
        let screen = CanvasScreen(board: board, configuration: .init(viewportSize: 5))
        screen.screenDidAppear()
        let replacement = other.canvases[4]
        screen.boardCanvasesDidChange(
            ObservedChange(kind: .replacement, oldValue: nil, newValue: [replacement], indexes: [1]))
        #expect(screen.source.items[1] === replacement)
        #expect(screen.host.displayedCell(at: 1)?.viewModel.model === replacement)
        screen.boardCanvasesDidChange(
            ObservedChange(kind: .setting, oldValue: nil, newValue: other.canvases, indexes: nil))
        #expect(screen.source.items.map(\.id) == other.canvases.map(\.id))
        #expect(screen.visibleCells.map { $0.cell.viewModel.model?.id } == other.canvases.map(\.id))
        #expect(screen.host.statistics.batchUpdates == 2)
        #expect(screen.reloadCount == 0)
        #expect(screen.lastUpdateError == nil)
        #expect(screen.binder.log.violations.isEmpty)
    }
}

import CanvasKit
import Foundation
import Observing
import Testing

/// One board event, one derivation per visible cell: an event that writes several observed keys of one canvas (a tap
/// writes `isSelected` and `status`; a stop writes `status`, `videoURL` and the board's `isRecording`) makes that
/// canvas's cell derive once, after all of the event's writes.
@Suite("Cell view-model: one derivation per cell per board event")
@MainActor
struct RecomputePerEventTests {
    /// Sends `event` and returns, for each canvas whose cell derived, how many times it did.
    private func derivations(
        of event: CanvasEvent, on board: CanvasBoard, cells: [CanvasCellViewModel]
    ) -> [Int: Int] {
        let before = cells.map(\.recomputations)
        board.send(event)
        var counts: [Int: Int] = [:]
        for (index, cell) in cells.enumerated() where cell.recomputations != before[index] {
            counts[index] = cell.recomputations - before[index]
        }
        return counts
    }

    @Test("select, move, deselect, record, stop, cancel and delete each derive an involved cell once")
    func oncePerEvent() throws {
        let board = CanvasBoard(canvasCount: 4)
        let old = URL(fileURLWithPath: "/takes/old.mov")
        for event: CanvasEvent in [.tap(3), .record, .stop(old), .tap(3)] { board.send(event) }
        let cells = board.canvases.map { model in
            let cell = CanvasCellViewModel()
            cell.bind(to: model, on: board)
            cell.startObserving()
            return cell
        }
        let new = URL(fileURLWithPath: "/takes/new.mov")
        #expect(derivations(of: .tap(0), on: board, cells: cells) == [0: 1], "select")
        #expect(derivations(of: .tap(1), on: board, cells: cells) == [0: 1, 1: 1], "move")
        #expect(derivations(of: .record, on: board, cells: cells) == [1: 1, 3: 1], "record")
        #expect(derivations(of: .stop(new), on: board, cells: cells) == [1: 1, 3: 1], "stop")
        #expect(derivations(of: .tap(1), on: board, cells: cells) == [1: 1], "deselect")
        #expect(derivations(of: .delete(1), on: board, cells: cells) == [1: 1], "delete")
        #expect(derivations(of: .tap(2), on: board, cells: cells) == [2: 1])
        #expect(derivations(of: .record, on: board, cells: cells) == [2: 1, 3: 1])
        #expect(derivations(of: .cancel, on: board, cells: cells) == [2: 1, 3: 1], "cancel")
        #expect(cells.map(\.display) == board.state.displays)
    }

    @Test("an event sent from a display observer is derived once too, and the cells end on the newest display")
    func reentrantEventOncePerEvent() throws {
        let board = CanvasBoard(canvasCount: 3)
        let cells = board.canvases.map { model in
            let cell = CanvasCellViewModel()
            cell.bind(to: model, on: board)
            cell.startObserving()
            return cell
        }
        // When canvas 0's cell shows the preview, its observer moves the preview on to canvas 2.
        let token = cells[0].observe(\.display, options: [.new]) { _, change in
            if change.newValue??.picture == .livePreview { board.send(.tap(2)) }
        }
        defer { token.invalidate() }
        #expect(derivations(of: .tap(0), on: board, cells: cells) == [0: 2, 2: 1])
        #expect(cells.map(\.display) == board.state.displays)
        #expect(board.state.selection == .init(index: 2, phase: .inPreview))
    }
}

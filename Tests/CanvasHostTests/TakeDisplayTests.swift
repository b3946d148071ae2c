import CanvasHost
import CanvasKit
import Foundation
import Testing

/// The take's summary on screen: each cell says how many segments its canvas's take has and how long it is, and shows
/// the armed undo, and redraws exactly when one of them changes.
@Suite("Cells show each take's segments, length and armed undo")
@MainActor
struct TakeDisplayTests {
    private static func take(_ name: String) -> URL { URL(fileURLWithPath: "/takes/\(name)") }

    /// A screen of three canvases, all on screen; canvas 0 has a take of two segments (1.5 s and 2 s) and is not
    /// selected, canvas 1 has a take of one segment (1 s) and is selected.
    private func screen() -> (CanvasBoard, CanvasScreen) {
        let board = CanvasBoard(canvasCount: 3)
        let events: [CanvasEvent] = [
            .tap(0), .record, .stop(Self.take("a.mov"), duration: 1.5), .resume,
            .stop(Self.take("b.mov"), start: 1.5, duration: 2), .tap(1), .record,
            .stop(Self.take("c.mov"), duration: 1),
        ]
        for event in events { #expect(board.send(event).isAccepted, "\(event)") }
        let screen = CanvasScreen(board: board, configuration: .init(viewportSize: 3))
        screen.screenDidAppear()
        return (board, screen)
    }

    private func cells(_ screen: CanvasScreen) throws -> [CanvasCell] {
        try (0..<3).map { try #require(screen.cell(at: $0)) }
    }

    @Test("a cell draws the segment count and the length, the recorded durations added")
    func countAndLength() throws {
        let (_, screen) = screen()
        let cells = try cells(screen)
        #expect(cells[0].shownTake == CanvasDisplay.Take(segmentCount: 2, length: 3.5, isUndoArmed: false))
        #expect(cells[0].shownCaption == "2 segments, 3.5s")
        #expect(cells[0].shownDisplay?.picture == .cover(Self.take("a.mov")))
        #expect(cells[1].shownTake == CanvasDisplay.Take(segmentCount: 1, length: 1, isUndoArmed: false))
        #expect(cells[1].shownDisplay?.picture == .livePreview, "the previewing canvas says its take too")
        #expect(cells[2].shownTake == nil)
        #expect(cells[2].shownCaption == nil)
    }

    @Test("a new segment and a removed one redraw the cell with the new count and length")
    func segmentsRedraw() throws {
        let (board, screen) = screen()
        let cell = try cells(screen)[1]
        let redraws = cell.redrawCount
        #expect(board.send(.resume).isAccepted)
        #expect(cell.shownDisplay?.picture == .recording)
        #expect(board.send(.stop(Self.take("d.mov"), start: 1, duration: 0.25)).isAccepted)
        #expect(cell.shownTake == CanvasDisplay.Take(segmentCount: 2, length: 1.25, isUndoArmed: false))
        #expect(cell.redrawCount == redraws + 2, "the recording picture, then the new segment")
        #expect(board.send(.undo(1)).isAccepted)
        #expect(board.send(.undo(1)).isAccepted)
        #expect(cell.shownTake == CanvasDisplay.Take(segmentCount: 1, length: 1, isUndoArmed: false))
        #expect(cell.redrawCount == redraws + 4, "armed, then the segment removed")
    }

    @Test("an armed undo is drawn, and drawn away when another event disarms it")
    func armedUndoRedraws() throws {
        let (board, screen) = screen()
        let cells = try cells(screen)
        let redraws = cells.map(\.redrawCount)

        #expect(board.send(.undo(0)).isAccepted)
        #expect(cells[0].shownTake?.isUndoArmed == true)
        #expect(cells[0].shownCaption == "2 segments, 3.5s, delete the last segment?")
        #expect(cells[0].redrawCount == redraws[0] + 1, "arming redraws")
        #expect(cells[1].redrawCount == redraws[1], "the other cells do not redraw")

        // Another canvas's undo disarms canvas 0's and arms canvas 1's: both cells redraw.
        #expect(board.send(.undo(1)).isAccepted)
        #expect(cells[0].shownTake?.isUndoArmed == false)
        #expect(cells[1].shownTake?.isUndoArmed == true)
        #expect(cells[0].redrawCount == redraws[0] + 2, "disarming redraws")
        #expect(cells[1].redrawCount == redraws[1] + 1)

        // An event that changes nothing else on screen (the host's disarm, as on a scroll) redraws the armed cell.
        #expect(board.send(.disarmUndo).isAccepted)
        #expect(cells[1].shownTake == CanvasDisplay.Take(segmentCount: 1, length: 1, isUndoArmed: false))
        #expect(cells[1].redrawCount == redraws[1] + 2)
        #expect(cells[0].redrawCount == redraws[0] + 2)
        #expect(cells[2].redrawCount == redraws[2], "a canvas without a take never redraws here")
        #expect(cells[0].shownDisplay == screen.viewModel(of: cells[0])?.display)
    }
}

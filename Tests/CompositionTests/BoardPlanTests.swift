import CanvasComposition
import CanvasKit
import Composition
import Foundation
import Pixels
import Testing

@Suite("A plan from a board")
struct BoardPlanTests {
    /// One call: canvas i in tile i of the squarest grid, its take's start carried over, empty canvases left out,
    /// errors naming the canvas.
    @Test func planFromBoard() throws {
        let board = CanvasBoard(state: BoardState(canvasCount: 5))
        for event: CanvasEvent in [
            .tap(1), .record, .stop(URL(fileURLWithPath: "/b.mov"), start: 0.5),
            .tap(4), .record, .stop(URL(fileURLWithPath: "/e.mov"), start: -0.25),
        ] {
            #expect(board.send(event).rejection == nil)
        }
        let plan = CompositionPlan(board: board, size: PixelSize(width: 1080, height: 1920), scaling: .fill)
        let grid = GridLayout(columns: 3, rows: 2)
        #expect(plan.takes.map(\.canvasIndex) == [1, 4])
        #expect(plan.takes.map(\.file.path) == ["/b.mov", "/e.mov"])
        #expect(plan.takes.map(\.region) == [grid.region(ofTile: 1), grid.region(ofTile: 4)])
        #expect(plan.takes.map(\.start) == [0.5, -0.25])
        #expect(plan.takes.allSatisfy { $0.scaling == .fill })
        #expect(plan.timelineOrigin == -0.25)
        var broken = plan
        broken.takes[1].pan = 3
        #expect(throws: CompositionPlanError.self) { try broken.validated() }
        do { _ = try broken.validated() } catch { #expect(error.description.hasPrefix("canvas 4: pan")) }
    }
}

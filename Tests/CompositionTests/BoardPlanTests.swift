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

    /// A take of segments keeps them in order from its first segment's start, and the board's music becomes the
    /// plan's soundtrack.
    @Test func segmentsAndMusicFromBoard() throws {
        let board = CanvasBoard(state: BoardState(canvasCount: 2))
        let music = Soundtrack(url: URL(fileURLWithPath: "/song.m4a"), start: 3, gain: 0.5, loops: true)
        for event: CanvasEvent in [
            .tap(1), .record, .stop(URL(fileURLWithPath: "/b1.mov"), start: 0.5, duration: 1), .resume,
            .stop(URL(fileURLWithPath: "/b2.mov"), start: 1.5, duration: 2), .setSoundtrack(music),
        ] {
            #expect(board.send(event).rejection == nil, "\(event)")
        }
        let plan = CompositionPlan(board: board, size: PixelSize(width: 720, height: 1280))
        #expect(plan.takes.map(\.canvasIndex) == [1])
        #expect(plan.takes[0].segments.map(\.path) == ["/b1.mov", "/b2.mov"])
        #expect(plan.takes[0].start == 0.5)
        #expect(
            plan.soundtrack
                == CompositionPlan.Soundtrack(file: URL(fileURLWithPath: "/song.m4a"), start: 3, gain: 0.5, loops: true)
        )
        let silent = CompositionPlan(board: BoardState(canvasCount: 1), size: PixelSize(width: 64, height: 64))
        #expect(silent.soundtrack == nil)
    }
}

import CanvasSimulation
import Testing

@Suite("canvas-sim's interactive grid fits the terminal")
struct TerminalGridLayoutTests {
    @Test("100 canvases in 80x24: every line fits, the cursor's row is on screen as it moves, the grid scrolls")
    func scrollsWithTheCursor() throws {
        var firstRow = 0
        for cursor in Array(0..<100) + Array((0..<100).reversed()) {
            let layout = try #require(
                TerminalGridLayout(
                    canvasCount: 100, cursor: cursor, firstRow: firstRow, terminalColumns: 80,
                    terminalRows: 24))
            #expect(layout.columns * TerminalGridLayout.cellWidth <= 80)
            let lines =
                TerminalGridLayout.headerLines + layout.rows.count * TerminalGridLayout.cellHeight
                + TerminalGridLayout.footerLines
            #expect(lines <= 24)
            #expect(layout.canvases(of: 100).contains(cursor))
            // It moves only when the cursor leaves the rows on screen, by one row.
            #expect(abs(layout.rows.lowerBound - firstRow) <= 1)
            firstRow = layout.rows.lowerBound
        }
        let top = try #require(TerminalGridLayout(canvasCount: 100, cursor: 0, terminalColumns: 80, terminalRows: 24))
        #expect(top.columns == 4)
        #expect(top.rows == 0..<4)
        let bottom = try #require(
            TerminalGridLayout(canvasCount: 100, cursor: 99, terminalColumns: 80, terminalRows: 24))
        #expect(bottom.rows == 21..<25)
    }

    @Test("a small board is square and whole; a resize recomputes the same way")
    func smallBoardAndResize() throws {
        let four = try #require(TerminalGridLayout(canvasCount: 4, cursor: 3, terminalColumns: 80, terminalRows: 24))
        #expect(four.columns == 2)
        #expect(four.rows == 0..<2)
        let wide = try #require(
            TerminalGridLayout(canvasCount: 100, cursor: 0, terminalColumns: 200, terminalRows: 60))
        #expect(wide.columns == 10)
        #expect(wide.rows == 0..<10)
    }

    @Test(
        "below the minimum size nothing is laid out, and the refusal fits the width", arguments: [(30, 12), (80, 10)])
    func tooSmall(columns: Int, rows: Int) {
        #expect(TerminalGridLayout(canvasCount: 100, cursor: 0, terminalColumns: columns, terminalRows: rows) == nil)
        #expect(TerminalGridLayout.tooSmallMessage(columns: columns, rows: rows).count <= columns)
    }
}

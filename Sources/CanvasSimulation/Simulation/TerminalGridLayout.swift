/// Where `canvas-sim --interactive` draws the board in a terminal of a given size: how many canvases per row, which
/// rows of the grid are on screen (they scroll with the cursor), and whether the terminal is too small to draw at all.
///
/// Every line drawn fits the terminal's width, so nothing wraps and the screen never scrolls by itself: a grid row is
/// ``cellWidth`` columns per canvas, and ``headerLines`` + rows x ``cellHeight`` + ``footerLines`` lines in all.
package struct TerminalGridLayout: Equatable, Sendable {
    /// Columns of one canvas: its 16-character box, two borders, one space.
    package static let cellWidth = 19
    /// Lines of one canvas: the box's top, two text lines, the box's bottom.
    package static let cellHeight = 4
    /// The two lines of keys above the grid (`InteractiveKeys.help`).
    package static let headerLines = 2
    /// A blank line, the step and its effects, the summary, and the line the cursor rests on.
    package static let footerLines = 5
    /// The smallest terminal drawn: one canvas per row and one grid row, with room for the lines around them.
    package static let minimumSize = (columns: 40, rows: headerLines + cellHeight + footerLines)

    /// Canvases per grid row.
    package let columns: Int
    /// The grid rows on screen, in grid-row numbers (row r holds canvases r x columns ..< (r + 1) x columns).
    package let rows: Range<Int>

    /// The layout for `canvasCount` canvases in a terminal of `terminalColumns` x `terminalRows`, with the row holding
    /// `cursor` on screen, moving as little as possible from `firstRow` (the previous layout's first row); nil when
    /// the terminal is smaller than ``minimumSize``.
    package init?(canvasCount: Int, cursor: Int, firstRow: Int = 0, terminalColumns: Int, terminalRows: Int) {
        guard terminalColumns >= Self.minimumSize.columns, terminalRows >= Self.minimumSize.rows else { return nil }
        let count = max(canvasCount, 1)
        var square = 1
        while square * square < count { square += 1 }
        columns = max(1, min(square, terminalColumns / Self.cellWidth))
        let totalRows = (count + columns - 1) / columns
        let visibleRows = min(totalRows, (terminalRows - Self.headerLines - Self.footerLines) / Self.cellHeight)
        let cursorRow = min(max(cursor, 0), count - 1) / columns
        var first = min(max(firstRow, 0), totalRows - visibleRows)
        if cursorRow < first { first = cursorRow }
        if cursorRow >= first + visibleRows { first = cursorRow - visibleRows + 1 }
        rows = first..<(first + visibleRows)
    }

    /// The canvases on screen, in order.
    package func canvases(of canvasCount: Int) -> Range<Int> {
        min(rows.lowerBound * columns, canvasCount)..<min(rows.upperBound * columns, canvasCount)
    }

    /// The polite refusal drawn instead of the board when the terminal is `columns` x `rows`, cut to its width.
    package static func tooSmallMessage(columns: Int, rows: Int) -> String {
        let text =
            "canvas-sim: the terminal is \(columns)x\(rows); the board needs at least "
            + "\(minimumSize.columns)x\(minimumSize.rows). Enlarge it, or press q to quit."
        return String(text.prefix(max(columns, 1)))
    }
}

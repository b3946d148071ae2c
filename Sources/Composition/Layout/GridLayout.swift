/// The rectangles of a grid of `columns` x `rows` equal tiles: tile i at column `i % columns`, row `i / columns`,
/// read left to right, top to bottom, as a board's canvases are.
public struct GridLayout: Sendable, Hashable, CustomStringConvertible {
    /// The number of columns, at least 1.
    public let columns: Int
    /// The number of rows, at least 1.
    public let rows: Int

    /// A grid of `columns` x `rows` tiles. - Precondition: both are at least 1.
    public init(columns: Int, rows: Int) {
        precondition(columns >= 1 && rows >= 1, "a grid has at least one column and one row")
        self.columns = columns
        self.rows = rows
    }

    /// The squarest grid that holds `count` tiles: `ceil(sqrt(count))` columns and as many rows as they need
    /// (1 -> 1x1, 2 -> 2x1, 4 -> 2x2, 5 -> 3x2, 9 -> 3x3, 1,000 -> 32x32). - Precondition: `count >= 1`.
    public init(holding count: Int) {
        precondition(count >= 1, "a grid holds at least one tile")
        var columns = Int(Double(count).squareRoot())
        while columns * columns < count { columns += 1 }
        while columns > 1, (columns - 1) * (columns - 1) >= count { columns -= 1 }
        self.init(columns: columns, rows: (count + columns - 1) / columns)
    }

    /// The number of tiles, `columns * rows`.
    public var tileCount: Int { columns * rows }

    /// The rectangle of tile `index`: column `index % columns`, row `index / columns`, each tile `1 / columns` wide
    /// and `1 / rows` high. - Precondition: `0 <= index < tileCount`.
    public func region(ofTile index: Int) -> NormalizedRect {
        precondition((0..<tileCount).contains(index), "tile \(index) is not in a \(self) grid")
        let column = index % columns
        let row = index / columns
        return NormalizedRect(
            x: Double(column) / Double(columns), y: Double(row) / Double(rows),
            width: Double(column + 1) / Double(columns) - Double(column) / Double(columns),
            height: Double(row + 1) / Double(rows) - Double(row) / Double(rows))
    }

    /// For example `3x2` (columns x rows).
    public var description: String { "\(columns)x\(rows)" }

    /// A grid written `CxR` (for example `3x2`), or nil when `text` is not two positive integers of at most 1,000
    /// around an `x`.
    public init?(_ text: String) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let columns = Int(parts[0]), let rows = Int(parts[1]),
            (1...1000).contains(columns), (1...1000).contains(rows)
        else { return nil }
        self.init(columns: columns, rows: rows)
    }
}

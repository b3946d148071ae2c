import Composition
import Foundation
import Pixels
import Testing

@Suite("Grid layout and pixel rounding")
struct GridLayoutTests {
    /// Every count from 1 to 1,000: the squarest grid holds it, tile i is at column i % C and row i / C, and the
    /// tiles' pixel rectangles cover a frame exactly (no gap, no overlap) with even edges.
    @Test func gridsTileTheFrameExactlyUpToAThousand() {
        let sizes = [
            PixelSize(width: 720, height: 1280), PixelSize(width: 1080, height: 1920), PixelSize(width: 2, height: 2),
        ]
        for count in 1...1000 {
            let grid = GridLayout(holding: count)
            #expect(grid.tileCount >= count)
            #expect((grid.columns - 1) * grid.rows < count || grid.columns == 1)
            for size in sizes {
                var columnEdges: [Int: (Int, Int)] = [:]
                var rowEdges: [Int: (Int, Int)] = [:]
                var covered = 0
                for index in 0..<grid.tileCount {
                    let rect = TilePlacement.pixelRect(of: grid.region(ofTile: index), in: size)
                    let column = index % grid.columns
                    let row = index / grid.columns
                    #expect(rect.x % 2 == 0 && rect.y % 2 == 0 && rect.width % 2 == 0 && rect.height % 2 == 0)
                    if let edges = columnEdges[column] {
                        #expect(edges == (rect.x, rect.x + rect.width), "column \(column) of \(grid) moved")
                    } else {
                        columnEdges[column] = (rect.x, rect.x + rect.width)
                    }
                    if let edges = rowEdges[row] {
                        #expect(edges == (rect.y, rect.y + rect.height), "row \(row) of \(grid) moved")
                    } else {
                        rowEdges[row] = (rect.y, rect.y + rect.height)
                    }
                    covered += rect.width * rect.height
                }
                // Adjacent columns and rows share their edges, from 0 to the frame's side.
                var x = 0
                for column in 0..<grid.columns {
                    #expect(columnEdges[column]!.0 == x)
                    x = columnEdges[column]!.1
                }
                #expect(x == size.width)
                var y = 0
                for row in 0..<grid.rows {
                    #expect(rowEdges[row]!.0 == y)
                    y = rowEdges[row]!.1
                }
                #expect(y == size.height)
                #expect(covered == size.width * size.height)
            }
        }
    }

    @Test func tileIndexesReadLeftToRightTopToBottom() {
        let grid = GridLayout(columns: 3, rows: 2)
        let size = PixelSize(width: 1080, height: 1920)
        let rects = (0..<6).map { TilePlacement.pixelRect(of: grid.region(ofTile: $0), in: size) }
        #expect(rects[0] == PixelRect(x: 0, y: 0, width: 360, height: 960))
        #expect(rects[1] == PixelRect(x: 360, y: 0, width: 360, height: 960))
        #expect(rects[2] == PixelRect(x: 720, y: 0, width: 360, height: 960))
        #expect(rects[3] == PixelRect(x: 0, y: 960, width: 360, height: 960))
        #expect(rects[5] == PixelRect(x: 720, y: 960, width: 360, height: 960))
    }

    @Test func squarestGrids() {
        let expected: [Int: (Int, Int)] = [
            1: (1, 1), 2: (2, 1), 3: (2, 2), 4: (2, 2), 5: (3, 2), 9: (3, 3), 10: (4, 3),
            1000: (32, 32),
        ]
        for (count, shape) in expected {
            let grid = GridLayout(holding: count)
            #expect((grid.columns, grid.rows) == shape, "\(count) tiles")
        }
    }

    @Test func gridText() {
        #expect(GridLayout("3x2") == GridLayout(columns: 3, rows: 2))
        #expect(GridLayout("0x2") == nil)
        #expect(GridLayout("3") == nil)
        #expect(GridLayout("3x2x1") == nil)
    }

    /// A 16:9 picture fitted into a 9:16 tile is letterboxed, centred on even offsets; filled, it is cropped.
    @Test func fitAndFill() {
        let output = PixelSize(width: 720, height: 1280)
        let region = GridLayout(columns: 2, rows: 2).region(ofTile: 3)
        let picture = PixelSize(width: 1920, height: 1080)
        let fit = TilePlacement(region: region, output: output, pictureSize: picture, scaling: .fit)
        #expect(fit.tile == PixelRect(x: 360, y: 640, width: 360, height: 640))
        #expect(fit.scaledSize == PixelSize(width: 360, height: 202))
        #expect(fit.visible == PixelRect(x: 360, y: 640 + 218, width: 360, height: 202))
        let fill = TilePlacement(region: region, output: output, pictureSize: picture, scaling: .fill)
        #expect(fill.scaledSize == PixelSize(width: 1138, height: 640))
        #expect(fill.visible == fill.tile)
        #expect(fill.cropOrigin.x == 388 && fill.cropOrigin.y == 0)
        // Same aspect: both fill the tile exactly.
        let same = TilePlacement(
            region: region, output: output, pictureSize: PixelSize(width: 720, height: 1280), scaling: .fit)
        #expect(same.visible == same.tile && same.scaledSize == PixelSize(width: 360, height: 640))
    }
}

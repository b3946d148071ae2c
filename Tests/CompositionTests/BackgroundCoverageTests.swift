import Pixels
import Testing

@testable import Composition

/// When the tiles cover the frame the composer draws no background under them: the check that decides it.
@Suite("Composer: tiles covering the frame")
struct BackgroundCoverageTests {
    @Test func gridsCoverTheFrame() {
        for size in [PixelSize(width: 720, height: 1280), PixelSize(width: 1080, height: 1920)] {
            for count in [1, 2, 4, 9, 16, 100, 1000] {
                let grid = GridLayout(holding: count)
                let tiles = (0..<grid.tileCount).map { TilePlacement.pixelRect(of: grid.region(ofTile: $0), in: size) }
                #expect(Compositor.cover(tiles, size), "\(grid) in \(size)")
                // One tile short (an empty canvas's) leaves its rectangle to the background.
                #expect(!Compositor.cover(Array(tiles.dropLast()), size), "\(grid) in \(size) less one")
            }
        }
    }

    @Test func overlapsAndGapsDoNotCover() {
        let size = PixelSize(width: 64, height: 128)
        // The areas add up to the frame's, but the two overlap by 10 rows and leave the last 10 uncovered.
        let overlapping = [
            PixelRect(x: 0, y: 0, width: 64, height: 74), PixelRect(x: 0, y: 64, width: 64, height: 54),
        ]
        #expect(!Compositor.cover(overlapping, size))
        #expect(!Compositor.cover([PixelRect(x: 0, y: 0, width: 64, height: 126)], size))
        #expect(!Compositor.cover([], size))
        // A tile reaching past the frame covers what lies inside it; two leaving a gap of two columns do not.
        #expect(Compositor.cover([PixelRect(x: -8, y: -8, width: 80, height: 144)], size))
        #expect(
            !Compositor.cover(
                [PixelRect(x: -8, y: 0, width: 40, height: 128), PixelRect(x: 34, y: 0, width: 40, height: 128)], size))
    }
}

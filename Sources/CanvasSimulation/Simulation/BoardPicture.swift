import CanvasHost
import CanvasKit

/// A picture of a board: a grid of tiles, one per canvas, drawn into an 8-bit RGB buffer with rectangles and simple
/// shapes (no fonts), for `canvas-sim --render`.
///
/// Per canvas: its cover image scaled into the tile (aspect fit) for `cover`; the same, dimmed, with a white play
/// triangle for `playback`; a camera on blue for `livePreview`, with a red dot for `recording`; a plus for
/// `addButton`. A take without an image (simulated, or its cover failed) gets a grey film frame instead, crossed in
/// red when the cover failed. The selected canvas has a yellow border. Tiles are laid out left to right, top to
/// bottom, in `columns` columns (by default the smallest square grid that holds them).
public struct BoardPicture: Sendable, Hashable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// `width * height * 3` bytes, rows top to bottom, red-green-blue.
    public private(set) var pixels: [UInt8]

    /// The size of one tile's picture area.
    public static let tileWidth = 160
    /// The size of one tile's picture area.
    public static let tileHeight = 120
    /// The space around and between tiles.
    public static let gap = 12

    /// The largest picture drawn, in pixels: 100 million (300 MB of RGB), about 4,400 canvases in the default square
    /// grid. Check a board against it with ``size(canvasCount:columns:)`` before drawing it.
    public static let maximumPixelCount = 100_000_000

    /// The width and height of the picture of `canvasCount` canvases in `columns` columns (nil: the smallest square
    /// grid that holds them), without drawing it.
    public static func size(canvasCount: Int, columns: Int? = nil) -> (width: Int, height: Int) {
        let count = max(1, canvasCount)
        var columnCount = columns ?? 1
        if columns == nil { while columnCount * columnCount < count { columnCount += 1 } }
        columnCount = max(1, min(columnCount, count))
        let rows = (count + columnCount - 1) / columnCount
        return (gap + columnCount * (tileWidth + gap), gap + rows * (tileHeight + gap))
    }

    /// Draws `canvases` (see the type's notes).
    ///
    /// - Precondition: the picture has at most ``maximumPixelCount`` pixels (see ``size(canvasCount:columns:)``).
    public init(canvases: [SimulationCanvas], columns: Int? = nil) {
        let count = max(1, canvases.count)
        (width, height) = Self.size(canvasCount: count, columns: columns)
        precondition(
            width * height <= Self.maximumPixelCount,
            "a picture of \(count) canvases would have \(width)x\(height) pixels, more than the maximum")
        let columnCount = (width - Self.gap) / (Self.tileWidth + Self.gap)
        pixels = [UInt8](repeating: 0, count: width * height * 3)
        fill(x: 0, y: 0, width: width, height: height, Self.background)
        for (offset, canvas) in canvases.enumerated() {
            let x = Self.gap + (offset % columnCount) * (Self.tileWidth + Self.gap)
            let y = Self.gap + (offset / columnCount) * (Self.tileHeight + Self.gap)
            drawTile(canvas, x: x, y: y)
        }
    }

    /// The colour of the pixel at column `x`, row `y`.
    public func color(x: Int, y: Int) -> RGBColor {
        let offset = (y * width + x) * 3
        return rgb(pixels[offset], pixels[offset + 1], pixels[offset + 2])
    }

    /// The page behind the tiles.
    public static let background = rgb(28, 28, 32)
    /// The border of the selected canvas.
    public static let highlight = rgb(255, 204, 0)
    /// The live preview's tile.
    public static let preview = rgb(40, 90, 160)
    /// The recording dot.
    public static let recordingDot = rgb(230, 30, 30)
    /// The add button's tile.
    public static let addTile = rgb(60, 60, 66)

    // MARK: Tiles

    private mutating func drawTile(_ canvas: SimulationCanvas, x: Int, y: Int) {
        let w = Self.tileWidth
        let h = Self.tileHeight
        switch canvas.shows.picture {
        case .livePreview, .recording:
            fill(x: x, y: y, width: w, height: h, Self.preview)
            drawCamera(centerX: x + w / 2, centerY: y + h / 2)
            if canvas.shows.picture == .recording {
                disc(centerX: x + 18, centerY: y + 18, radius: 9, Self.recordingDot)
            }
        case .cover, .playback:
            fill(x: x, y: y, width: w, height: h, rgb(0, 0, 0))
            if let cover = canvas.cover {
                drawCover(cover, x: x, y: y, dimmed: canvas.shows.kind == .playback)
            } else {
                drawFilmFrame(x: x, y: y, failed: canvas.coverError != nil)
            }
            if canvas.shows.kind == .playback { drawPlayTriangle(centerX: x + w / 2, centerY: y + h / 2) }
        case .missing:
            // A take whose file is gone: an empty film frame, drawn as failed.
            fill(x: x, y: y, width: w, height: h, rgb(0, 0, 0))
            drawFilmFrame(x: x, y: y, failed: true)
        case .addButton:
            fill(x: x, y: y, width: w, height: h, Self.addTile)
            let plus = rgb(220, 220, 225)
            fill(x: x + w / 2 - 4, y: y + h / 2 - 24, width: 8, height: 48, plus)
            fill(x: x + w / 2 - 24, y: y + h / 2 - 4, width: 48, height: 8, plus)
        }
        if canvas.isSelected {
            let t = 5
            fill(x: x - t, y: y - t, width: w + 2 * t, height: t, Self.highlight)
            fill(x: x - t, y: y + h, width: w + 2 * t, height: t, Self.highlight)
            fill(x: x - t, y: y, width: t, height: h, Self.highlight)
            fill(x: x + w, y: y, width: t, height: h, Self.highlight)
        }
    }

    /// The cover scaled to fit the tile (aspect fit, nearest neighbour), centred; RGB or RGBA (alpha ignored: covers
    /// are opaque), rows padded or not.
    private mutating func drawCover(_ cover: CoverImage, x: Int, y: Int, dimmed: Bool) {
        let scale = min(Double(Self.tileWidth) / Double(cover.width), Double(Self.tileHeight) / Double(cover.height))
        let w = max(1, Int((Double(cover.width) * scale).rounded()))
        let h = max(1, Int((Double(cover.height) * scale).rounded()))
        let left = x + (Self.tileWidth - w) / 2
        let top = y + (Self.tileHeight - h) / 2
        for row in 0..<h {
            let sourceRow = min(cover.height - 1, row * cover.height / h)
            for column in 0..<w {
                let sourceColumn = min(cover.width - 1, column * cover.width / w)
                var color = cover.color(x: sourceColumn, y: sourceRow)
                if dimmed { color = rgb(color.red / 2, color.green / 2, color.blue / 2) }
                set(x: left + column, y: top + row, color)
            }
        }
    }

    private mutating func drawCamera(centerX: Int, centerY: Int) {
        let body = rgb(235, 235, 240)
        fill(x: centerX - 30, y: centerY - 18, width: 48, height: 36, body)
        // The lens side: a trapezoid drawn as columns growing to the right.
        for column in 0..<16 {
            let half = 6 + column * 12 / 16
            fill(x: centerX + 20 + column, y: centerY - half, width: 1, height: 2 * half, body)
        }
        disc(centerX: centerX - 6, centerY: centerY, radius: 10, Self.preview)
        disc(centerX: centerX - 6, centerY: centerY, radius: 5, body)
    }

    private mutating func drawPlayTriangle(centerX: Int, centerY: Int) {
        let white = rgb(250, 250, 250)
        for column in 0..<36 {
            let half = 22 - column * 22 / 36
            fill(x: centerX - 14 + column, y: centerY - half, width: 1, height: 2 * half, white)
        }
    }

    private mutating func drawFilmFrame(x: Int, y: Int, failed: Bool) {
        let grey = rgb(110, 110, 115)
        let hole = rgb(20, 20, 20)
        fill(x: x + 20, y: y + 20, width: Self.tileWidth - 40, height: Self.tileHeight - 40, grey)
        var holeX = x + 26
        while holeX + 8 <= x + Self.tileWidth - 26 {
            fill(x: holeX, y: y + 24, width: 8, height: 6, hole)
            fill(x: holeX, y: y + Self.tileHeight - 30, width: 8, height: 6, hole)
            holeX += 16
        }
        if failed {
            let red = Self.recordingDot
            for step in 0..<(Self.tileHeight - 40) {
                let dx = step * (Self.tileWidth - 40) / (Self.tileHeight - 40)
                fill(x: x + 20 + dx - 2, y: y + 20 + step, width: 5, height: 1, red)
                fill(x: x + Self.tileWidth - 20 - dx - 3, y: y + 20 + step, width: 5, height: 1, red)
            }
        }
    }

    // MARK: Primitives

    private mutating func set(x: Int, y: Int, _ color: RGBColor) {
        guard x >= 0, x < width, y >= 0, y < height else { return }
        let offset = (y * width + x) * 3
        pixels[offset] = color.red
        pixels[offset + 1] = color.green
        pixels[offset + 2] = color.blue
    }

    private mutating func fill(x: Int, y: Int, width w: Int, height h: Int, _ color: RGBColor) {
        for row in max(0, y)..<max(max(0, y), min(height, y + h)) {
            for column in max(0, x)..<max(max(0, x), min(width, x + w)) {
                let offset = (row * width + column) * 3
                pixels[offset] = color.red
                pixels[offset + 1] = color.green
                pixels[offset + 2] = color.blue
            }
        }
    }

    private mutating func disc(centerX: Int, centerY: Int, radius: Int, _ color: RGBColor) {
        for dy in -radius...radius {
            for dx in -radius...radius where dx * dx + dy * dy <= radius * radius {
                set(x: centerX + dx, y: centerY + dy, color)
            }
        }
    }
}

/// A colour from its channels (the drawing code's short spelling of `RGBColor(red:green:blue:)`).
private func rgb(_ red: UInt8, _ green: UInt8, _ blue: UInt8) -> RGBColor {
    RGBColor(red: red, green: green, blue: blue)
}

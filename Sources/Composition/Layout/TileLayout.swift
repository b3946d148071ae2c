import Pixels

/// A rectangle of whole pixels, origin top left.
public struct PixelRect: Sendable, Hashable, CustomStringConvertible {
    /// The left edge.
    public var x: Int
    /// The top edge.
    public var y: Int
    /// The width.
    public var width: Int
    /// The height.
    public var height: Int

    /// A rectangle of the given pixels.
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// Whether it covers no pixel.
    public var isEmpty: Bool { width <= 0 || height <= 0 }

    /// For example `360x640+360+0` (size, then offset).
    public var description: String { "\(width)x\(height)+\(x)+\(y)" }
}

/// Where one take's picture goes in the output frame: the pixel maths of the plan, shared by the composer and its
/// tests.
///
/// Rules (Docs/Composition.md, "Layout"):
/// - A rectangle's edges are its normalized edges times the output size, rounded to the nearest even pixel. Two
///   rectangles that share an edge in the plan share it in pixels, so a grid's tiles cover the output exactly, with no
///   gap and no overlap, for any number of tiles; even edges keep each tile's 4:2:0 chroma its own.
/// - Fit: the picture (its display size: rotation and pixel aspect applied) is scaled to the largest even size that
///   fits the tile, and centred on an even offset; the rest of the tile shows the background.
/// - Fill: the picture is scaled to the smallest even size that covers the tile, and its centre, cut at an even
///   offset, fills the tile.
public struct TilePlacement: Sendable, Hashable {
    /// The take's rectangle in the output, in pixels.
    public let tile: PixelRect
    /// The size the take's picture is scaled to.
    public let scaledSize: PixelSize
    /// The part of the output the scaled picture covers (inside `tile`).
    public let visible: PixelRect
    /// The top-left corner, in the scaled picture, of the part that shows in `visible` (0, 0 when fitted).
    public let cropOrigin: (x: Int, y: Int)

    /// The placement of a picture of `pictureSize` display pixels in `region` of an `output`-sized frame.
    public init(
        region: NormalizedRect, output: PixelSize, pictureSize: PixelSize, scaling: CompositionPlan.Scaling
    ) {
        let tile = Self.pixelRect(of: region, in: output)
        self.tile = tile
        guard !tile.isEmpty, pictureSize.width > 0, pictureSize.height > 0 else {
            scaledSize = PixelSize(width: 0, height: 0)
            visible = PixelRect(x: tile.x, y: tile.y, width: 0, height: 0)
            cropOrigin = (0, 0)
            return
        }
        let widthRatio = Double(tile.width) / Double(pictureSize.width)
        let heightRatio = Double(tile.height) / Double(pictureSize.height)
        switch scaling {
        case .fit:
            let ratio = min(widthRatio, heightRatio)
            let width = min(tile.width, max(2, Self.even(Double(pictureSize.width) * ratio)))
            let height = min(tile.height, max(2, Self.even(Double(pictureSize.height) * ratio)))
            scaledSize = PixelSize(width: width, height: height)
            visible = PixelRect(
                x: tile.x + (tile.width - width) / 4 * 2, y: tile.y + (tile.height - height) / 4 * 2,
                width: width, height: height)
            cropOrigin = (0, 0)
        case .fill:
            let ratio = max(widthRatio, heightRatio)
            let width = max(tile.width, Self.even(Double(pictureSize.width) * ratio))
            let height = max(tile.height, Self.even(Double(pictureSize.height) * ratio))
            scaledSize = PixelSize(width: width, height: height)
            visible = tile
            cropOrigin = ((width - tile.width) / 4 * 2, (height - tile.height) / 4 * 2)
        }
    }

    /// `region` in pixels of an `output`-sized frame, each edge rounded to the nearest even pixel (ties up).
    public static func pixelRect(of region: NormalizedRect, in output: PixelSize) -> PixelRect {
        let left = edge(region.x, output.width)
        let right = edge(region.x + region.width, output.width)
        let top = edge(region.y, output.height)
        let bottom = edge(region.y + region.height, output.height)
        return PixelRect(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// The even pixel nearest `fraction` of `side`, clamped to `0...side`. The product is first snapped to 1/4096
    /// of a pixel, so that a sum of fractions (`x + width`) and the fraction it equals (`(column + 1) / columns`)
    /// name the same pixel even when they differ in their last bit.
    static func edge(_ fraction: Double, _ side: Int) -> Int {
        let halfPixels = ((fraction * Double(side) / 2) * 4096).rounded() / 4096
        let value = 2 * Int(halfPixels.rounded(.toNearestOrAwayFromZero))
        return min(max(value, 0), side)
    }

    /// The even integer nearest `value` (ties up).
    static func even(_ value: Double) -> Int {
        2 * Int((value / 2).rounded(.toNearestOrAwayFromZero))
    }
}

extension TilePlacement {
    /// Compares everything, the crop origin included.
    public static func == (lhs: TilePlacement, rhs: TilePlacement) -> Bool {
        lhs.tile == rhs.tile && lhs.scaledSize == rhs.scaledSize && lhs.visible == rhs.visible
            && lhs.cropOrigin == rhs.cropOrigin
    }

    /// Hashes everything, the crop origin included.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(tile)
        hasher.combine(scaledSize)
        hasher.combine(visible)
        hasher.combine(cropOrigin.x)
        hasher.combine(cropOrigin.y)
    }
}

import MediaCore
import Pixels

/// The lay-out stage: the tiles in drawing order over the background, and whether the background needs drawing.
struct TileStack {
    /// The tiles, lowest first: by z-order, then plan order.
    private(set) var layers: [TileLayer]
    private let background: YUVColor
    /// Whether the tiles that show a picture cover the whole output (a grid), so that the background needs no
    /// drawing while each of them shows one.
    private let covering: Bool
    /// The indices in ``layers`` of the tiles with a visible placement.
    private let visible: [Int]

    init(_ layers: [TileLayer], background: RGBColor, size: PixelSize) {
        let sorted = layers.sorted { ($0.source.zIndex, $0.source.order) < ($1.source.zIndex, $1.source.order) }
        let visible = sorted.indices.filter { !sorted[$0].slots.placement.visible.isEmpty }
        self.layers = sorted
        self.background = YUVColor(background)
        self.visible = visible
        covering = Compositor.cover(visible.map { sorted[$0].slots.placement.visible }, size)
    }

    /// Takes each tile's picture for the next output frame from its feed.
    mutating func advance() throws(CompositionError) {
        for index in layers.indices { try layers[index].advance() }
    }

    /// Draws the background (unless the tiles cover it) and every tile into `picture`.
    func draw(into picture: Frame) {
        if !covering || visible.contains(where: { !layers[$0].isShowing }) {
            Compositor.fill(picture, with: background)
        }
        for layer in layers { layer.draw(into: picture) }
    }
}

// The pixel value types of the plan (`PixelSize`, `RGBColor`) live in module Pixels, below Composition, CanvasKit and
// Thumbnails, so the three speak of sizes and colours with one type each; `import Composition` brings them.
@_exported import Pixels

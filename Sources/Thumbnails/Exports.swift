// The pixel value types (`PixelSize`, `RGBColor`) live in module Pixels, below both Thumbnails and CanvasKit, so the
// two speak of sizes and colours with one type each; `import Thumbnails` keeps bringing them.
@_exported import Pixels

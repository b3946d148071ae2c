// The media value types of the public API (`FileSystemPath`, `Rational`, `DynamicRange`) live in MediaCore, the FFmpeg
// layer Thumbnails and composition share; `import Thumbnails` brings them (MediaCore's `package` API stays inside the
// package).
@_exported import MediaCore
// The pixel value types (`PixelSize`, `RGBColor`) live in module Pixels, below both Thumbnails and CanvasKit, so the
// two speak of sizes and colours with one type each; `import Thumbnails` keeps bringing them.
@_exported import Pixels

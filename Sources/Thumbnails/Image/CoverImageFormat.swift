/// An encoded image file format for covers.
public enum CoverImageFormat: Sendable, Hashable {
    /// Lossless PNG (libavcodec's `png` encoder), RGB or RGBA as the cover is.
    case png
    /// Baseline JPEG (libavcodec's `mjpeg` encoder, full-range 4:2:0), `quality` 1 (smallest) ...
    /// 100 (best). Alpha is dropped.
    case jpeg(quality: Int)

    /// JPEG at quality 85: small files, no visible artefacts on a thumbnail.
    public static let jpeg = CoverImageFormat.jpeg(quality: 85)

    /// The format a file name's extension asks for: `png`, or `jpg` / `jpeg` (any case) for
    /// JPEG at quality 85; nil for any other extension.
    public init?(pathExtension: String) {
        switch pathExtension.lowercased() {
        case "png": self = .png
        case "jpg", "jpeg": self = .jpeg
        default: return nil
        }
    }

    /// The usual file extension: "png" or "jpg".
    public var pathExtension: String {
        switch self {
        case .png: "png"
        case .jpeg: "jpg"
        }
    }
}

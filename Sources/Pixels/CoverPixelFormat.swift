/// The pixel layout of a ``CoverImage``: 8 bits per channel, channels in this order.
public enum CoverPixelFormat: String, Sendable, Hashable, CaseIterable {
    /// Red, green, blue: 3 bytes per pixel.
    case rgb
    /// Red, green, blue, alpha (always 255, opaque): 4 bytes per pixel.
    case rgba

    /// Bytes per pixel.
    public var bytesPerPixel: Int {
        switch self {
        case .rgb: 3
        case .rgba: 4
        }
    }
}

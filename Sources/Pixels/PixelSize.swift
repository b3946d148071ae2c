/// A width and height in pixels.
public struct PixelSize: Sendable, Hashable {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// A size of `width` by `height` pixels.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}

extension PixelSize: CustomStringConvertible {
    /// "WIDTHxHEIGHT", e.g. "320x180".
    public var description: String { "\(width)x\(height)" }
}

extension PixelSize {
    /// 0x0: "no limit" as a maximum size.
    public static let zero = PixelSize(width: 0, height: 0)
}

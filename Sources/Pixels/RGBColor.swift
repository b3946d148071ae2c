/// An 8-bit red, green, blue triple.
public struct RGBColor: Sendable, Hashable {
    /// Red, 0-255.
    public var red: UInt8
    /// Green, 0-255.
    public var green: UInt8
    /// Blue, 0-255.
    public var blue: UInt8

    /// A colour of the given components.
    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }
}

extension RGBColor: CustomStringConvertible {
    /// "rgb(R, G, B)".
    public var description: String { "rgb(\(red), \(green), \(blue))" }
}

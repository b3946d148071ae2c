/// An exact ratio of two integers, as media files state frame rates and pixel aspect ratios
/// (30000/1001 frames per second, 4/3 pixels).
public struct Rational: Sendable, Hashable {
    /// The numerator.
    public var numerator: Int
    /// The denominator.
    public var denominator: Int

    /// A ratio stated as is, without reducing it.
    public init(numerator: Int, denominator: Int) {
        self.numerator = numerator
        self.denominator = denominator
    }

    /// The ratio as a floating-point number (`.nan` or an infinity when the denominator is zero).
    public var doubleValue: Double { Double(numerator) / Double(denominator) }

    /// The ratio turned over (a pixel aspect ratio once the picture is turned by a quarter).
    package var reciprocal: Rational { Rational(numerator: denominator, denominator: numerator) }
}

extension Rational: CustomStringConvertible {
    /// "numerator/denominator", e.g. "25/1".
    public var description: String { "\(numerator)/\(denominator)" }
}

/// A rectangle in the output picture, in fractions of its width and height (0-1, origin top left), as KSY's
/// `renderRegion`: `NormalizedRect(x: 0.5, y: 0, width: 0.5, height: 0.5)` is the top-right quarter.
public struct NormalizedRect: Sendable, Hashable, Codable {
    /// The left edge, 0-1 of the output width.
    public var x: Double
    /// The top edge, 0-1 of the output height.
    public var y: Double
    /// The width, 0-1 of the output width.
    public var width: Double
    /// The height, 0-1 of the output height.
    public var height: Double

    /// A rectangle of the given fractions; ``CompositionPlan/validated()`` checks that it lies in the output.
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The whole output.
    public static let full = NormalizedRect(x: 0, y: 0, width: 1, height: 1)

    /// Why the rectangle is not a non-empty rectangle inside the output, or nil when it is.
    var problem: String? {
        let values = [x, y, width, height]
        guard values.allSatisfy(\.isFinite) else { return "a rectangle's values must be finite numbers" }
        guard width > 0, height > 0 else { return "a rectangle's width and height must be greater than 0" }
        // A little slack for fractions such as 1/3 + 1/3 + 1/3 written with a few digits.
        let slack = 1e-6
        guard x >= -slack, y >= -slack, x + width <= 1 + slack, y + height <= 1 + slack else {
            return "the rectangle \(x),\(y) \(width)x\(height) is not inside the output (0-1)"
        }
        return nil
    }
}

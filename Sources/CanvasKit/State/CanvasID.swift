/// The stable identity of one canvas on a board.
///
/// A canvas keeps its identity while other canvases are added or removed and its index shifts, so view-models and
/// observation registries can key on it. Identities are handed out by the board in increasing order and never reused
/// by that board.
public struct CanvasID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The raw number, unique within the board that created it.
    public let rawValue: UInt64

    /// Wraps a raw number; boards create identities themselves, this is for tests and persistence.
    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// Orders identities by creation: a canvas added later has a greater identity.
    public static func < (lhs: CanvasID, rhs: CanvasID) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    /// `#` followed by the raw number, e.g. `#3`.
    public var description: String { "#\(rawValue)" }
}

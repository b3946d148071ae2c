import Foundation

// How a board is written into a draft's snapshot. Decoding checks what `BoardState.init(takes:selection:)` checks and
// more (identities unique and below the next one), so a snapshot that passed its checksum but says something
// impossible is refused, never turned into a board that breaks the invariants.

extension CanvasID: Codable {
    /// Decodes the raw number.
    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(UInt64.self))
    }

    /// Encodes the raw number.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

extension BoardState.Take: Codable {
    // Every stored property but the derived file key (`file`, `fileHash`, recomputed from the URL). A property added
    // to `Take` is added here too: `DraftTests` checks that a restored board equals the original, takes' starts
    // included.
    private enum CodingKeys: String, CodingKey { case url, start }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let start = try container.decode(Double.self, forKey: .start)
        guard start.isFinite else {
            throw DecodingError.dataCorruptedError(
                forKey: .start, in: container, debugDescription: "a take's start is not finite")
        }
        self.init(try container.decode(URL.self, forKey: .url), start: start)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(url, forKey: .url)
        try container.encode(start, forKey: .start)
    }
}

extension BoardState: Codable {
    private enum CodingKeys: String, CodingKey { case slots, selection, nextIdentity }

    /// Decodes a board encoded by ``encode(to:)``.
    ///
    /// - Throws: `DecodingError.dataCorrupted` when the board would be impossible: no canvas, a selection out of
    ///   range, two canvases with one identity or one take file, or an identity at or above the next one.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let slots = try container.decode([Slot].self, forKey: .slots)
        let selection = try container.decodeIfPresent(Selection.self, forKey: .selection)
        let nextIdentity = try container.decode(UInt64.self, forKey: .nextIdentity)
        func impossible(_ reason: String) -> DecodingError {
            DecodingError.dataCorrupted(DecodingError.Context(codingPath: decoder.codingPath, debugDescription: reason))
        }
        guard !slots.isEmpty else { throw impossible("a board has at least one canvas") }
        if let selection, !slots.indices.contains(selection.index) {
            throw impossible("selected canvas \(selection.index) is out of range (\(slots.count) canvases)")
        }
        var identities = Set<CanvasID>()
        var files = Set<String>()
        for slot in slots {
            guard slot.id.rawValue < nextIdentity, identities.insert(slot.id).inserted else {
                throw impossible("canvas identity \(slot.id) is repeated or not below the next one")
            }
            if let take = slot.take, !files.insert(take.file).inserted {
                throw impossible("two canvases share the take \(TakeName.describe(take.url))")
            }
        }
        self.init(canvasCount: 1)
        self.slots = ChunkedArray(slots)
        self.selection = selection
        self.nextIdentity = nextIdentity
    }

    /// Encodes every canvas (identity and take), the selection and the next identity.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Array(slots), forKey: .slots)
        try container.encodeIfPresent(selection, forKey: .selection)
        try container.encode(nextIdentity, forKey: .nextIdentity)
    }
}

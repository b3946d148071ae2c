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

extension BoardState.Segment: Codable {
    // Every stored property but the derived file key (`file`, `fileHash`, recomputed from the URL). A property added
    // to `Segment` is added here too: `DraftTests` checks that a restored board equals the original, segments' starts
    // and lengths included. Drafts of format 1 have no duration: 0. The missing mark is written only when set.
    private enum CodingKeys: String, CodingKey { case url, start, duration, missing }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let start = try container.decode(Double.self, forKey: .start)
        let duration = try container.decodeIfPresent(Double.self, forKey: .duration) ?? 0
        guard start.isFinite, duration.isFinite else {
            throw DecodingError.dataCorruptedError(
                forKey: .start, in: container, debugDescription: "a segment's start or length is not finite")
        }
        self.init(
            try container.decode(URL.self, forKey: .url), start: start, duration: duration,
            isMissing: try container.decodeIfPresent(Bool.self, forKey: .missing) ?? false)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(url, forKey: .url)
        try container.encode(start, forKey: .start)
        try container.encode(duration, forKey: .duration)
        if isMissing { try container.encode(true, forKey: .missing) }
    }
}

extension BoardState.Slot: Codable {
    // A canvas: its identity and its take's segments. Drafts of format 1 hold one `take` (a segment) or none.
    private enum CodingKeys: String, CodingKey { case id, segments, take }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let id = try container.decode(CanvasID.self, forKey: .id)
        if let segments = try container.decodeIfPresent([BoardState.Segment].self, forKey: .segments) {
            self.init(id: id, segments: segments)
        } else {
            let take = try container.decodeIfPresent(BoardState.Segment.self, forKey: .take)
            self.init(id: id, segments: take.map { [$0] } ?? [])
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(segments, forKey: .segments)
    }
}

extension Soundtrack: Codable {
    private enum CodingKeys: String, CodingKey { case url, start, gain, loops }

    /// Decodes a soundtrack encoded by ``encode(to:)``.
    ///
    /// - Throws: `DecodingError.dataCorrupted` when the start is not finite or the gain is not a finite number at
    ///   least 0.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let start = try container.decode(Double.self, forKey: .start)
        let gain = try container.decode(Double.self, forKey: .gain)
        guard start.isFinite, gain.isFinite, gain >= 0 else {
            throw DecodingError.dataCorruptedError(
                forKey: .gain, in: container,
                debugDescription: "a soundtrack's start or gain is not a number it can have")
        }
        self.init(
            url: try container.decode(URL.self, forKey: .url), start: start, gain: gain,
            loops: try container.decode(Bool.self, forKey: .loops))
    }

    /// Encodes the file, the start, the gain and whether it loops.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(url, forKey: .url)
        try container.encode(start, forKey: .start)
        try container.encode(gain, forKey: .gain)
        try container.encode(loops, forKey: .loops)
    }
}

extension BoardState: Codable {
    private enum CodingKeys: String, CodingKey {
        case slots, selection, nextIdentity, isResuming, armedUndo, soundtrack, recordsSound, maximumTakeLength
    }

    /// Decodes a board encoded by ``encode(to:)``.
    ///
    /// - Throws: `DecodingError.dataCorrupted` when the board would be impossible: no canvas, a selection out of
    ///   range, two canvases with one identity, a file that is two segments, an identity at or above the next one, a
    ///   resumed recording on a canvas without a take, an armed undo of a canvas without a take, or a maximum take
    ///   length that is not a positive number.
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
            for segment in slot.segments where !files.insert(segment.file).inserted {
                throw impossible("two segments share the file \(TakeName.describe(segment.url))")
            }
        }
        self.init(canvasCount: 1)
        self.slots = ChunkedArray(slots)
        self.selection = selection
        self.nextIdentity = nextIdentity
        try decodeSettings(container, impossible)
    }

    /// The fields drafts of format 1 do not have: each defaults to a board's initial value.
    private mutating func decodeSettings(
        _ container: KeyedDecodingContainer<CodingKeys>, _ impossible: (String) -> DecodingError
    ) throws {
        isResuming = try container.decodeIfPresent(Bool.self, forKey: .isResuming) ?? false
        if isResuming, !(recordingIndex.map { slots[$0].hasTake } ?? false) {
            throw impossible("a resumed recording without a take to continue")
        }
        armedUndo = try container.decodeIfPresent(CanvasID.self, forKey: .armedUndo)
        if let armedUndo, !(index(of: armedUndo).map { slots[$0].hasTake } ?? false) || isRecording {
            throw impossible("an armed undo of canvas \(armedUndo), which has no take or cannot undo now")
        }
        soundtrack = try container.decodeIfPresent(Soundtrack.self, forKey: .soundtrack)
        recordsSound = try container.decodeIfPresent(Bool.self, forKey: .recordsSound) ?? true
        maximumTakeLength = try container.decodeIfPresent(Double.self, forKey: .maximumTakeLength)
        if let limit = maximumTakeLength, !(limit.isFinite && limit > 0) {
            throw impossible("a maximum take length of \(limit) seconds")
        }
    }

    /// Encodes every canvas (identity and take's segments), the selection, the next identity, the armed undo, the
    /// soundtrack, the microphone setting and the maximum take length.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Array(slots), forKey: .slots)
        try container.encodeIfPresent(selection, forKey: .selection)
        try container.encode(nextIdentity, forKey: .nextIdentity)
        try container.encode(isResuming, forKey: .isResuming)
        try container.encodeIfPresent(armedUndo, forKey: .armedUndo)
        try container.encodeIfPresent(soundtrack, forKey: .soundtrack)
        try container.encode(recordsSound, forKey: .recordsSound)
        try container.encodeIfPresent(maximumTakeLength, forKey: .maximumTakeLength)
    }
}

import Foundation

// The rules of takes whose files are missing: `markMissing` says which file of a take is gone (a restore sends it for
// each take it finds so; the board checks nothing on disk), `relink` says the files are back. A take keeps its mark
// until then, or until it is replaced, deleted or loses the marked segment (`undo`).

extension BoardState {
    /// Marks the segment of the canvas's take whose file is `url` as the take's first missing file (any other mark of
    /// the take is cleared). No effect: the display shows it (``CanvasDisplay/Picture/missing(_:)``).
    mutating func markMissing(_ index: Int, _ url: URL, _ change: inout BoardChange) -> Rule {
        guard indices.contains(index) else { return .rejected(.indexOutOfRange(index: index, count: count)) }
        let file = Segment(url)
        let segments = slots[index].segments
        guard let marked = segments.firstIndex(where: { $0.isSameFile(as: file) }) else {
            return .rejected(.notInTake(url: url, index: index))
        }
        setSegments(
            segments.indices.map { segments[$0].marked(missing: $0 == marked) }, at: index, &change)
        return .accepted(.none)
    }

    /// Clears the canvas's missing mark (the app found the files again) and asks for the take's cover.
    mutating func relink(_ index: Int, _ change: inout BoardChange) -> Rule {
        guard indices.contains(index) else { return .rejected(.indexOutOfRange(index: index, count: count)) }
        let segments = slots[index].segments
        guard let first = segments.first, segments.contains(where: \.isMissing) else {
            return .rejected(.takeNotMissing(index: index))
        }
        setSegments(segments.map { $0.marked(missing: false) }, at: index, &change)
        return .accepted(Step.Effects(.coverWanted(index: index, url: first.url)))
    }

    /// The file of the take of the canvas at `index` that is marked missing (its first file found gone by a restore,
    /// or by the app: ``CanvasEvent/markMissing(_:_:)``), or nil when none is. - Precondition: `index` is in `indices`.
    public func missingFile(at index: Int) -> URL? {
        slots[index].segments.first(where: \.isMissing)?.url
    }
}

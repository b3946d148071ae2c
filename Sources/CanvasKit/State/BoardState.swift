import Foundation

/// The whole board as a value: N >= 1 canvases, each with an optional finished take (an ordered list of segments), at
/// most one selected canvas that holds the camera preview, at most one armed undo, the board's soundtrack and
/// microphone setting, and an optional maximum take length.
///
/// The representation makes invariants I1 and I2 hold by construction: there is one optional `selection` (an index and
/// a phase), and each canvas's `status` and `isSelected` are derived from it, never stored. A board therefore cannot
/// have two selected canvases, a recording canvas that is not selected, or two recordings.
///
/// Events go through `BoardState.transition(from:on:)`, the one transition function. Taps, record and cancel change
/// only `selection`, so they never copy the canvas storage, whatever the size of the board.
public struct BoardState: Sendable, Hashable {
    /// The one selected canvas: its index and whether it is previewing or recording.
    public struct Selection: Sendable, Hashable, Codable, CustomStringConvertible {
        /// What the selected canvas does with the camera preview.
        public enum Phase: String, Sendable, Hashable, CaseIterable, Codable {
            /// Showing the live preview, ready to record.
            case inPreview
            /// Recording a new take.
            case recording

            /// The `CanvasStatus` of the selected canvas in this phase.
            public var status: CanvasStatus {
                switch self {
                case .inPreview: .inPreview
                case .recording: .recording
                }
            }
        }

        /// The index of the selected canvas.
        public var index: Int
        /// Previewing or recording.
        public var phase: Phase

        /// A selection of the canvas at `index` in `phase`.
        public init(index: Int, phase: Phase) {
            self.index = index
            self.phase = phase
        }

        /// For example `2 recording`.
        public var description: String { "\(index) \(phase.rawValue)" }
    }

    /// Why `init(takes:selection:)` refused to build a board.
    public enum InvalidState: Error, Sendable, Hashable, CustomStringConvertible {
        /// A board has at least one canvas.
        case noCanvases
        /// The selection names an index outside the board.
        case selectionOutOfRange(index: Int, count: Int)
        /// Two canvases name the same take file; deleting one would destroy the other's take (I3).
        case duplicateTake(URL, indexes: [Int])

        /// A one-line reason, e.g. `selected canvas 4 is out of range (the board has 3 canvases)`.
        public var description: String {
            switch self {
            case .noCanvases:
                "a board has at least one canvas"
            case .selectionOutOfRange(let index, let count):
                "selected canvas \(index) is out of range (the board has \(count) canvases)"
            case .duplicateTake(let url, let indexes):
                "canvases \(indexes.map(String.init).joined(separator: ", ")) share the take "
                    + TakeName.describe(url)
            }
        }
    }

    /// What says whether two URLs name the same file: the absolute URL as a string, computed once, and its hash,
    /// compared first so that scanning a board for a file is mostly integer comparisons.
    struct FileKey: Sendable, Hashable {
        let file: String
        let fileHash: Int

        init(_ url: URL) {
            // `absoluteString` resolves a URL relative to a base itself; `absoluteURL.absoluteString` gives the same
            // string but parses it again into a new URL first (about 40% of a `stop` on the benchmark's takes).
            file = url.absoluteString
            fileHash = file.hashValue
        }

        static func == (lhs: FileKey, rhs: FileKey) -> Bool {
            lhs.fileHash == rhs.fileHash && lhs.file == rhs.file
        }

        func hash(into hasher: inout Hasher) { hasher.combine(file) }
    }

    /// One finished segment: its value (URL, start on the board's timeline, length, missing mark) and its file's key.
    struct Segment: Sendable, Hashable {
        let value: TakeSegment
        let key: FileKey

        init(_ url: URL, start: Double = 0, duration: Double = 0, isMissing: Bool = false) {
            self.init(TakeSegment(url: url, start: start, duration: duration, isMissing: isMissing))
        }

        init(_ segment: TakeSegment) {
            self.init(segment, key: FileKey(segment.url))
        }

        init(_ segment: TakeSegment, key: FileKey) {
            value = segment
            self.key = key
        }

        var url: URL { value.url }
        /// Where its first frame lies on the board's timeline, in seconds (see ``SyncedPlayback``).
        var start: Double { value.start }
        /// Its length in seconds (0 when the recorder did not say).
        var duration: Double { value.duration }
        /// Whether its file is marked missing (``CanvasEvent/markMissing(_:_:)``) until a `relink`.
        var isMissing: Bool { value.isMissing }
        /// The absolute URL as a string: two segments with the same one are the same file.
        var file: String { key.file }

        func isSameFile(as other: Segment) -> Bool { key == other.key }

        /// The same segment, its file marked missing or not.
        func marked(missing: Bool) -> Segment {
            guard missing != isMissing else { return self }
            var marked = value
            marked.isMissing = missing
            return Segment(marked, key: key)
        }
    }

    /// What the board stores per canvas: identity and take (its segments; none: no take). Status and selection live
    /// in `selection`.
    ///
    /// The take is kept as the values that snapshots, effects and playback hand out, so they share its array instead
    /// of building one each time (a `record` lists every other take). The files' keys are kept beside it, the first
    /// one inline: scanning the board for a file reads nothing else for a take of one segment, the common case. A
    /// canvas without a take holds no reference at all, so copying a chunk of canvases (what `stop` and `delete` do in
    /// the pure form) counts references only for the takes.
    struct Slot: Sendable, Hashable {
        /// A take: its segments (never empty) and their files' keys.
        struct Take: Sendable, Hashable {
            /// The segments, in order.
            var segments: [TakeSegment]
            /// The key of the first segment's file.
            var firstFile: FileKey
            /// The keys of the later segments' files, in order (empty, and so not allocated, for one segment).
            var laterFiles: [FileKey] = []
        }

        let id: CanvasID
        /// The take; nil: no take.
        private(set) var take: Take?

        init(id: CanvasID, segments: [Segment] = []) {
            self.id = id
            setTake(segments)
        }

        /// The take's segments, in order; empty: no take.
        var takeSegments: [TakeSegment] { take?.segments ?? [] }
        /// The take's segments with their files' keys.
        var segments: [Segment] {
            guard let take else { return [] }
            return take.segments.indices.map { Segment(take.segments[$0], key: file(at: $0)) }
        }
        var videoURL: URL? { take?.segments[0].url }
        /// (A pattern, not `take != nil`, which copies the take out to compare it and counts its references.)
        var hasTake: Bool {
            if case .some = take { return true }
            return false
        }
        /// The take's length: its segments' lengths added.
        var length: Double { take?.segments.reduce(0) { $0 + $1.duration } ?? 0 }

        /// The key of segment `index`'s file. - Precondition: `index` is in `take.segments.indices`.
        func file(at index: Int) -> FileKey { index == 0 ? take!.firstFile : take!.laterFiles[index - 1] }

        /// Whether a segment of the take is the file `key` names.
        func contains(_ key: FileKey) -> Bool {
            guard let take else { return false }
            return take.firstFile == key || take.laterFiles.contains(key)
        }

        /// The URLs of the take's segments whose file is not `key`'s, in order.
        func urls(besides key: FileKey) -> [URL] {
            guard let take else { return [] }
            return take.segments.indices.filter { file(at: $0) != key }.map { take.segments[$0].url }
        }

        /// Makes `segments` the take (empty: no take).
        mutating func setTake(_ segments: [Segment]) {
            guard let first = segments.first else {
                take = nil
                return
            }
            take = Take(
                segments: segments.map(\.value), firstFile: first.key,
                laterFiles: segments.count > 1 ? segments.dropFirst().map(\.key) : [])
        }

        /// Makes `segment` the take's one segment.
        mutating func setTake(_ segment: Segment) {
            take = Take(segments: [segment.value], firstFile: segment.key)
        }

        /// Appends `segment` to the take (it becomes the take when there is none).
        mutating func append(_ segment: Segment) {
            guard hasTake else { return setTake(segment) }
            take!.segments.append(segment.value)
            take!.laterFiles.append(segment.key)
        }

        /// Removes the take and returns it (moved out, not copied); nil when there was none.
        mutating func removeTake() -> Take? { take.take() }

        /// Removes the take's last segment. - Precondition: the slot has a take.
        mutating func removeLast() {
            guard take!.segments.count > 1 else {
                take = nil
                return
            }
            take!.segments.removeLast()
            take!.laterFiles.removeLast()
        }
    }

    /// The canvases, in chunks: a transition that changes one take copies one chunk, not the board (see
    /// `ChunkedArray`).
    var slots: ChunkedArray<Slot>

    /// The selected canvas, if any. At most one canvas is selected (I1) and at most one records (I2).
    public internal(set) var selection: Selection?

    /// Whether the recording in progress continues its canvas's take (`resume`) rather than starting a new one;
    /// always false when nothing records. (Stored after `selection`, in its padding: a board is copied on every pure
    /// transition.)
    var isResuming = false

    /// The raw value of the next `CanvasID` this board hands out.
    var nextIdentity: UInt64

    /// The canvas whose undo waits for its confirmation (a second `undo`), if any. Every other accepted event clears it.
    public internal(set) var armedUndo: CanvasID?

    /// The soundtrack, the microphone setting and the maximum take length, out of line (see `Settings`).
    var storedSettings = OutOfLine.settings(Settings())

    /// A board of `canvasCount` empty canvases, none selected, identities `#0`, `#1`, ...
    ///
    /// - Precondition: `canvasCount >= 1` (a board always has a canvas; like `Array(repeating:count:)`, a bad count
    ///   is a programming error).
    public init(canvasCount: Int) {
        precondition(canvasCount >= 1, "a board has at least one canvas, got \(canvasCount)")
        slots = ChunkedArray((0..<canvasCount).lazy.map { Slot(id: CanvasID(rawValue: UInt64($0))) })
        selection = nil
        nextIdentity = UInt64(canvasCount)
    }

    /// A board with one canvas per element of `takes` (its finished take or nil) and the given selection.
    ///
    /// Every state this initializer accepts is a state the events can reach from an empty board, so tests and hosts
    /// may start anywhere without building an impossible board.
    ///
    /// - Throws: `InvalidState` when `takes` is empty, the selection is out of range, or two canvases share a take file.
    public init(takes: [URL?], selection: Selection? = nil) throws(InvalidState) {
        try self.init(segments: takes.map { $0.map { [TakeSegment(url: $0)] } ?? [] }, selection: selection)
    }

    /// A board with one canvas per element of `segments` (its take's segments in order; empty: no take) and the given
    /// selection. Like ``init(takes:selection:)``, it accepts only states the events can reach.
    ///
    /// - Throws: `InvalidState` when `segments` is empty, the selection is out of range, or a file is two segments
    ///   (of one take or of two).
    public init(segments: [[TakeSegment]], selection: Selection? = nil) throws(InvalidState) {
        guard !segments.isEmpty else { throw .noCanvases }
        if let selection, !segments.indices.contains(selection.index) {
            throw .selectionOutOfRange(index: selection.index, count: segments.count)
        }
        var owners: [String: [Int]] = [:]
        var urls: [String: URL] = [:]
        for (index, take) in segments.enumerated() {
            for segment in take {
                let file = Segment(segment).file
                owners[file, default: []].append(index)
                urls[file] = segment.url
            }
        }
        if let shared = owners.filter({ $0.value.count > 1 }).min(by: { $0.value[0] < $1.value[0] }) {
            throw .duplicateTake(urls[shared.key]!, indexes: shared.value)
        }
        slots = ChunkedArray(
            segments.enumerated().lazy.map {
                Slot(id: CanvasID(rawValue: UInt64($0.offset)), segments: $0.element.map(Segment.init))
            })
        self.selection = selection
        nextIdentity = UInt64(segments.count)
    }

    /// The number of canvases; always at least 1.
    public var count: Int { slots.count }

    /// The canvas indexes, `0..<count`.
    public var indices: Range<Int> { 0..<slots.count }

    /// A snapshot of the canvas at `index`.
    ///
    /// - Precondition: `index` is in `indices` (use `canvas(at:)` for a checked lookup).
    public subscript(index: Int) -> CanvasState {
        let slot = slots[index]
        let armed = armedUndo == slot.id
        if let selection, selection.index == index {
            return CanvasState(
                id: slot.id, status: selection.phase.status, isSelected: true, segments: slot.takeSegments,
                isUndoArmed: armed)
        }
        return CanvasState(
            id: slot.id, status: .noPreview, isSelected: false, segments: slot.takeSegments, isUndoArmed: armed)
    }

    /// A snapshot of the canvas at `index`, or nil when the index is out of range.
    public func canvas(at index: Int) -> CanvasState? {
        indices.contains(index) ? self[index] : nil
    }

    /// Snapshots of every canvas, in board order.
    public var canvases: [CanvasState] { indices.map { self[$0] } }

    /// The identity of the canvas at `index`. - Precondition: `index` is in `indices`.
    public func id(at index: Int) -> CanvasID { slots[index].id }

    /// The take of the canvas at `index`. - Precondition: `index` is in `indices`.
    public func videoURL(at index: Int) -> URL? { slots[index].videoURL }

    /// Where the take of the canvas at `index` starts on the board's timeline, in seconds (the start its first
    /// segment's `stop` event carried), or nil when the canvas has no take. - Precondition: `index` is in `indices`.
    public func takeStart(at index: Int) -> Double? { slots[index].take?.segments[0].start }

    /// The segments of the take of the canvas at `index`, in order; empty when it has no take.
    /// - Precondition: `index` is in `indices`.
    public func segments(at index: Int) -> [TakeSegment] { slots[index].takeSegments }

    /// How long the take of the canvas at `index` is: its segments' lengths added (0 without a take).
    /// - Precondition: `index` is in `indices`.
    public func takeLength(at index: Int) -> Double { slots[index].length }

    /// Every canvas's take with its place on the board's timeline and its segments, in canvas order (canvases without
    /// a take are left out; `index` says which canvas each take belongs to): what a composition of the board needs.
    public var timelineTakes: [SyncedPlayback.Take] {
        indices.compactMap { index in
            slots[index].take.map { SyncedPlayback.Take(index: index, segments: $0.segments) }
        }
    }

    /// The index of the canvas with identity `id`, or nil when it is not on this board. Linear in the board size.
    public func index(of id: CanvasID) -> Int? { slots.firstIndex { $0.id == id } }

    /// The index of the canvas that holds the camera preview (previewing or recording), if any.
    public var previewIndex: Int? { selection?.index }

    /// The index of the recording canvas, if any.
    public var recordingIndex: Int? {
        guard let selection, selection.phase == .recording else { return nil }
        return selection.index
    }

    /// Whether a canvas is recording; while it is, the screen is locked (I2).
    public var isRecording: Bool { selection?.phase == .recording }

    /// What the canvas at `index` shows (derived, never stored). - Precondition: `index` is in `indices`.
    public func display(at index: Int) -> CanvasDisplay {
        self[index].display(boardIsRecording: isRecording)
    }

    /// What every canvas shows, in board order.
    public var displays: [CanvasDisplay] { indices.map(display(at:)) }

    /// The index of another canvas than `index` whose take has a segment in the file `key` names, if any. Linear in
    /// the canvases: one integer comparison per take of one segment, and a string comparison on a match.
    func owner(of key: FileKey, other index: Int) -> Int? {
        let excluded = slots[index].id
        return slots.firstIndex { $0.contains(key) && $0.id != excluded }
    }
}

extension BoardState: CustomStringConvertible {
    /// One line per canvas, e.g. `0: #0 inPreview selected take=a.mov`.
    public var description: String {
        indices.map { "\($0): \(self[$0])" }.joined(separator: "\n")
    }
}

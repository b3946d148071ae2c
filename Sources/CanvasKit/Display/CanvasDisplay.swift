import Foundation

/// What one canvas shows (Docs/CanvasKit.md, "What a canvas shows"): the picture, and what the cell says about the
/// canvas's take. Derived from the state, never stored.
///
/// The highlighted border is part of the picture: `livePreview` and `recording` are highlighted, the others are not, so
/// a highlighted cover or an unhighlighted live preview cannot be expressed. Two displays are equal when both the
/// picture and the take's summary are, so a cell that redraws on every change of its display redraws when a segment is
/// added or removed, when the take's length changes and when the undo is armed or disarmed.
public struct CanvasDisplay: Sendable, Hashable, CustomStringConvertible {
    /// What the cell's picture is.
    public enum Picture: Sendable, Hashable, CustomStringConvertible {
        /// The selected canvas, previewing: the live camera preview, highlighted.
        case livePreview
        /// The selected canvas, recording: the live preview with the recording indicator, highlighted.
        case recording
        /// A canvas with a take while nothing records: the take's cover (the first segment's file).
        case cover(URL)
        /// A canvas with a take while another canvas records: the take playing, so the new take can be synced to it.
        case playback(URL)
        /// A canvas with no take that is not previewing: the add button.
        case addButton
        /// A canvas whose take has a file marked missing (the URL: the first one gone), not previewing: the take
        /// cannot be shown or played until the app relinks it or confirms its removal.
        case missing(URL)

        /// The kind's name, followed by the take for `cover` and `playback`, e.g. `cover a.mov`.
        public var description: String {
            switch self {
            case .livePreview: Kind.livePreview.rawValue
            case .recording: Kind.recording.rawValue
            case .cover(let url): "\(Kind.cover.rawValue) \(TakeName.describe(url))"
            case .playback(let url): "\(Kind.playback.rawValue) \(TakeName.describe(url))"
            case .addButton: Kind.addButton.rawValue
            case .missing(let url): "\(Kind.missing.rawValue) \(TakeName.describe(url))"
            }
        }
    }

    /// What the cell says about a canvas's take, beside the picture: how many segments, how long, and whether the
    /// removal of the last segment waits for its confirmation.
    public struct Take: Sendable, Hashable, CustomStringConvertible {
        /// How many segments the take has (at least 1).
        public var segmentCount: Int
        /// How long the take is, in seconds: its segments' recorded durations added.
        public var length: Double
        /// Whether the canvas's undo is armed: the cell asks "delete the last segment?", and a second `undo` of this
        /// canvas removes it.
        public var isUndoArmed: Bool

        /// A take of `segmentCount` segments lasting `length` seconds, its undo armed or not.
        public init(segmentCount: Int, length: Double, isUndoArmed: Bool) {
            self.segmentCount = segmentCount
            self.length = length
            self.isUndoArmed = isUndoArmed
        }

        /// The summary of a take made of `segments` (nil when empty: no take).
        public init?(segments: [TakeSegment], isUndoArmed: Bool) {
            guard !segments.isEmpty else { return nil }
            self.init(
                segmentCount: segments.count, length: segments.reduce(0) { $0 + $1.duration }, isUndoArmed: isUndoArmed)
        }

        /// The segment count and the length, e.g. `2 segments, 3.5s` or `1 segment, 2s` (what a cell's caption says).
        public var description: String {
            "\(segmentCount) segment\(segmentCount == 1 ? "" : "s"), \(TakeLength.describe(length))"
        }
    }

    /// The picture.
    public var picture: Picture
    /// The take's summary, or nil when the canvas has no take (a canvas recording a new take has none until its
    /// segment ends; one recording its next segment shows the segments recorded so far).
    public var take: Take?

    /// A display of `picture` with `take`.
    public init(picture: Picture, take: Take? = nil) {
        self.picture = picture
        self.take = take
    }

    /// What a canvas with this status, take and undo arming shows, given whether some canvas on the board is
    /// recording.
    ///
    /// Total over all inputs: the status decides the picture first (a canvas that holds the preview shows it), then the
    /// take: `missing` while a file of it is marked missing, else its first segment's cover, or the take playing while
    /// another canvas records.
    public init(status: CanvasStatus, segments: [TakeSegment], isUndoArmed: Bool, boardIsRecording: Bool) {
        self.init(
            status: status, videoURL: segments.first?.url, missingFile: segments.first(where: \.isMissing)?.url,
            take: Take(segments: segments, isUndoArmed: isUndoArmed), boardIsRecording: boardIsRecording)
    }

    /// The display of a canvas whose take's first segment is `videoURL`, whose file marked missing is `missingFile`
    /// and whose take is summed up as `take`.
    init(status: CanvasStatus, videoURL: URL?, missingFile: URL?, take: Take?, boardIsRecording: Bool) {
        self.take = take
        switch status {
        case .inPreview: picture = .livePreview
        case .recording: picture = .recording
        case .noPreview:
            if let missingFile {
                picture = .missing(missingFile)
            } else if let videoURL {
                picture = boardIsRecording ? .playback(videoURL) : .cover(videoURL)
            } else {
                picture = .addButton
            }
        }
    }

    /// The kinds of picture, one per case; `rawValue` is the `canvas-sim` JSON vocabulary (`shows`).
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case livePreview, recording, cover, playback, addButton, missing
    }

    /// The kind of the picture.
    public var kind: Kind {
        switch picture {
        case .livePreview: .livePreview
        case .recording: .recording
        case .cover: .cover
        case .playback: .playback
        case .addButton: .addButton
        case .missing: .missing
        }
    }

    /// The stable short name of the picture: `livePreview`, `recording`, `cover`, `playback`, `addButton` or
    /// `missing`.
    public var name: String { kind.rawValue }

    /// Whether the canvas has the highlighted border: exactly when it shows the live preview (selected).
    public var isHighlighted: Bool {
        switch picture {
        case .livePreview, .recording: true
        case .cover, .playback, .addButton, .missing: false
        }
    }

    /// The take shown (cover or playback), if any: its first segment's file.
    public var videoURL: URL? {
        switch picture {
        case .cover(let url), .playback(let url): url
        case .livePreview, .recording, .addButton, .missing: nil
        }
    }

    /// The name, followed by the take for `cover` and `playback`, then the take's summary in parentheses, e.g.
    /// `cover a.mov (2 segments, 3.5s)` or `livePreview (1 segment, 2s, delete the last segment?)`.
    public var description: String {
        guard let take else { return picture.description }
        return "\(picture) (\(take)\(take.isUndoArmed ? ", delete the last segment?" : ""))"
    }
}

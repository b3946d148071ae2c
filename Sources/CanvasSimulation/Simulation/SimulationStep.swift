import CanvasHost
import CanvasKit
import Foundation

/// One canvas as a simulation step reports it.
///
/// For a canvas whose cell is on screen, ``shows`` and ``cover`` are what the cell draws (its view-model's published
/// values, as the cell's observations delivered them), and ``status``, ``isSelected`` and ``videoURL`` are those of the
/// model bound to the cell. For a canvas with no cell on screen (scrolled away, or the screen is away), they are the
/// model's values and what a cell bound to it would show, and ``isVisible`` is false.
public struct SimulationCanvas: Sendable, Hashable {
    /// The canvas's index on the board.
    public var index: Int
    /// The model's status.
    public var status: CanvasStatus
    /// Whether the model is selected.
    public var isSelected: Bool
    /// The model's take (its first segment's file), if any.
    public var videoURL: URL?
    /// The model's take's segments, in order (empty: no take).
    public var segments: [TakeSegment] = []
    /// Whether the model's undo is armed (the cell asks to confirm the removal of the last segment).
    public var isUndoArmed = false
    /// What the canvas shows.
    public var shows: CanvasDisplay
    /// Whether a displayed cell in the viewport shows it while the screen is on screen.
    public var isVisible: Bool
    /// Whether the take is a simulated one (a bare `stop`): there is no file, hence no cover.
    public var takeIsSimulated: Bool
    /// The take's cover image, once loaded: the cell's for a visible canvas, else the one the simulation prepared when
    /// the take finished.
    public var cover: CoverImage?
    /// Why the take's cover could not be loaded, in one line (paths as the script wrote them).
    public var coverError: String?

    /// A canvas as given (for drawing a board that no simulation ran, e.g. in a test).
    public init(
        index: Int, status: CanvasStatus, isSelected: Bool, videoURL: URL?, shows: CanvasDisplay, isVisible: Bool,
        takeIsSimulated: Bool, cover: CoverImage?, coverError: String?
    ) {
        self.index = index
        self.status = status
        self.isSelected = isSelected
        self.videoURL = videoURL
        self.shows = shows
        self.isVisible = isVisible
        self.takeIsSimulated = takeIsSimulated
        self.cover = cover
        self.coverError = coverError
    }
}

/// A cover that could not be loaded during a step.
public struct SimulationCoverFailure: Sendable, Hashable {
    /// The canvas whose take it is, as of the end of the step.
    public var index: Int
    /// The take.
    public var videoURL: URL
    /// The provider's one-line reason, with the file's path written as the script wrote it.
    public var reason: String
}

/// What one command did, as ``BoardSimulation/perform(_:takeIsSynthetic:)`` reports it.
public struct SimulationStep: Sendable {
    /// The step's number, from 1.
    public var number: Int
    /// The command.
    public var command: CanvasScript.Command
    /// Whether the board (or, for `scroll`, `disappear` and `appear`, the host) accepted it.
    public var isAccepted: Bool
    /// The one-line rejection reason, when rejected.
    public var reason: String?
    /// Every canvas of the board after the step, in board order.
    public var canvases: [SimulationCanvas]
    /// The board's effects, in the order the host performs them (empty for a rejection and for host commands).
    public var effects: [CanvasEffect]
    /// Covers that failed to load during the step (each take reported once per run).
    public var coverFailures: [SimulationCoverFailure]
    /// Whether the screen is on screen after the step.
    public var isOnScreen: Bool
    /// The items in the viewport after the step.
    public var visibleRange: Range<Int>
    /// The canvas whose cell holds the live preview after the step (nil: no cell holds it).
    public var previewIndex: Int?
    /// Cells the host has made so far.
    public var cellsMade: Int
    /// Cells the host has reused so far.
    public var cellsReused: Int
    /// Live observations in the process after the step (`Observing`'s diagnostics).
    public var liveObservations: Int
    /// The board's soundtrack after the step, if any.
    public var soundtrack: Soundtrack?
    /// The board's microphone setting after the step: whether takes record their own sound.
    public var recordsSound = true
    /// The simulation's clock after the step, in seconds.
    public var clock: Double = 0

    /// The command in the event language (`tap 0`, `stop take-1.mov`, `scroll 4`).
    public var event: String { command.description }

    /// The first and last indexes of the canvases on screen after the step; nil when none is (the screen is away).
    public var viewport: ClosedRange<Int>? {
        guard isOnScreen, !visibleRange.isEmpty else { return nil }
        return visibleRange.lowerBound...(visibleRange.upperBound - 1)
    }
}

/// Counters over a whole run.
public struct SimulationSummary: Sendable, Hashable {
    /// Steps accepted (board events and host commands).
    public var accepted = 0
    /// Steps rejected.
    public var rejected = 0
    /// Live observations in the process at the end (`Observing`'s diagnostics).
    public var liveObservations = 0
    /// Observations registered by the cells' view-models at the end (the registration log's live set).
    public var cellRegistrations = 0
    /// `reloadData()` calls: zero for a correct screen.
    public var reloads = 0
    /// Times a visible cell showed something other than what its model implies, over all steps: zero when every
    /// change reached the cells.
    public var staleCells = 0
    /// Registration audit violations (a key registered twice, or removed without being registered).
    public var registrationViolations = 0
    /// Cells made.
    public var cellsMade = 0
    /// Cells reused.
    public var cellsReused = 0

    /// Creates an all-zero summary.
    public init() {}
}

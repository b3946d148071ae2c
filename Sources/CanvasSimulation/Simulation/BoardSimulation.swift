import CanvasHost
import CanvasKit
import Foundation
import Locking
import Observing

/// A board on a headless canvas screen, stepped through commands of the event language (`canvas-sim`'s engine).
///
/// The board runs on a `CanvasScreen`: a headless collection view driven by a `CanvasScreenAdapter`, whose cells
/// draw real `CanvasCellViewModel`s and host the live preview as an app's do. Board events go to the `CanvasBoard`; `scroll N`, `disappear`
/// and `appear` act on the host. Each step reports every canvas as its cell shows it (see ``SimulationCanvas``), the
/// effects, and the covers that failed.
///
/// Covers: with a `CoverProvider`, the simulation performs the `coverWanted` effect of a finished take by asking the
/// provider for it (as a host preparing a cover would), and the cells ask for the covers they show. After every step
/// it waits until every request in flight has finished, so a step's output never depends on timing. Takes marked
/// simulated (a bare `stop`) have no file and are never asked for.
///
/// Effects: the simulation is the board's `CanvasEffectPerformer`, as an app's camera object is: each accepted event's
/// effects are handed to ``perform(_:)``, which records them for the step's report and carries out `coverWanted`.
///
/// Time: the board reads a ``VirtualClock`` that moves ``SimulatedRecordingTiming/stepDuration`` after each step.
/// `record` starts the playing takes at the clock's time plus the lead; the simulated recorder stamps its first
/// sample ``SimulatedRecordingTiming/recorderDelay`` later and reports its capture latency, and a script's `stop`
/// reaches the board with the take's start computed from them (CanvasKit's `SyncedPlayback.takeStart(recordingBeganAt:captureLatency:)`),
/// as an app's recorder delegate does.
///
/// Main-actor isolated, like the screen it drives. Deliberately not `Sendable`.
@MainActor
public final class BoardSimulation: @MainActor CanvasEffectPerformer {
    /// The board.
    public let board: CanvasBoard
    /// The screen showing it.
    public let screen: CanvasScreen
    /// The largest cover a cell asks for.
    public let coverSize: PixelSize

    private let covers: SettlingCoverProvider
    /// Covers prepared on `coverWanted`, by take (key: `SettlingCoverProvider/key(_:)`).
    private var prepared: [URL: CoverImage] = [:]
    /// Takes whose cover failed, with the reason (key as above).
    private var failed: [URL: String] = [:]
    private var stepNumber = 0
    private var counters = SimulationSummary()
    private var syntheticTakes = 0
    /// The effects performed during the current step.
    private var stepEffects: [CanvasEffect] = []
    /// The simulation's clock, which the board reads.
    public let clock: VirtualClock
    /// How the simulated camera times recordings.
    public let timing: SimulatedRecordingTiming
    /// The playback and settings of the recording in progress and the host time its first sample was stamped with.
    private var recording: (playback: SyncedPlayback, settings: RecordingSettings, began: HostTime)?
    /// The recordings the simulated recorder stopped at the board's maximum take length so far.
    private var limitTakes = 0
    /// Where the files of recordings stopped at the limit are (nil: the current directory).
    public var baseDirectory: URL?

    /// A board of `canvasCount` empty canvases on a screen showing `visibleCount` of them at once, on screen.
    ///
    /// - Parameters:
    ///   - canvasCount: the number of canvases (at least 1).
    ///   - visibleCount: the viewport's size in items (at least 1).
    ///   - coverProvider: where covers come from; nil means no covers (displays still say `cover`).
    ///   - coverSize: the largest cover asked for.
    ///   - timing: how the simulated camera times recordings on the simulation's clock (every take starts at timeline 0
    ///     by default).
    /// - Precondition: `canvasCount >= 1`.
    public convenience init(
        canvasCount: Int,
        visibleCount: Int = 9,
        coverProvider: (any CoverProvider)? = nil,
        coverSize: PixelSize = PixelSize(width: 160, height: 120),
        timing: SimulatedRecordingTiming = SimulatedRecordingTiming()
    ) {
        precondition(canvasCount >= 1, "a board has at least one canvas")
        self.init(visibleCount: visibleCount, coverProvider: coverProvider, coverSize: coverSize, timing: timing) {
            clock, lead in CanvasBoard(state: BoardState(canvasCount: canvasCount), clock: clock, playbackLead: lead)
        }
    }

    /// The board `makeBoard` makes (a board restored from a draft, for instance) on a screen showing `visibleCount`
    /// canvases at once, on screen. `makeBoard` gets the simulation's clock and the playback lead, for the board to
    /// read. The other parameters are as for ``init(canvasCount:visibleCount:coverProvider:coverSize:timing:)``.
    ///
    /// - Throws: what `makeBoard` throws.
    public init<Failure: Error>(
        visibleCount: Int = 9,
        coverProvider: (any CoverProvider)? = nil,
        coverSize: PixelSize = PixelSize(width: 160, height: 120),
        timing: SimulatedRecordingTiming = SimulatedRecordingTiming(),
        board makeBoard: (_ clock: VirtualClock, _ playbackLead: Double) throws(Failure) -> CanvasBoard
    ) throws(Failure) {
        let covers = SettlingCoverProvider(base: coverProvider)
        self.covers = covers
        self.coverSize = coverSize
        let clock = VirtualClock()
        self.clock = clock
        self.timing = timing
        board = try makeBoard(clock, timing.playbackLead)
        screen = CanvasScreen(
            board: board, configuration: CollectionHostConfiguration(viewportSize: visibleCount),
            coverProvider: covers, coverSize: coverSize, log: RegistrationLog(keepsEntries: false))
        screen.screenDidAppear()
        covers.waitUntilSettled()
    }

    /// The next simulated take for a host that makes takes up as it goes (an interactive `s`): `take-n.mov` relative
    /// to `baseDirectory`, n counting from 1 and skipping names already a take on the board.
    public func nextSimulatedTake(baseDirectory: URL? = nil) -> URL {
        let used = Set(board.state.indices.compactMap { board.state[$0].videoURL.map(SettlingCoverProvider.key) })
        var url: URL
        repeat {
            syntheticTakes += 1
            url = CanvasScript.syntheticTake(number: syntheticTakes, baseDirectory: baseDirectory)
        } while used.contains(SettlingCoverProvider.key(url))
        return url
    }

    /// Runs every step of `script` in order, calling `report` after each.
    public func run(_ script: CanvasScript, report: (SimulationStep) -> Void) {
        for step in script.steps {
            report(perform(step.command, takeIsSynthetic: step.takeIsSynthetic))
        }
    }

    /// Performs one command and reports the board after it.
    ///
    /// A rejected command (an out-of-range index, a tap while recording, a `scroll` past the end, a second
    /// `disappear`) changes nothing and is reported with its reason; it is never an error. An accepted host command
    /// (`scroll`, `disappear`, `appear`, `wait`) disarms an armed undo, as any other accepted event does. After the
    /// command the clock moves on by ``SimulatedRecordingTiming/stepDuration`` (by its seconds for `wait`); a recording
    /// that reaches the board's maximum take length meanwhile is stopped by its recorder, into a simulated file
    /// `limit-n.mov`, and the step reports it.
    ///
    /// - Parameters:
    ///   - command: the command to perform.
    ///   - takeIsSynthetic: for `stop`, whether its take is simulated (no file: no cover is asked for).
    public func perform(_ command: CanvasScript.Command, takeIsSynthetic: Bool = false) -> SimulationStep {
        stepNumber += 1
        stepEffects = []
        var reason: String?
        switch command {
        case .event(let event):
            reason = send(event, takeIsSynthetic: takeIsSynthetic)
        case .scroll, .disappear, .appear, .wait:
            reason = performHostCommand(command)
            if reason == nil, board.state.armedUndo != nil { send(.disarmUndo) }
        }
        covers.waitUntilSettled()
        if case .wait(let seconds) = command { advance(by: seconds) } else { advance(by: timing.stepDuration) }
        if reason == nil { counters.accepted += 1 } else { counters.rejected += 1 }
        return report(command, reason: reason)
    }

    /// Sends a board event, with the start and length of the segment it ends when it ends one (as the recorder would
    /// report them); performs its effects. - Returns: the rejection's reason, or nil when accepted.
    @discardableResult
    private func send(_ event: CanvasEvent, takeIsSynthetic: Bool = false) -> String? {
        var event = event
        if case .stop(let url, _, _) = event {
            if takeIsSynthetic { covers.markSimulated(url) }
            if let (start, duration) = segmentTiming() { event = .stop(url, start: start, duration: duration) }
        }
        if case .recordingCutShort(let problem, let url?, _, _) = event, let (start, duration) = segmentTiming() {
            event = .recordingCutShort(problem, file: url, start: start, duration: duration)
        }
        // Every effect is reported with its step, the held-back ones too: the simulation removes no file, so it
        // need not wait for a draft record (an app's performer is handed them once durable).
        let outcome = board.send(event)
        for effect in outcome.effects { perform(effect) }
        if outcome.rejection == nil, !board.isRecording { recording = nil }
        return outcome.rejection?.description
    }

    /// Performs `scroll`, `disappear`, `appear` or `wait` on the host. - Returns: the rejection's reason, or nil.
    private func performHostCommand(_ command: CanvasScript.Command) -> String? {
        switch command {
        case .scroll(let index):
            let count = screen.host.numberOfItems
            guard (0..<count).contains(index) else {
                return "index out of range: item \(index) does not exist (the collection has \(count) items)"
            }
            screen.scrollToItem(at: index)
        case .disappear:
            guard screen.host.isOnScreen else { return "not on screen: the screen has already disappeared" }
            screen.screenWillDisappear()
        case .appear:
            guard !screen.host.isOnScreen else { return "already on screen: the screen has not disappeared" }
            screen.screenDidAppear()
        case .event, .wait:
            break
        }
        return nil
    }

    /// Moves the clock `seconds` on; a recording whose segment reaches its longest length meanwhile
    /// (``CanvasKit/RecordingSettings/maximumDuration``) is stopped by the simulated recorder at that instant.
    private func advance(by seconds: Double) {
        guard let recording, let longest = recording.settings.maximumDuration else {
            clock.advance(by: seconds)
            return
        }
        let end = recording.began + longest
        let now = clock.now()
        guard now + seconds >= end else {
            clock.advance(by: seconds)
            return
        }
        clock.advance(by: max(0, end - now))
        limitTakes += 1
        let file = CanvasScript.takeURL("limit-\(limitTakes).mov", baseDirectory: baseDirectory)
        send(.stop(file), takeIsSynthetic: true)
        covers.waitUntilSettled()
        clock.advance(by: max(0, now + seconds - clock.now()))
    }

    /// The step's report: every canvas, the effects, the covers that failed.
    private func report(_ command: CanvasScript.Command, reason: String?) -> SimulationStep {
        let failures = collectFailures()
        let canvases = self.canvases
        counters.staleCells +=
            canvases.filter { canvas in
                canvas.isVisible
                    && canvas.shows
                        != CanvasDisplay(
                            status: canvas.status, segments: canvas.segments, isUndoArmed: canvas.isUndoArmed,
                            boardIsRecording: board.isRecording)
            }.count
        let statistics = screen.host.statistics
        let state = board.state
        var step = SimulationStep(
            number: stepNumber, command: command, isAccepted: reason == nil, reason: reason, canvases: canvases,
            effects: stepEffects,
            coverFailures: failures.compactMap { failure in
                guard
                    let index = canvases.firstIndex(where: { $0.videoURL.map(SettlingCoverProvider.key) == failure.key }
                    )
                else { return nil }
                return SimulationCoverFailure(index: index, videoURL: failure.url, reason: failure.reason)
            },
            isOnScreen: screen.host.isOnScreen, visibleRange: screen.host.visibleRange,
            previewIndex: screen.previewIndex,
            cellsMade: statistics.cellsMade, cellsReused: statistics.cellsReused,
            liveObservations: ObservationDiagnostics.liveObservationCount)
        step.soundtrack = state.soundtrack
        step.recordsSound = state.recordsSound
        step.clock = clock.now().seconds
        return step
    }

    /// The counters so far; live observations and reloads as of now.
    public var summary: SimulationSummary {
        var summary = counters
        let statistics = screen.host.statistics
        summary.liveObservations = ObservationDiagnostics.liveObservationCount
        summary.cellRegistrations = screen.binder.log.liveCount
        summary.reloads = statistics.reloads
        summary.registrationViolations = screen.binder.log.violations.count
        summary.cellsMade = statistics.cellsMade
        summary.cellsReused = statistics.cellsReused
        return summary
    }

    /// Every canvas of the board now, in board order (see ``SimulationCanvas``).
    public var canvases: [SimulationCanvas] {
        let host = screen.host
        let isRecording = board.isRecording
        return board.canvases.enumerated().map { index, model in
            var canvas = canvas(at: index, model, host: host, isRecording: isRecording)
            canvas.segments = model.segments
            canvas.isUndoArmed = model.isUndoArmed
            return canvas
        }
    }

    /// The canvas at `index` as its cell shows it (or would, when it has none on screen).
    private func canvas(
        at index: Int, _ model: CanvasModel, host: HeadlessCollectionView, isRecording: Bool
    ) -> SimulationCanvas {
        let key = model.videoURL.map(SettlingCoverProvider.key)
        let simulated = model.videoURL.map(covers.isSimulated) ?? false
        if host.isOnScreen, host.visibleRange.contains(index), let cell = screen.cell(at: index),
            let shown = cell.shownDisplay, let viewModel = screen.viewModel(of: cell), let bound = viewModel.model
        {
            return SimulationCanvas(
                index: index, status: bound.status, isSelected: bound.isSelected, videoURL: bound.videoURL,
                shows: shown, isVisible: true, takeIsSimulated: simulated,
                cover: cell.shownCover ?? key.flatMap { prepared[$0] },
                coverError: viewModel.coverError.map { relativize($0, bound.videoURL) }
                    ?? key.flatMap { failed[$0] })
        }
        return SimulationCanvas(
            index: index, status: model.status, isSelected: model.isSelected, videoURL: model.videoURL,
            shows: model.display(boardIsRecording: isRecording),
            isVisible: false, takeIsSimulated: simulated, cover: key.flatMap { prepared[$0] },
            coverError: key.flatMap { failed[$0] })
    }

    // MARK: Effects and covers

    /// Carries out one effect of an accepted event, as a host does: records it for the step's report, and for
    /// `coverWanted` asks the provider for the take's cover (waiting for it, so the step's output never depends on
    /// timing). The other effects need nothing of a simulated camera.
    public func perform(_ effect: CanvasEffect) {
        stepEffects.append(effect)
        switch effect {
        case .coverWanted(_, let url): prepareCover(of: url)
        case .startRecording(_, let playback, let settings):
            recording = (playback, settings, playback.hostTime + timing.recorderDelay)
        default: break
        }
    }

    /// The start on the timeline and the length of the segment being recorded, if one is, as its recorder would
    /// report them when it stops now: from its first sample (less the capture latency) to the clock's time.
    private func segmentTiming() -> (start: Double, duration: Double)? {
        guard let recording else { return nil }
        let start = recording.playback.takeStart(
            recordingBeganAt: recording.began, captureLatency: timing.captureLatency)
        return (start, max(0, clock.now() - recording.began))
    }

    /// Performs a `coverWanted` effect: asks the provider for the take's cover and keeps it for canvases that have no
    /// cell on screen (and for a picture of the board).
    private func prepareCover(of url: URL) {
        let box = LockedValue<CoverImage?>(nil)
        _ = covers.requestCover(for: url, maximumSize: coverSize) { result in
            if case .success(let cover) = result { box.withLock { $0 = cover } }
        }
        covers.waitUntilSettled()
        if let cover = box.withLock({ $0 }) { prepared[SettlingCoverProvider.key(url)] = cover }
    }

    /// The failures since the last step, each take reported once per run.
    private func collectFailures() -> [(key: URL, url: URL, reason: String)] {
        var result: [(key: URL, url: URL, reason: String)] = []
        for failure in covers.takeFailures() {
            let key = SettlingCoverProvider.key(failure.url)
            guard failed[key] == nil else { continue }
            let reason = relativize(failure.reason, failure.url)
            failed[key] = reason
            result.append((key, failure.url, reason))
        }
        return result
    }

    /// `reason` with the take's absolute path written as the script wrote it, so transcripts do not depend on where
    /// they run.
    private func relativize(_ reason: String, _ url: URL?) -> String {
        guard let url, url.isFileURL else { return reason }
        return reason.replacingOccurrences(of: url.path, with: TakeName.describe(url))
    }
}

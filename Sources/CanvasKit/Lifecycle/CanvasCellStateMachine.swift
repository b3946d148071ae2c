import Foundation

/// What a derivation of a cell's display reads: the bound model's status, take and undo arming, and whether the board
/// records.
struct CanvasCellValues: Sendable, Hashable {
    var status: CanvasStatus
    var videoURL: URL?
    /// The take's file marked missing, if any.
    var missingFile: URL? = nil
    /// The take's segment count, length and undo arming (nil without a take).
    var take: CanvasDisplay.Take? = nil
    var boardIsRecording: Bool
}

/// The decisions of one ``CanvasCellViewModel`` as a value: each lifecycle hook, model change and cover completion is
/// an event (a `mutating func`) that returns the actions the view-model must carry out, in the manner of swift-nio's
/// handler state machines. The machine itself performs nothing: it registers no observation, starts no request and
/// writes no observable property, so it is tested alone, exhaustively, without observation.
///
/// | event | state change | actions |
/// | --- | --- | --- |
/// | `bind(model:board:)` | bound to the pair; derived | moved observations if observing (`rebind`); cover; publish |
/// | `registrationsPerformed()` | derived (again) | cover; publish |
/// | `unbind()` | unbound, not observing | unregister, cancel the cover request, publish nil |
/// | `startObserving()` | observing | register then derive (if bound and not yet), or derive; cover, publish |
/// | `stopObserving()` | not observing | unregister (if registered) |
/// | `modelChanged(read:)` | derived, when the values read differ from the last derivation's | cover; publish |
/// | `boardRecordingChanged(read:)` | as `modelChanged(read:)`, only when a take is shown | same |
/// | `coverRequestStarted(_:number:)` | request kept | cancel it if no longer wanted |
/// | `coverFinished(_:number:)` | cover loaded or failed | publish |
/// | `nextPublication()` | published value recorded | write `display` or `cover`, or stop publishing |
/// | `teardown()` | - | unregister, cancel |
///
/// Registered observations are not stored: they are the bound model and board while observation is wanted, and the
/// actions move them whenever either changes, so "observing a model that is not bound" cannot be expressed. Actions
/// that register ask for a derivation after the registrations (`deriveAfterRegistering`): a value read before its
/// observation exists could change unseen in between, and nothing would correct the display later. A
/// derivation reads the values through `read`, which the view-model calls under its lock: derivations are therefore
/// ordered, and a later one has read newer values. Every thread that changed something publishes (`nextPublication(after:)`): whoever
/// publishes takes the newest derived values until nothing differs, so `display` and `cover` always end on the newest
/// values, whatever the threads, with no lock held while they notify.
struct CanvasCellStateMachine: Sendable {
    /// The model and board a view-model is bound to (compared by identity).
    struct Binding: Sendable {
        let model: CanvasModel
        let board: CanvasBoard
    }

    /// Where the cover of the bound canvas's take stands. Each request has a number, so that a completion or a
    /// late-returning request of an earlier one is recognized and ignored.
    enum Cover: Sendable {
        /// No cover asked for (none shown yet, or no provider).
        case none
        /// Asked for `take`; `request` is nil until the provider returned it.
        case requested(take: URL, number: UInt64, request: (any CancellableCoverRequest)?)
        /// Delivered.
        case loaded(take: URL, number: UInt64, CoverImage)
        /// Failed with a one-line reason.
        case failed(take: URL, number: UInt64, reason: String)

        var take: URL? {
            switch self {
            case .none: nil
            case .requested(let take, _, _), .loaded(let take, _, _), .failed(let take, _, _): take
            }
        }

        var number: UInt64? {
            switch self {
            case .none: nil
            case .requested(_, let number, _), .loaded(_, let number, _), .failed(_, let number, _): number
            }
        }
    }

    /// The bound canvas and what was derived from it.
    struct Bound: Sendable {
        let binding: Binding
        var display: CanvasDisplay
        /// The take the display was derived from.
        var take: URL?
        var cover: Cover = .none
        /// The values the display was last derived from.
        var values: CanvasCellValues?
    }

    /// A cover to ask for.
    struct CoverTicket: Sendable, Hashable {
        let take: URL
        let number: UInt64
    }

    /// One write of an observable property of the view-model.
    enum Publication: Sendable, Hashable {
        case display(CanvasDisplay?)
        case cover(CoverImage?)
    }

    /// The actions of one event, carried out in this order: observations ended, then started; a cover request
    /// cancelled; ``display`` and ``cover`` published (when `publish`); a cover requested. An event causes at most
    /// one of each, so they are fields rather than a list (nothing is allocated per event).
    struct Actions: Sendable {
        var unregisterModel: CanvasModel?
        var unregisterBoard: CanvasBoard?
        var registerModel: CanvasModel?
        var registerBoard: CanvasBoard?
        var cancel: (any CancellableCoverRequest)?
        /// Whether to run the publication loop (`nextPublication()` until nil).
        var publish = false
        var requestCover: CoverTicket?
        /// Whether the view-model must call `registrationsPerformed(read:)` once the registrations are performed (and
        /// carry out its actions): set whenever something is registered, so the display is derived from values read
        /// while the observations that report their changes exist.
        var deriveAfterRegistering = false

        /// Nothing to do.
        static var none: Actions { Actions() }
    }

    /// Whether covers can be asked for (the view-model has a provider).
    let requestsCovers: Bool
    private(set) var bound: Bound?
    /// Whether the binder wants observations (the cell is displayed and the screen on screen).
    private(set) var wantsObservation = false
    /// How many times the display was derived.
    private(set) var recomputations = 0
    private var nextRequestNumber: UInt64 = 1
    /// The request number of the cover last handed to a publishing loop (nil: no cover).
    private var publishedCover: UInt64?

    init(requestsCovers: Bool) {
        self.requestsCovers = requestsCovers
    }

    // MARK: Queries

    var binding: Binding? { bound?.binding }

    /// Whether observations are registered: wanted, and something is bound.
    var isObserving: Bool { wantsObservation && bound != nil }

    /// The reason of the failed cover request for the current take, if any.
    var coverError: String? {
        guard case .failed(_, _, let reason) = bound?.cover else { return nil }
        return reason
    }

    // MARK: Lifecycle events

    /// Bound to `model` on `board` (from `cellForItem`). Binding to the same pair again only re-derives; binding to
    /// another while observing moves the observations (old removed first) and drops the old take's cover.
    mutating func bind(
        model: CanvasModel, board: CanvasBoard, read: (Binding) -> CanvasCellValues
    ) -> Actions {
        var actions = Actions.none
        if let bound, bound.binding.model === model, bound.binding.board === board {
            derive(read, into: &actions)
            return actions
        }
        let binding = Binding(model: model, board: board)
        if wantsObservation {
            moveObservations(from: bound?.binding, to: binding, into: &actions)
        }
        if case .requested(_, _, let request) = bound?.cover { actions.cancel = request }
        let values = read(binding)
        recomputations += 1
        bound = Bound(
            binding: binding, display: Self.display(values), take: values.videoURL)
        updateCover(into: &actions)
        actions.publish = needsPublication
        return actions
    }

    /// Unbound (from `prepareForReuse`): observations end, the cover request is cancelled, nothing is shown.
    /// Idempotent.
    mutating func unbind() -> Actions {
        var actions = Actions.none
        if wantsObservation { moveObservations(from: bound?.binding, to: nil, into: &actions) }
        wantsObservation = false
        if case .requested(_, _, let request) = bound?.cover { actions.cancel = request }
        bound = nil
        actions.publish = needsPublication
        return actions
    }

    /// Observation wanted (from `willDisplay`, `screenDidAppear`): registers the bound pair if not yet, and
    /// re-derives. Without a binding it only remembers the wish for the next `bind`.
    mutating func startObserving(read: (Binding) -> CanvasCellValues) -> Actions {
        var actions = Actions.none
        if !wantsObservation, let binding = bound?.binding {
            moveObservations(from: nil, to: binding, into: &actions)
        }
        wantsObservation = true
        // Registering: the derivation waits for the registrations (`registrationsPerformed(read:)`).
        if !actions.deriveAfterRegistering { derive(read, into: &actions) }
        return actions
    }

    /// The registrations of the last actions are performed: derives from values read now, whose every later change
    /// is reported.
    mutating func registrationsPerformed(read: (Binding) -> CanvasCellValues) -> Actions {
        var actions = Actions.none
        guard isObserving else { return actions }
        derive(read, into: &actions)
        return actions
    }

    /// Observation no longer wanted (from `didEndDisplaying`, `screenWillDisappear`): the observations end; the model
    /// stays bound and its cover keeps coming. Idempotent.
    mutating func stopObserving() -> Actions {
        var actions = Actions.none
        if wantsObservation, let binding = bound?.binding {
            moveObservations(from: binding, to: nil, into: &actions)
        }
        wantsObservation = false
        return actions
    }

    /// The view-model goes away: whatever is registered ends and the request is cancelled; nothing is published.
    mutating func teardown() -> Actions {
        var actions = stopObserving()
        if case .requested(_, _, let request) = bound?.cover { actions.cancel = request }
        bound = nil
        return actions
    }

    // MARK: Changes

    /// An observed key of the bound model changed: derives again, unless the values are those of the last
    /// derivation. The board writes an event's changes in one observation transaction, so the first notification of
    /// an event already reads every value it wrote, and the event's other notifications find nothing new: one
    /// derivation per event, with no call back into the board.
    mutating func modelChanged(read: (Binding) -> CanvasCellValues) -> Actions {
        var actions = Actions.none
        guard let binding = bound?.binding else { return actions }
        let values = read(binding)
        guard values != bound?.values else { return actions }
        derive({ _ in values }, into: &actions)
        return actions
    }

    /// The board's `isRecording` changed: only a canvas that shows its take (as a cover, or playing) depends on it.
    mutating func boardRecordingChanged(read: (Binding) -> CanvasCellValues) -> Actions {
        switch bound?.display.picture {
        case .cover?, .playback?: modelChanged(read: read)
        default: .none
        }
    }

    // MARK: Covers

    /// The provider returned the request numbered `number`. Returns it when it is to be cancelled at once (unbound,
    /// rebound or the take changed meanwhile); nil when it is kept or already finished.
    mutating func coverRequestStarted(_ request: any CancellableCoverRequest, number: UInt64) -> (
        any CancellableCoverRequest
    )? {
        guard let cover = bound?.cover, cover.number == number else { return request }
        if case .requested(let take, _, nil) = cover {
            bound!.cover = .requested(take: take, number: number, request: request)
        }
        return nil
    }

    /// The request numbered `number` finished. Ignored unless it is the current request.
    mutating func coverFinished(_ result: Result<CoverImage, any Error>, number: UInt64) -> Actions {
        var actions = Actions.none
        guard case .requested(let take, number, _) = bound?.cover else { return actions }
        switch result {
        case .success(let image): bound!.cover = .loaded(take: take, number: number, image)
        case .failure(let error): bound!.cover = .failed(take: take, number: number, reason: String(describing: error))
        }
        actions.publish = true
        return actions
    }

    // MARK: Publication

    /// What one publishing loop wrote last (nil: nothing yet).
    struct Written: Sendable {
        var display: CanvasDisplay??
        var cover: UInt64??
    }

    /// The next write of ``CanvasCellViewModel/display`` or ``CanvasCellViewModel/cover`` for a publishing loop that
    /// wrote `written` so far, or nil when what it wrote last is the newest. Every thread that changed something runs
    /// its own loop (so a change made on the main thread is written there, at once); whoever writes last finds its
    /// values still newest, so the properties always end on the newest values.
    mutating func nextPublication(after written: inout Written) -> Publication? {
        let display = bound?.display
        if written.display.map({ $0 != display }) ?? true {
            written.display = .some(display)
            return .display(display)
        }
        var cover: (number: UInt64, image: CoverImage)?
        if case .loaded(_, let number, let image) = bound?.cover { cover = (number, image) }
        if cover?.number != (written.cover ?? publishedCover) {
            publishedCover = cover?.number
            written.cover = .some(cover?.number)
            return .cover(cover?.image)
        }
        return nil
    }

    // MARK: Helpers

    /// Whether the caller should publish: always after a derivation, an unbind or a finished cover (writing an equal
    /// value notifies nothing; the publishing loop skips a cover already handed out).
    private var needsPublication: Bool { true }

    private static func display(_ values: CanvasCellValues) -> CanvasDisplay {
        CanvasDisplay(
            status: values.status, videoURL: values.videoURL, missingFile: values.missingFile, take: values.take,
            boardIsRecording: values.boardIsRecording)
    }

    /// Re-derives the bound canvas's display from `read`, then brings the cover request and the publications in line.
    private mutating func derive(_ read: (Binding) -> CanvasCellValues, into actions: inout Actions) {
        guard let binding = bound?.binding else { return }
        let values = read(binding)
        recomputations += 1
        bound!.values = values
        bound!.display = Self.display(values)
        // A take shown missing has no cover to keep: once relinked, its cover is asked for again.
        bound!.take = bound!.display.kind == .missing ? nil : values.videoURL
        updateCover(into: &actions)
        actions.publish = needsPublication
    }

    /// Cancels the request for a take the canvas no longer has, and asks for the cover of a take it shows as a cover
    /// (once per take: re-deriving the same take asks nothing).
    private mutating func updateCover(into actions: inout Actions) {
        guard let bound else { return }
        if let requested = bound.cover.take, requested != bound.take {
            if case .requested(_, _, let request) = bound.cover { actions.cancel = request }
            self.bound!.cover = .none
        }
        guard requestsCovers, case .cover(let take) = bound.display.picture, case .none = self.bound!.cover else {
            return
        }
        let number = nextRequestNumber
        nextRequestNumber += 1
        self.bound!.cover = .requested(take: take, number: number, request: nil)
        actions.requestCover = CoverTicket(take: take, number: number)
    }

    /// The registration actions that take the observations from `old` to `new` (each object only if it changes).
    private func moveObservations(from old: Binding?, to new: Binding?, into actions: inout Actions) {
        if old?.model !== new?.model {
            actions.unregisterModel = old?.model
            actions.registerModel = new?.model
        }
        if old?.board !== new?.board {
            actions.unregisterBoard = old?.board
            actions.registerBoard = new?.board
        }
        actions.deriveAfterRegistering = actions.registerModel != nil || actions.registerBoard != nil
    }
}

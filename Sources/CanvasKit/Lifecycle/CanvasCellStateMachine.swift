import Foundation

/// What a cell shows for its canvas and the take whose cover it keeps: one value, `CanvasModel.cellValues`, which the
/// cell observes.
struct CanvasCellValues: Sendable, Hashable {
    var display: CanvasDisplay
    /// The take's first file, nil without a take or while a file of it is marked missing.
    var take: URL?
}

/// The decisions of one ``CanvasCellViewModel`` as a value: each lifecycle hook, model change and cover completion is
/// an event (a `mutating func`) that returns the actions the view-model must carry out, in the manner of swift-nio's
/// handler state machines. The machine itself performs nothing: it registers no observation, starts no request and
/// writes no observable property, so it is tested alone, exhaustively, without observation.
///
/// | event | state change | actions |
/// | --- | --- | --- |
/// | `bind(model:board:values:)` | bound to the pair; derived | moved observation if observing (`rebind`); cover; publish |
/// | `unbind()` | unbound, not observing | unregister, cancel the cover request, publish nil |
/// | `startObserving()` | observing | register (if bound and not yet) |
/// | `stopObserving()` | not observing | unregister (if registered) |
/// | `changed(to:of:)` | derived from the values handed, when they differ from the last derivation's | cover; publish |
/// | `coverRequestStarted(_:number:)` | request kept | cancel it if no longer wanted |
/// | `coverFinished(_:number:)` | cover loaded or failed | publish |
/// | `teardown()` | - | unregister, cancel |
///
/// The registered observation is not stored: it is the bound model's while observation is wanted, and the actions
/// move it whenever either changes, so "observing a model that is not bound" cannot be expressed. The observation is
/// registered with its `.initial` call, which hands the values current at registration (`changed(to:of:)`), and then
/// every later change, in order: a value read before the observation existed is never left shown. The view-model
/// publishes (`publish`) under its lock, inside an observation transaction, so `display` and `cover` are stored in the
/// order the machine changed and their observers are told after the lock is left.
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

    /// The actions of one event, carried out in this order: ``display`` and ``cover`` published (when `publish`, under
    /// the view-model's lock); the observation ended, then started; a cover request cancelled; a cover requested. An
    /// event causes at most one of each, so they are fields rather than a list (nothing is allocated per event).
    struct Actions: Sendable {
        var unregister: CanvasModel?
        var register: CanvasModel?
        var cancel: (any CancellableCoverRequest)?
        /// Whether to write the bound display and cover (``shownDisplay``, ``shownCover``).
        var publish = false
        var requestCover: CoverTicket?

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

    /// What the view-model shows: the bound canvas's display, nil while unbound.
    var shownDisplay: CanvasDisplay? { bound?.display }

    /// The cover the view-model shows: the current take's, once loaded.
    var shownCover: CoverImage? {
        guard case .loaded(_, _, let image) = bound?.cover else { return nil }
        return image
    }

    // MARK: Lifecycle events

    /// Bound to `model` on `board` (from `cellForItem`), whose values are `values` (read by the caller). Binding to
    /// the same pair again re-derives from `values` unless observing (then the observation's values are newer); binding
    /// to another while observing moves the observation (old removed first) and drops the old take's cover.
    mutating func bind(model: CanvasModel, board: CanvasBoard, values: CanvasCellValues) -> Actions {
        var actions = Actions.none
        if let bound, bound.binding.model === model, bound.binding.board === board {
            if !wantsObservation { derive(values, into: &actions) }
            return actions
        }
        let binding = Binding(model: model, board: board)
        if wantsObservation {
            actions.unregister = bound?.binding.model
            actions.register = model
        }
        if case .requested(_, _, let request) = bound?.cover { actions.cancel = request }
        bound = Bound(binding: binding, display: values.display)
        derive(values, into: &actions)
        return actions
    }

    /// Unbound (from `prepareForReuse`): the observation ends, the cover request is cancelled, nothing is shown.
    /// Idempotent.
    mutating func unbind() -> Actions {
        var actions = Actions.none
        if wantsObservation { actions.unregister = bound?.binding.model }
        wantsObservation = false
        if case .requested(_, _, let request) = bound?.cover { actions.cancel = request }
        bound = nil
        actions.publish = true
        return actions
    }

    /// Observation wanted (from `willDisplay`, `screenDidAppear`): registers the bound model's observation if not yet
    /// (its `.initial` call derives). Without a binding it only remembers the wish for the next `bind`.
    mutating func startObserving() -> Actions {
        var actions = Actions.none
        if !wantsObservation { actions.register = bound?.binding.model }
        wantsObservation = true
        return actions
    }

    /// Observation no longer wanted (from `didEndDisplaying`, `screenWillDisappear`): the observation ends; the model
    /// stays bound and its cover keeps coming. Idempotent.
    mutating func stopObserving() -> Actions {
        var actions = Actions.none
        if wantsObservation { actions.unregister = bound?.binding.model }
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

    /// The observation of `model` handed `values` (its `.initial` call, or a change): derives from them, unless
    /// `model` is no longer bound (a call that started before the observation moved) or they are the values of the
    /// last derivation. The board writes an event's changes in one observation transaction, and the observation
    /// reports its value once after them: one derivation per event, with no read of the model here.
    mutating func changed(to values: CanvasCellValues, of model: CanvasModel) -> Actions {
        var actions = Actions.none
        guard let bound, bound.binding.model === model, values != bound.values else { return actions }
        derive(values, into: &actions)
        return actions
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

    // MARK: Helpers

    /// Derives the bound canvas's display from `values`, then brings the cover request in line and publishes.
    private mutating func derive(_ values: CanvasCellValues, into actions: inout Actions) {
        guard bound != nil else { return }
        recomputations += 1
        bound!.values = values
        bound!.display = values.display
        bound!.take = values.take
        updateCover(into: &actions)
        actions.publish = true
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
}

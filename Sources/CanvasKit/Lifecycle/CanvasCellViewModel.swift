import Foundation
import Locking
import Observing

/// The view-model of one canvas cell: bound to one ``CanvasModel`` at a time, it publishes what the cell shows as
/// the observable ``display`` (a cell view observes the view-model, never the model), and the take's ``cover`` once
/// loaded.
///
/// Binding and observing are separate on purpose:
/// - ``bind(to:on:)`` (from `cellForItem`) remembers the model and computes the display once; it registers nothing.
/// - ``startObserving(in:)`` (from `willDisplay` and `screenDidAppear`) registers the observations: the model's
///   `status`, `segments` (the take: the cover is its first segment's, and the display says how many segments and how
///   long the take is) and `isUndoArmed`, and the board's `isRecording` (a canvas with a take shows its cover, or its
///   take playing while another canvas records).
/// - ``stopObserving(in:)`` (from `didEndDisplaying` and `screenWillDisappear`) removes them.
/// - ``unbind(in:)`` (from `prepareForReuse`) removes them, cancels the cover request and forgets the model.
///
/// Observations go through a `KeyValueObserver`, keyed by (object identity, key path), and every registration and
/// removal is recorded in the ``RegistrationLog`` given at creation (which made the observer, and audits what it
/// observes). So a repeated start, a stop without a start, a
/// stop after the screen disappeared, or a bind to another model while observing are all harmless: a key is never
/// registered twice, and a removal always targets the object that was registered.
///
/// When the display is a cover, the view-model asks its ``CoverProvider`` once per take; it cancels that request when
/// it is unbound or the canvas's take changes (not when the cell merely ends display: a prefetched or scrolled-away
/// cell keeps its cover coming).
///
/// One board event makes one derivation per view-model: the board writes an event's changes in one observation
/// transaction, so the first notification already reads every value the event wrote (a tap that selects a canvas
/// writes its `isSelected` and its `status`, a `stop` its `segments` and `videoURL`; the cell derives once, from all of
/// them) and the others find nothing new.
///
/// The decisions are a value, `CanvasCellStateMachine` (events in, actions out); this class only carries out its
/// actions: registrations, cover requests and the writes of ``display`` and ``cover``.
///
/// Thread safety: `Sendable`; every method may be called from any thread, and model changes are handled on the thread
/// that makes them (a board may be driven from a background queue). The lifecycle calls (bind, unbind, start, stop)
/// are meant to come from one thread at a time, as UIKit's hooks do. (`display` and `cover` keep their `Observed`
/// storage in `let`s, which a `Sendable` class may hold, where the `@Observed` wrapper's storage would be a `var`.)
public final class CanvasCellViewModel: KeyValueObservable, Sendable {
    private let _display = Observed<CanvasDisplay?>(wrappedValue: nil)
    private let _cover = Observed<CoverImage?>(wrappedValue: nil)

    /// What the cell shows: derived from the bound model and whether the board records; nil while unbound.
    /// Notifies only when the display really changes.
    public private(set) var display: CanvasDisplay? {
        get { _display[self, \.display] }
        set { _display[self, \.display] = newValue }
    }

    /// The cover of the bound canvas's take, once the provider delivered it; nil before, while unbound, and after
    /// the take changed.
    public private(set) var cover: CoverImage? {
        get { _cover[self, \.cover] }
        set { _cover[self, \.cover] = newValue }
    }

    private let machine: LockedValue<CanvasCellStateMachine>
    /// The observer holding the model and board observations, owned by the view-model (so each handler is handed the
    /// view-model, and the log given at creation audits them); made once, in `init`.
    private let observerSlot = LockedValue<KeyValueObserver?>(nil)
    private let coverProvider: (any CoverProvider)?
    private let coverSize: PixelSize
    /// Where registrations and removals are recorded; it audits the observations this view-model owns.
    let log: RegistrationLog?

    /// Creates an unbound view-model.
    ///
    /// - Parameters:
    ///   - coverProvider: where covers come from; without one, no cover is requested (the display still says
    ///     `cover`).
    ///   - coverSize: the largest cover wanted.
    ///   - log: where registrations and removals are recorded for auditing.
    public init(
        coverProvider: (any CoverProvider)? = nil,
        coverSize: PixelSize = PixelSize(width: 320, height: 320),
        log: RegistrationLog? = nil
    ) {
        self.coverProvider = coverProvider
        self.coverSize = coverSize
        self.log = log
        machine = LockedValue(CanvasCellStateMachine(requestsCovers: coverProvider != nil))
        let observer = KeyValueObserver(owner: self)
        observerSlot.withLock { $0 = observer }
    }

    /// The observer holding the model and board observations.
    var observer: KeyValueObserver { observerSlot.withLock { $0! } }

    deinit {
        var actions = machine.withLock { $0.teardown() }
        actions.publish = false
        perform(actions, in: .teardown)
    }

    // MARK: Queries

    /// The bound model, if any.
    public var model: CanvasModel? { machine.withLock { $0.binding?.model } }

    /// Whether observations are registered now.
    public var isObserving: Bool { machine.withLock { $0.isObserving } }

    /// How many times the display was derived: at bind, at start, and once per board event that changed an observed
    /// key (however many of them it changed).
    public var recomputations: Int { machine.withLock { $0.recomputations } }

    /// The one-line reason of the last failed cover request for the current take, if any.
    public var coverError: String? { machine.withLock { $0.coverError } }

    /// The keys observed on a model.
    public static var modelKeyPaths: [String] { modelKeys.map(\.name) }

    /// The keys observed on the board.
    public static var boardKeyPaths: [String] { boardKeys.map(\.name) }

    // MARK: Lifecycle

    /// Binds to `model` on `board` (from `cellForItem`) and derives the display; registers nothing. Binding to the
    /// same model again only re-derives. Binding to another model while observing moves the observations to the new
    /// model (removing them from the old one first).
    public func bind(to model: CanvasModel, on board: CanvasBoard) {
        let actions = machine.withLock { $0.bind(model: model, board: board, read: Self.read) }
        perform(actions, in: .rebind)
    }

    /// Removes the observations, cancels the cover request and forgets the model (from `prepareForReuse`).
    /// Idempotent.
    public func unbind(in hook: LifecycleHook = .prepareForReuse) {
        let actions = machine.withLock { $0.unbind() }
        perform(actions, in: hook)
    }

    /// Registers the observations of the bound model and board, if not registered yet, and re-derives the display
    /// (from `willDisplay` and `screenDidAppear`). Without a bound model it only remembers that observations are
    /// wanted, for the next ``bind(to:on:)``.
    public func startObserving(in hook: LifecycleHook = .willDisplay) {
        let actions = machine.withLock { $0.startObserving(read: Self.read) }
        perform(actions, in: hook)
    }

    /// Removes the observations, if any (from `didEndDisplaying` and `screenWillDisappear`). Idempotent. The model
    /// stays bound and the cover request keeps running.
    public func stopObserving(in hook: LifecycleHook = .didEndDisplaying) {
        let actions = machine.withLock { $0.stopObserving() }
        perform(actions, in: hook)
    }

    // MARK: Changes

    /// Reads what a derivation needs; called under the machine's lock, which orders derivations.
    private static func read(_ binding: CanvasCellStateMachine.Binding) -> CanvasCellValues {
        let model = binding.model
        let segments = model.segments
        return CanvasCellValues(
            status: model.status, videoURL: model.videoURL, missingFile: segments.first(where: \.isMissing)?.url,
            take: CanvasDisplay.Take(segments: segments, isUndoArmed: model.isUndoArmed),
            boardIsRecording: binding.board.isRecording)
    }

    fileprivate func modelDidChange() {
        perform(machine.withLock { $0.modelChanged(read: Self.read) }, in: .willDisplay)
    }

    fileprivate func boardRecordingDidChange() {
        perform(machine.withLock { $0.boardRecordingChanged(read: Self.read) }, in: .willDisplay)
    }

    // MARK: Actions

    /// Carries out `actions` in their order, with no lock held. `hook` names the hook in the registration log.
    private func perform(_ actions: CanvasCellStateMachine.Actions, in hook: LifecycleHook) {
        if let model = actions.unregisterModel { unregister(model, in: hook) }
        if let board = actions.unregisterBoard { unregister(board, in: hook) }
        if let model = actions.registerModel { register(model, in: hook) }
        if let board = actions.registerBoard { register(board, in: hook) }
        actions.cancel?.cancel()
        if actions.publish { publish() }
        if let ticket = actions.requestCover { requestCover(ticket) }
        if actions.deriveAfterRegistering {
            // What was read before the observations existed may have changed unseen: read again now.
            perform(machine.withLock { $0.registrationsPerformed(read: Self.read) }, in: hook)
        }
    }

    /// Writes ``display`` and ``cover`` until what this thread wrote last is the newest (see
    /// `CanvasCellStateMachine.nextPublication(after:)`), with no lock held.
    private func publish() {
        var written = CanvasCellStateMachine.Written()
        while let publication = machine.withLock({ $0.nextPublication(after: &written) }) {
            switch publication {
            case .display(let value): display = value
            case .cover(let value): cover = value
            }
        }
    }

    private func requestCover(_ ticket: CanvasCellStateMachine.CoverTicket) {
        guard let coverProvider else { return }
        let number = ticket.number
        let request = coverProvider.loadCover(for: ticket.take, maximumSize: coverSize) { [weak self] result in
            guard let self else { return }
            let actions = machine.withLock { $0.coverFinished(result, number: number) }
            perform(actions, in: .willDisplay)
        }
        // Unbound, rebound or the take changed while the provider was asked: cancel what was just started.
        machine.withLock { $0.coverRequestStarted(request, number: number) }?.cancel()
    }

    // MARK: Registrations

    private func register(_ model: CanvasModel, in hook: LifecycleHook) {
        let observer = observer
        for key in Self.modelKeys where key.observe(observer, model) {
            log?.record(.registered, modelKey(model, key.name), in: hook)
        }
    }

    /// Records each removal before making it, so the log audits it against what is observed then. As the view-model
    /// goes away (`teardown`) its observations are already inactive (their owner is going): each is recorded as it
    /// ends.
    private func unregister(_ model: CanvasModel, in hook: LifecycleHook) {
        let observer = observer
        for key in Self.modelKeys {
            if hook == .teardown || key.isObserving(observer, model) {
                log?.record(.removed, modelKey(model, key.name), in: hook)
            }
            key.unobserve(observer, model)
        }
    }

    private func register(_ board: CanvasBoard, in hook: LifecycleHook) {
        let observer = observer
        for key in Self.boardKeys where key.observe(observer, board) {
            log?.record(.registered, boardKey(board, key.name), in: hook)
        }
    }

    private func unregister(_ board: CanvasBoard, in hook: LifecycleHook) {
        let observer = observer
        for key in Self.boardKeys {
            if hook == .teardown || key.isObserving(observer, board) {
                log?.record(.removed, boardKey(board, key.name), in: hook)
            }
            key.unobserve(observer, board)
        }
    }

    private func modelKey(_ model: CanvasModel, _ name: String) -> RegistrationKey {
        RegistrationKey(object: model, objectName: model.id.description, keyPath: name)
    }

    /// The board's keys are scoped to each view-model (every cell observes the one board).
    private func boardKey(_ board: CanvasBoard, _ name: String) -> RegistrationKey {
        RegistrationKey(object: board, objectName: "board", keyPath: name, observer: self)
    }
}

// MARK: The observed keys

/// One observed key: its name (in the registration log) and its key path, in one row of the tables below.
struct ObservedKey<Object: KeyValueObservable>: Sendable {
    let name: String
    /// Observes the key through an observer owned by a view-model, unless already observed; true when a new
    /// observation started. The handler is handed the view-model.
    let observe: @Sendable (KeyValueObserver, Object) -> Bool
    /// Ends the observation of the key, if any.
    let unobserve: @Sendable (KeyValueObserver, Object) -> Void
    /// Whether the key is observed.
    let isObserving: @Sendable (KeyValueObserver, Object) -> Bool

    init<Value>(
        _ name: String, _ keyPath: KeyPath<Object, Value> & Sendable,
        _ changed: @escaping @Sendable (CanvasCellViewModel) -> Void
    ) {
        self.name = name
        observe = { observer, object in
            observer.observe(object, keyPath, options: []) { (viewModel: CanvasCellViewModel, _, _) in
                changed(viewModel)
            }
        }
        unobserve = { observer, object in observer.unobserve(object, keyPath) }
        isObserving = { observer, object in observer.isObserving(object, keyPath) }
    }
}

extension CanvasCellViewModel {
    /// What a cell observes on its canvas: everything its display and cover are derived from. The board writes an
    /// event's changes in one transaction, and writes `status` whenever it writes `isSelected` (selected exactly when
    /// previewing) and `segments` whenever it writes `videoURL` (the first segment's file), so those two need no
    /// observation of their own.
    static let modelKeys: [ObservedKey<CanvasModel>] = [
        ObservedKey("status", \.status) { $0.modelDidChange() },
        ObservedKey("segments", \.segments) { $0.modelDidChange() },
        ObservedKey("isUndoArmed", \.isUndoArmed) { $0.modelDidChange() },
    ]

    /// What a cell observes on the board: a canvas with a take shows it playing while another canvas records.
    static let boardKeys: [ObservedKey<CanvasBoard>] = [
        ObservedKey("isRecording", \.isRecording) { $0.boardRecordingDidChange() }
    ]
}

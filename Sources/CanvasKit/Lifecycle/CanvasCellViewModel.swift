import Foundation
import Locking
import Observing

/// The view-model of one canvas cell: bound to one ``CanvasModel`` at a time, it publishes what the cell shows as
/// the observable ``display`` (a cell view observes the view-model, never the model), and the take's ``cover`` once
/// loaded.
///
/// Binding and observing are separate on purpose:
/// - ``bind(to:on:)`` (from `cellForItem`) remembers the model and derives the display once; it registers nothing.
/// - ``startObserving(in:)`` (from `willDisplay` and `screenDidAppear`) registers one observation of the model: a chain
///   through what the display reads (the model's `status`, `segments` and `isUndoArmed`, and its board's
///   `isRecording`), which hands the view-model what the cell shows, at once and after every change of it.
/// - ``stopObserving(in:)`` (from `didEndDisplaying` and `screenWillDisappear`) removes it.
/// - ``unbind(in:)`` (from `prepareForReuse`) removes it, cancels the cover request and forgets the model.
///
/// The observation goes through a `KeyValueObserver` owned by the view-model, keyed by (object identity, key path),
/// and every registration and removal is recorded in the ``RegistrationLog`` given at creation (which audits what the
/// view-model observes). So a repeated start, a stop without a start, a stop after the screen disappeared, or a bind
/// to another model while observing are all harmless: the key is never registered twice, and a removal always targets
/// the object that was registered.
///
/// When the display is a cover, the view-model asks its ``CoverProvider`` once per take; it cancels that request when
/// it is unbound or the canvas's take changes (not when the cell merely ends display: a prefetched or scrolled-away
/// cell keeps its cover coming).
///
/// One board event makes at most one derivation per view-model: the board writes an event's changes in one observation
/// transaction, and the observation reports the value it follows once, after all of them (a tap that selects a
/// canvas writes its `isSelected` and its `status`, a `stop` its `segments`, `status` and the board's `isRecording`),
/// and not at all when what the cell shows did not change. The view-model uses the value it is handed: it reads
/// nothing back from the model.
///
/// The decisions are a value, `CanvasCellStateMachine` (events in, actions out); this class only carries out its
/// actions: registrations, cover requests and the writes of ``display`` and ``cover``. Those writes are made under the
/// view-model's lock, inside an observation transaction: they are stored in the order the view-model changed, and
/// their observers are told once the lock is left. Swift Observation's `onChange` of ``display`` or ``cover`` runs
/// while the write is stored, so it must not call back into the view-model (SwiftUI only schedules a redraw there).
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
    /// The observer holding the model observation, owned by the view-model (so each handler is handed the view-model,
    /// and the log given at creation audits it); made once, in `init`.
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

    /// The observer holding the model observation.
    var observer: KeyValueObserver { observerSlot.withLock { $0! } }

    deinit {
        perform(machine.withLock { $0.teardown() }, in: .teardown)
    }

    // MARK: Queries

    /// The bound model, if any.
    public var model: CanvasModel? { machine.withLock { $0.binding?.model } }

    /// Whether observations are registered now.
    public var isObserving: Bool { machine.withLock { $0.isObserving } }

    /// How many times the display was derived: at bind, and each time the observation handed a value that changes
    /// what the cell shows (when it starts, and once per board event that changed it).
    public var recomputations: Int { machine.withLock { $0.recomputations } }

    /// The one-line reason of the last failed cover request for the current take, if any.
    public var coverError: String? { machine.withLock { $0.coverError } }

    /// The key observed on a bound model, as the ``RegistrationLog`` names it: one chain through the properties the
    /// display reads, in the order it reads them (the board's `isRecording` is reached through the model).
    public static var modelKeyPaths: [String] { [observedKeyName] }

    /// What a view-model observes on its model; its registrations are audited by this key path.
    static let observedKeyPath: KeyPath<CanvasModel, CanvasCellValues> & Sendable = \.cellValues
    /// The name of `observedKeyPath` in the log's messages: the properties the display reads.
    static let observedKeyName = "status.segments.isUndoArmed.isRecording"

    // MARK: Lifecycle

    /// Binds to `model` on `board` (from `cellForItem`) and derives the display; registers nothing. Binding to the
    /// same model again only re-derives. Binding to another model while observing moves the observation to the new
    /// model (removing it from the old one first).
    public func bind(to model: CanvasModel, on board: CanvasBoard) {
        let values = model.cellValues
        perform(update { $0.bind(model: model, board: board, values: values) }, in: .rebind)
    }

    /// Removes the observation, cancels the cover request and forgets the model (from `prepareForReuse`).
    /// Idempotent.
    public func unbind(in hook: LifecycleHook = .prepareForReuse) {
        perform(update { $0.unbind() }, in: hook)
    }

    /// Registers the observation of the bound model, if not registered yet; its first call derives the display from
    /// the values current then (from `willDisplay` and `screenDidAppear`). Without a bound model it only remembers
    /// that observation is wanted, for the next ``bind(to:on:)``.
    public func startObserving(in hook: LifecycleHook = .willDisplay) {
        perform(update { $0.startObserving() }, in: hook)
    }

    /// Removes the observation, if any (from `didEndDisplaying` and `screenWillDisappear`). Idempotent. The model
    /// stays bound and the cover request keeps running.
    public func stopObserving(in hook: LifecycleHook = .didEndDisplaying) {
        perform(update { $0.stopObserving() }, in: hook)
    }

    // MARK: Actions

    /// Runs `event` on the machine and, when it asks to, writes ``display`` and ``cover`` in the same locked section,
    /// inside an observation transaction: the writes are stored in the order the machine changed, and their observers
    /// are told after the section. Returns the other actions.
    private func update(_ event: (inout CanvasCellStateMachine) -> CanvasCellStateMachine.Actions)
        -> CanvasCellStateMachine.Actions
    {
        withObservationTransaction { updateInHandler(event) }
    }

    /// `update(_:)` for a call from an observation's handler, which needs no transaction of its own: the writes a
    /// handler makes are delivered after it returns (O8 in Docs/Observing.md), so after the locked section too.
    private func updateInHandler(_ event: (inout CanvasCellStateMachine) -> CanvasCellStateMachine.Actions)
        -> CanvasCellStateMachine.Actions
    {
        machine.withLock { machine in
            let actions = event(&machine)
            // Only a value that changes is written: a write wakes the chains that read the property even when equal.
            if actions.publish {
                let shown = machine.shownDisplay
                if display != shown { display = shown }
                let cover = machine.shownCover
                if self.cover != cover { self.cover = cover }
            }
            return actions
        }
    }

    /// Carries out the actions other than publishing, in their order, with no lock held. `hook` names the hook in the
    /// registration log.
    private func perform(_ actions: CanvasCellStateMachine.Actions, in hook: LifecycleHook) {
        if let model = actions.unregister { unregister(model, in: hook) }
        if let model = actions.register { register(model, in: hook) }
        actions.cancel?.cancel()
        if let ticket = actions.requestCover { requestCover(ticket) }
    }

    private func requestCover(_ ticket: CanvasCellStateMachine.CoverTicket) {
        guard let coverProvider else { return }
        let number = ticket.number
        let request = coverProvider.loadCover(for: ticket.take, maximumSize: coverSize) { [weak self] result in
            guard let self else { return }
            perform(update { $0.coverFinished(result, number: number) }, in: .willDisplay)
        }
        // Unbound, rebound or the take changed while the provider was asked: cancel what was just started.
        machine.withLock { $0.coverRequestStarted(request, number: number) }?.cancel()
    }

    // MARK: Registration

    /// Observes the model's `cellValues`, starting with the values current now (`.initial`), then each change of them,
    /// and records the registration.
    private func register(_ model: CanvasModel, in hook: LifecycleHook) {
        let registered = observer.observe(model, Self.observedKeyPath, options: [.initial, .new]) {
            (viewModel: CanvasCellViewModel, model, change) in
            guard let values = change.newValue else { return }
            viewModel.perform(viewModel.updateInHandler { $0.changed(to: values, of: model) }, in: .willDisplay)
        }
        if registered { log?.record(.registered, Self.key(model), in: hook) }
    }

    /// Records the removal before making it, so the log audits it against what is observed then. As the view-model
    /// goes away (`teardown`) its observation is already inactive (its owner is going): it is recorded as it ends.
    private func unregister(_ model: CanvasModel, in hook: LifecycleHook) {
        let observer = observer
        if let log, hook == .teardown || observer.isObserving(model, Self.observedKeyPath) {
            log.record(.removed, Self.key(model), in: hook)
        }
        observer.unobserve(model, Self.observedKeyPath)
    }

    /// The registration of `model`'s observation, as the log records it.
    static func key(_ model: CanvasModel) -> RegistrationKey {
        RegistrationKey(object: model, objectName: model.id.description, path: observedKeyPath, name: observedKeyName)
    }
}

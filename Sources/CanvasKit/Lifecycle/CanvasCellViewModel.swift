import Foundation
import Locking
import Observing
import Synchronization

/// The view-model of one canvas cell: bound to one ``CanvasModel`` at a time, it publishes what the cell shows as
/// the observable ``display`` (a cell view observes the view-model, never the model), and the take's ``cover`` once
/// loaded.
///
/// Binding and observing are separate on purpose:
/// - ``bind(to:on:)`` (from `cellForItem`) remembers the model and computes the display once; it registers nothing.
/// - ``startObserving(in:)`` (from `willDisplay` and `screenDidAppear`) registers the observations: the model's
///   `status`, `isSelected` and `videoURL`, and the board's `isRecording` (a canvas with a take shows its cover, or its
///   take playing while another canvas records).
/// - ``stopObserving(in:)`` (from `didEndDisplaying` and `screenWillDisappear`) removes them.
/// - ``unbind(in:)`` (from `prepareForReuse`) removes them, cancels the cover request and forgets the model.
///
/// Observations go through a `KeyValueObserver`, keyed by (object identity, key path), and every registration and
/// removal is recorded in the ``RegistrationLog`` given at creation. So a repeated start, a stop without a start, a
/// stop after the screen disappeared, or a bind to another model while observing are all harmless: a key is never
/// registered twice, and a removal always targets the object that was registered.
///
/// When the display is a cover, the view-model asks its ``CoverProvider`` once per take; it cancels that request when
/// it is unbound or the canvas's take changes (not when the cell merely ends display: a prefetched or scrolled-away
/// cell keeps its cover coming).
///
/// Thread safety: every method may be called from any thread; model changes are handled on the thread that makes
/// them.
public final class CanvasCellViewModel: KeyValueObservable, @unchecked Sendable {
    // Why `@unchecked Sendable` is safe: the stored properties are `let`s of Sendable types (`state` is a `Mutex`,
    // `observer` and `log` are Sendable classes, `coverProvider` is a Sendable existential, `coverSize` a value) and
    // the two `@Observed` properties, whose values live behind the wrapper's lock; the wrappers themselves are never
    // reassigned after `init`.

    /// What the cell shows: derived from the bound model and whether the board records; nil while unbound.
    /// Notifies only when the display really changes.
    @Observed public private(set) var display: CanvasDisplay? = nil

    /// The cover of the bound canvas's take, once the provider delivered it; nil before, while unbound, and after
    /// the take changed.
    @Observed public private(set) var cover: CanvasCover? = nil

    private struct CoverState {
        /// The take whose cover was requested (nil: none requested).
        var take: URL?
        var request: (any CancellableCoverRequest)?
        var generation: UInt64 = 0
        var finished = false
        var lastError: String?
    }

    private struct State {
        var model: CanvasModel?
        var board: CanvasBoard?
        /// Whether the binder wants observations (the cell is displayed and the screen on screen).
        var wantsObservation = false
        /// The objects whose keys are registered now.
        var observedModel: CanvasModel?
        var observedBoard: CanvasBoard?
        var recomputations = 0
        var cover = CoverState()
        /// The newest derived display (nil while unbound) and the take it was derived from, with a number that grows
        /// with each derivation; ``display`` is brought to it by ``publishDisplay()``.
        var derived: CanvasDisplay?
        var derivedTake: URL?
        var derivedNumber: UInt64 = 0
    }

    private let state = Mutex(State())
    /// Serializes derivations (read the model, derive, number the result), so a derivation that read newer values
    /// always gets a greater number: every write to an observed key notifies after it is stored, and the derivation it
    /// triggers starts after the previous one was numbered. Publishing happens after this lock is released, so an
    /// observer of ``display`` or ``cover`` may call back into the view-model.
    private let derivation = Mutex(())
    /// The observer holding the model and board observations (for lifetime tests).
    package let observer = KeyValueObserver()
    private let coverProvider: (any CoverProvider)?
    private let coverSize: PixelSize
    private let log: RegistrationLog?

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
    }

    deinit {
        let (request, model, board) = state.withAnnotatedLock { ($0.cover.request, $0.observedModel, $0.observedBoard) }
        request?.cancel()
        if let model { unregister(model, in: .teardown) }
        if let board { unregister(board, in: .teardown) }
    }

    // MARK: Queries

    /// The bound model, if any.
    public var model: CanvasModel? { state.withAnnotatedLock { $0.model } }

    /// Whether observations are registered now.
    public var isObserving: Bool { state.withAnnotatedLock { $0.observedModel != nil } }

    /// How many times the display was derived (at bind, at start, and once per change notification).
    public var recomputations: Int { state.withAnnotatedLock { $0.recomputations } }

    /// The one-line reason of the last failed cover request for the current take, if any.
    public var coverError: String? { state.withAnnotatedLock { $0.cover.lastError } }

    /// The keys observed on a model.
    public static let modelKeyPaths = ["status", "isSelected", "videoURL"]

    /// The keys observed on the board.
    public static let boardKeyPaths = ["isRecording"]

    // MARK: Lifecycle

    /// Binds to `model` on `board` (from `cellForItem`) and derives the display; registers nothing. Binding to the
    /// same model again only re-derives. Binding to another model while observing moves the observations to the new
    /// model (removing them from the old one first).
    public func bind(to model: CanvasModel, on board: CanvasBoard) {
        let moved = state.withAnnotatedLock { state -> Bool in
            let same = state.model === model && state.board === board
            state.model = model
            state.board = board
            return !same && state.wantsObservation
        }
        if moved { synchronizeObservations(in: .rebind) }
        recompute()
    }

    /// Removes the observations, cancels the cover request and forgets the model (from `prepareForReuse`).
    /// Idempotent.
    public func unbind(in hook: LifecycleHook = .prepareForReuse) {
        let request = state.withAnnotatedLock { state -> (any CancellableCoverRequest)? in
            state.model = nil
            state.board = nil
            state.wantsObservation = false
            let request = state.cover.request
            state.cover = CoverState(generation: state.cover.generation + 1)
            return request
        }
        synchronizeObservations(in: hook)
        request?.cancel()
        derivation.withAnnotatedLock { _ in
            state.withAnnotatedLock { state in
                state.derived = nil
                state.derivedTake = nil
                state.derivedNumber += 1
            }
        }
        publishDisplay()
        cover = nil
    }

    /// Registers the observations of the bound model and board, if not registered yet, and re-derives the display
    /// (from `willDisplay` and `screenDidAppear`). Without a bound model it only remembers that observations are
    /// wanted, for the next ``bind(to:on:)``.
    public func startObserving(in hook: LifecycleHook = .willDisplay) {
        state.withAnnotatedLock { $0.wantsObservation = true }
        synchronizeObservations(in: hook)
        recompute()
    }

    /// Removes the observations, if any (from `didEndDisplaying` and `screenWillDisappear`). Idempotent. The model
    /// stays bound and the cover request keeps running.
    public func stopObserving(in hook: LifecycleHook = .didEndDisplaying) {
        state.withAnnotatedLock { $0.wantsObservation = false }
        synchronizeObservations(in: hook)
    }

    // MARK: Observations

    /// Makes the registered objects match what is wanted: the bound model and board while observation is wanted,
    /// nothing otherwise. Removal always targets the object that was registered.
    private func synchronizeObservations(in hook: LifecycleHook) {
        let (oldModel, newModel, oldBoard, newBoard) = state.withAnnotatedLock { state in
            let oldModel = state.observedModel
            let oldBoard = state.observedBoard
            state.observedModel = state.wantsObservation ? state.model : nil
            state.observedBoard = state.wantsObservation ? state.board : nil
            return (oldModel, state.observedModel, oldBoard, state.observedBoard)
        }
        if oldModel !== newModel {
            if let oldModel { unregister(oldModel, in: hook) }
            if let newModel { register(newModel, in: hook) }
        }
        if oldBoard !== newBoard {
            if let oldBoard { unregister(oldBoard, in: hook) }
            if let newBoard { register(newBoard, in: hook) }
        }
    }

    private func register(_ model: CanvasModel, in hook: LifecycleHook) {
        let name = model.id.description
        let recompute: @Sendable () -> Void = { [weak self] in self?.recompute() }
        observe(model, \.status, RegistrationKey(object: model, objectName: name, keyPath: "status"), hook, recompute)
        observe(
            model, \.isSelected, RegistrationKey(object: model, objectName: name, keyPath: "isSelected"), hook,
            recompute)
        observe(
            model, \.videoURL, RegistrationKey(object: model, objectName: name, keyPath: "videoURL"), hook, recompute)
    }

    private func unregister(_ model: CanvasModel, in hook: LifecycleHook) {
        let name = model.id.description
        unobserve(model, \.status, RegistrationKey(object: model, objectName: name, keyPath: "status"), hook)
        unobserve(model, \.isSelected, RegistrationKey(object: model, objectName: name, keyPath: "isSelected"), hook)
        unobserve(model, \.videoURL, RegistrationKey(object: model, objectName: name, keyPath: "videoURL"), hook)
    }

    private func register(_ board: CanvasBoard, in hook: LifecycleHook) {
        let key = RegistrationKey(object: board, objectName: "board", keyPath: "isRecording", observer: self)
        observe(board, \.isRecording, key, hook) { [weak self] in self?.boardRecordingDidChange() }
    }

    private func unregister(_ board: CanvasBoard, in hook: LifecycleHook) {
        let key = RegistrationKey(object: board, objectName: "board", keyPath: "isRecording", observer: self)
        unobserve(board, \.isRecording, key, hook)
    }

    /// Observes one key unless already observed (the observer keys by object and key path), logging a new
    /// registration.
    private func observe<Object: KeyValueObservable, Value>(
        _ object: Object,
        _ keyPath: KeyPath<Object, Value>,
        _ key: RegistrationKey,
        _ hook: LifecycleHook,
        _ changed: @escaping @Sendable () -> Void
    ) {
        if observer.observe(object, keyPath, options: [], { _, _ in changed() }) {
            log?.record(.registered, key, in: hook)
        }
    }

    /// Ends the observation of one key if there is one, logging the removal.
    private func unobserve<Object: KeyValueObservable, Value>(
        _ object: Object,
        _ keyPath: KeyPath<Object, Value>,
        _ key: RegistrationKey,
        _ hook: LifecycleHook
    ) {
        guard observer.isObserving(object, keyPath) else { return }
        observer.unobserve(object, keyPath)
        log?.record(.removed, key, in: hook)
    }

    // MARK: Derivation and covers

    /// Only a canvas that shows its take (no preview, a take) depends on whether the board records; the others skip
    /// the derivation. A write to the model that races with this notification triggers its own derivation.
    private func boardRecordingDidChange() {
        guard let model = state.withAnnotatedLock({ $0.model }), model.status == .noPreview, model.videoURL != nil
        else {
            return
        }
        recompute()
    }

    private func recompute() {
        let derived = derivation.withAnnotatedLock { _ -> Bool in
            let (model, board) = state.withAnnotatedLock { state in
                state.recomputations += 1
                return (state.model, state.board)
            }
            guard let model else { return false }
            let take = model.videoURL
            let isRecording = board?.isRecording ?? false
            let next = CanvasDisplay(status: model.status, videoURL: take, boardIsRecording: isRecording)
            state.withAnnotatedLock { state in
                // Unbound or rebound meanwhile: this derivation is for a model no longer bound.
                guard state.model === model else { return }
                state.derived = next
                state.derivedTake = take
                state.derivedNumber += 1
            }
            return true
        }
        guard derived else { return }
        publishDisplay()
        updateCover()
    }

    /// Writes the newest derived display into ``display``, with no lock held (the write notifies). Whoever writes
    /// last checks afterwards that nothing newer was derived meanwhile, and writes again if it was, so the last write
    /// is always the newest display, whatever the threads.
    private func publishDisplay() {
        while true {
            let (newest, number) = state.withAnnotatedLock { ($0.derived, $0.derivedNumber) }
            display = newest
            if state.withAnnotatedLock({ $0.derivedNumber }) == number { return }
        }
    }

    /// Brings the cover request in line with the newest derived display (never with an older one, whatever the order
    /// in which racing derivations get here): cancels the request for a take the canvas no longer has, and asks for
    /// the cover of a take it shows as a cover.
    private func updateCover() {
        let (cancelled, start, cleared, wanted) = state.withAnnotatedLock {
            state -> ((any CancellableCoverRequest)?, UInt64?, Bool, URL?) in
            let take = state.derivedTake
            var wanted: URL?
            if case .cover(let url) = state.derived, coverProvider != nil { wanted = url }
            var cancelled: (any CancellableCoverRequest)?
            var cleared = false
            if let requested = state.cover.take, requested != take {
                cancelled = state.cover.request
                state.cover = CoverState(generation: state.cover.generation + 1)
                cleared = true
            }
            guard let wanted, state.cover.take == nil else { return (cancelled, nil, cleared, nil) }
            state.cover.take = wanted
            state.cover.generation += 1
            return (cancelled, state.cover.generation, cleared, wanted)
        }
        cancelled?.cancel()
        if cleared { cover = nil }
        guard let generation = start, let wanted, let coverProvider else { return }
        let request = coverProvider.requestCover(for: wanted, maximumSize: coverSize) { [weak self] result in
            self?.coverDidFinish(result, generation: generation)
        }
        let kept = state.withAnnotatedLock { state -> Bool in
            guard state.cover.generation == generation, !state.cover.finished else { return false }
            state.cover.request = request
            return true
        }
        // Finished synchronously (nothing to keep), or unbound meanwhile (cancel what we just started).
        if !kept { request.cancel() }
    }

    private func coverDidFinish(_ result: Result<CanvasCover, any Error>, generation: UInt64) {
        let current = state.withAnnotatedLock { state -> Bool in
            guard state.cover.generation == generation else { return false }
            state.cover.finished = true
            state.cover.request = nil
            if case .failure(let error) = result { state.cover.lastError = String(describing: error) }
            return true
        }
        guard current, case .success(let image) = result else { return }
        cover = image
        // A take change or unbind that raced with this store wins.
        if state.withAnnotatedLock({ $0.cover.generation }) != generation { cover = nil }
    }
}

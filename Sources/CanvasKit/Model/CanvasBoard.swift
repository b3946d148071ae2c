import Foundation
import Locking
import Observing

/// The observable board: owns one `CanvasModel` per canvas, sends each event through the transition function and
/// applies the result to the models.
///
/// Guarantees:
/// - Only properties whose value changed are written, so only they notify: a tap notifies at most the two canvases
///   involved (the one that loses the preview and the one that gets it), whatever the size of the board; `record`,
///   `stop` and `cancel` notify the recording canvas and `isRecording`; `delete` notifies one `videoURL` and its
///   `segments`; `undo` notifies one `isUndoArmed` (and `segments` when it removes one).
/// - A rejected event changes nothing and notifies nothing.
/// - `add` and `remove` change `canvases` with one insertion or removal carrying its exact `IndexSet`; other models
///   are not touched (their indexes shift, their identities stay).
/// - Events are applied to `state` one at a time, under a lock, so the returned reaction is exact; the model writes
///   they cause are queued in the same order and performed by one thread at a time, never while a lock is held.
///   Observers therefore see the changes of each event in order, as if the events had been sent one after another,
///   even when a handler sends an event (re-entrancy) or several threads send at once. Until the queue is drained
///   (inside a handler, or on another thread while one thread is delivering), `state` is ahead of the models.
///
/// Work per event is constant for taps, `record`, `cancel` and `delete`; `stop` scans the takes for a file already in
/// use; `add` and `remove` are linear like an array insertion or removal.
///
/// Thread safety: `Sendable`; events may be sent from any thread (see above). The board's own state lives in a
/// `LockedValue`, and its two observable properties keep their storage in `let`s (`Observed` and `ObservedArray`
/// are `Sendable` where their values are), so the compiler checks all of it.
public final class CanvasBoard: KeyValueObservable, Sendable {
    private let _canvases: ObservedArray<CanvasModel>
    private let _isRecording: Observed<Bool>

    /// The canvases' models, in board order. Observe it for insertions and removals with exact index sets.
    public var canvases: [CanvasModel] { _canvases[self, \.canvases] }

    /// Whether a canvas is recording. Canvases with a take show it playing while this is true, their cover otherwise.
    public private(set) var isRecording: Bool {
        get { _isRecording[self, \.isRecording] }
        set { _isRecording[self, \.isRecording] = newValue }
    }

    fileprivate struct Core: Sendable {
        var state: BoardState
        var models: [CanvasID: CanvasModel]
        /// Model writes not yet performed: one list per event, in event order.
        var pending: [[ModelUpdate]] = []
        var next = 0
        /// Whether some thread is performing the pending writes.
        var isDraining = false
    }

    private let core: LockedValue<Core>
    /// The effects held back until their draft records are durable (`send(_:performingEffectsWith:)`).
    let heldEffects = LockedValue(HeldEffects())

    /// Where `record` reads the host time its ``SyncedPlayback`` starts from.
    public let clock: any HostClock
    /// The seconds between a `record` event and the host time its playing takes start at, so that the players have
    /// time to preroll (``SyncedPlayback/hostTime`` is the clock's time at the event plus this).
    public let playbackLead: Double
    /// The draft this board journals its accepted events to, when it was opened on one
    /// (`init(draftAt:newBoard:options:)`); nil for a board in memory only.
    public let draft: BoardDraft?

    /// A board of `canvasCount` empty canvases, none selected. - Precondition: `canvasCount >= 1`.
    public convenience init(canvasCount: Int) {
        self.init(state: BoardState(canvasCount: canvasCount))
    }

    /// A board whose models mirror `state`; `record` starts the playing takes `playbackLead` seconds after `clock`'s
    /// time (see ``SyncedPlayback``).
    public convenience init(state: BoardState, clock: any HostClock = SystemHostClock(), playbackLead: Double = 0.1) {
        self.init(state: state, clock: clock, playbackLead: playbackLead, draft: nil)
    }

    /// A board whose models mirror `state`, journaling to `draft` when there is one.
    init(state: BoardState, clock: any HostClock, playbackLead: Double, draft: BoardDraft?) {
        self.clock = clock
        self.playbackLead = playbackLead
        self.draft = draft
        let canvases = state.indices.map { CanvasModel(state[$0]) }
        _canvases = ObservedArray(wrappedValue: canvases)
        _isRecording = Observed(wrappedValue: state.isRecording)
        core = LockedValue(Core(state: state, models: Dictionary(uniqueKeysWithValues: canvases.map { ($0.id, $0) })))
    }

    /// The board as a value: the result of the last accepted event.
    public var state: BoardState {
        core.withLock { $0.state }
    }

    /// Sends `event` through the transition function and updates the models that changed.
    ///
    /// - Returns: the outcome: the board after the event (as of this event, even when other threads send at once), the
    ///   effects for the host to perform, in order, and the change the models were updated from; or the rejection
    ///   (then nothing changed and nothing was notified).
    @discardableResult
    public func send(_ event: CanvasEvent) -> BoardOutcome {
        // Only `record` and `resume` need the time; reading the clock outside the lock keeps the lock section as it was.
        let playbackStart: HostTime
        switch event {
        case .record, .resume: playbackStart = clock.now() + playbackLead
        default: playbackStart = .zero
        }
        let (outcome, drains) = core.withLock { core -> (BoardOutcome, Bool) in
            let step = core.state.handle(event, playbackStart: playbackStart)
            guard case .accepted(let effects, var change) = step else {
                return (step.outcome(next: core.state), false)
            }
            core.enqueue(change)
            var journaled = step
            if let draft {
                // Journaled in the order accepted, before the effects reach the caller (never waiting for the disk);
                // the outcome carries the record's number, which the effects that give up a file wait for.
                change.draftRecord = draft.append(.event(event), board: core.state)
                journaled = .accepted(effects: effects, change: change)
            }
            let outcome = journaled.outcome(next: core.state)
            guard !core.isDraining else { return (outcome, false) }
            core.isDraining = true
            return (outcome, true)
        }
        if drains {
            // Each event's writes are one observation transaction: observers are notified once all of them are
            // stored, so a view-model reading several of them derives once per event.
            while let writes = nextEvent() {
                withObservationTransaction {
                    for update in writes { apply(update) }
                }
            }
        }
        return outcome
    }

    /// The writes of the next queued event, or nil (and the end of draining) when there is nothing left.
    private func nextEvent() -> [ModelUpdate]? {
        core.withLock { core in
            if core.next < core.pending.count {
                core.next += 1
                return core.pending[core.next - 1]
            }
            core.pending.removeAll(keepingCapacity: true)
            core.next = 0
            core.isDraining = false
            return nil
        }
    }

    /// The model of the canvas at `index` in `canvases`. - Precondition: `index` is in `canvases.indices`.
    public func model(at index: Int) -> CanvasModel {
        canvases[index]
    }

    /// The model of the canvas with identity `id`, or nil when it is not on the board (as of `state`).
    public func model(for id: CanvasID) -> CanvasModel? {
        core.withLock { $0.models[id] }
    }

    /// What the canvas at `index` shows, as of `state`. - Precondition: `index` is in `state.indices`.
    public func display(at index: Int) -> CanvasDisplay {
        state.display(at: index)
    }

    // MARK: Applying

    /// One write to the models, computed when the event is accepted and performed in order.
    fileprivate enum ModelUpdate: Sendable {
        case status(CanvasModel, CanvasStatus)
        case selected(CanvasModel, Bool)
        case videoURL(CanvasModel, URL?)
        case segments(CanvasModel, [TakeSegment])
        case undoArmed(CanvasModel, Bool)
        case recording(Bool)
        case insert(CanvasModel, at: Int)
        case remove(at: Int)
    }

    /// Performs one write. Writes are computed only for values that change, and performed in event order, so each
    /// one changes its property.
    private func apply(_ update: ModelUpdate) {
        switch update {
        case .status(let model, let status):
            model.status = status
        case .selected(let model, let isSelected):
            model.isSelected = isSelected
        case .videoURL(let model, let url):
            model.videoURL = url
        case .segments(let model, let segments):
            model.segments = segments
        case .undoArmed(let model, let value):
            model.isUndoArmed = value
        case .recording(let value):
            isRecording = value
        case .insert(let model, let index):
            _canvases.editor(self, \.canvases).insert(model, at: index)
        case .remove(let index):
            _canvases.editor(self, \.canvases).remove(at: index)
        }
    }
}

extension CanvasBoard.Core {
    /// Queues the writes of `change`, the change the event that brought `state` to its current value made, as one
    /// event. `models` follows `state` at once; `canvases` and the model properties follow when the writes
    /// are performed (in event order, so the models then hold the values before this event).
    fileprivate mutating func enqueue(_ change: BoardChange) {
        switch change.list {
        case .removed(_, let id): models[id] = nil
        case .inserted(let index, let id): models[id] = CanvasModel(state[index])
        case nil: break
        }
        var writes: [CanvasBoard.ModelUpdate] = []
        change.forEachWrite(after: state) { write in
            switch write {
            case .status(let index, let status): writes.append(.status(model(at: index), status))
            case .isSelected(let index, let value): writes.append(.selected(model(at: index), value))
            case .videoURL(let index, let url): writes.append(.videoURL(model(at: index), url))
            case .segments(let index, let segments): writes.append(.segments(model(at: index), segments))
            case .isUndoArmed(let index, let value): writes.append(.undoArmed(model(at: index), value))
            case .isRecording(let value): writes.append(.recording(value))
            case .insertCanvas(let index): writes.append(.insert(model(at: index), at: index))
            case .removeCanvas(let index): writes.append(.remove(at: index))
            }
        }
        pending.append(writes)
    }

    /// The model of the canvas at `index` in `state`.
    private func model(at index: Int) -> CanvasModel {
        models[state.id(at: index)]!
    }
}

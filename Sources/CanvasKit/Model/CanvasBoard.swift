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
/// - Events are applied one at a time, under a lock: the event goes through the transition and its model writes are
///   stored in the same section, so `state` and the models never disagree once `send` returns, and the returned
///   reaction is exact. Each event's writes are one observation transaction (`withObservationTransaction`): observers
///   are told after the lock is left, once every write of the event is stored, and Observing tells each observation
///   its changes in the order they were stored, whatever thread sends. So each observation sees the changes in the
///   order the events were accepted, as if they had been sent one after another, even when a handler sends an event
///   (its writes are stored at once and told after the running handler returns) or several threads send at once.
/// - Swift Observation's `onChange` of a model property is called while the write is stored (that is when Swift
///   Observation calls it), so it must not call back into the board (SwiftUI only schedules a redraw there).
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
        _canvases = ObservedArray(wrappedValue: [])
        _isRecording = Observed(wrappedValue: state.isRecording)
        core = LockedValue(Core(state: state, models: [:]))
        // Each model knows its board (a cell's display reads `isRecording`), so the models are made once `self` is.
        let canvases = state.indices.map { CanvasModel(state[$0], board: self) }
        _canvases[self, \.canvases] = canvases
        core.withLock { $0.models = Dictionary(uniqueKeysWithValues: canvases.map { ($0.id, $0) }) }
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
        // Each event is one observation transaction: its writes are stored in the lock's section, so the models
        // change in the order the events are accepted, and their observers are told once the section is left and every
        // write of the event is stored (Observing delivers in the order the values were stored, on every thread).
        return withObservationTransaction {
            core.withLock { core -> BoardOutcome in
                let step = core.state.handle(event, playbackStart: playbackStart)
                guard case .accepted(let effects, var change) = step else { return step.outcome(next: core.state) }
                var journaled = step
                if let draft {
                    // Journaled in the order accepted, before the effects reach the caller (never waiting for the
                    // disk); the outcome carries the record's number, which the effects that give up a file wait for.
                    change.draftRecord = draft.append(.event(event), board: core.state)
                    journaled = .accepted(effects: effects, change: change)
                }
                core.apply(change, to: self)
                return journaled.outcome(next: core.state)
            }
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

    /// Performs one write on `model` (the canvas the write names; nil for the board's own properties). Writes are
    /// computed only for values that change, and performed in event order, so each one changes its property.
    fileprivate func perform(_ write: BoardWrite, on model: CanvasModel?) {
        switch write {
        case .status(_, let status): model?.status = status
        case .isSelected(_, let isSelected): model?.isSelected = isSelected
        case .videoURL(_, let url): model?.videoURL = url
        case .segments(_, let segments): model?.segments = segments
        case .isUndoArmed(_, let value): model?.isUndoArmed = value
        case .isRecording(let value): isRecording = value
        case .insertCanvas(let index): _canvases.editor(self, \.canvases).insert(model!, at: index)
        case .removeCanvas(let index): _canvases.editor(self, \.canvases).remove(at: index)
        }
    }
}

extension CanvasBoard.Core {
    /// Brings the models to `state`, the board after the event whose change is `change`: `models` first, then each
    /// write of the change, in order (called in the lock's section, inside the event's observation transaction, so
    /// observers are told after the section).
    fileprivate mutating func apply(_ change: BoardChange, to board: CanvasBoard) {
        switch change.list {
        case .removed(_, let id): models[id] = nil
        case .inserted(let index, let id): models[id] = CanvasModel(state[index], board: board)
        case nil: break
        }
        change.forEachWrite(after: state) { write in
            switch write {
            case .status(let index, _), .isSelected(let index, _), .videoURL(let index, _), .segments(let index, _),
                .isUndoArmed(let index, _), .insertCanvas(let index):
                board.perform(write, on: models[state.id(at: index)]!)
            case .isRecording, .removeCanvas:
                board.perform(write, on: nil)
            }
        }
    }
}

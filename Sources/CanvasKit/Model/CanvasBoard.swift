import Foundation
import Locking
import Observing
import Synchronization

// Why `@unchecked Sendable` is safe: the board's own state (`BoardState`, the models by identity, the queue of model
// writes and the flag naming the thread that drains it) lives in a `Mutex`. The other stored properties are the
// `@Observed` and `@ObservedArray` wrappers, whose values live behind Observing's per-property locks (with an
// immutable, capture-free equality closure beside them); they are written only by the draining thread, one at a
// time. Swift cannot see this only because the wrappers do not declare a conditional `Sendable` conformance.

/// The observable board: owns one `CanvasModel` per canvas, sends each event through the transition function and
/// applies the result to the models.
///
/// Guarantees:
/// - Only properties whose value changed are written, so only they notify: a tap notifies at most the two canvases
///   involved (the one that loses the preview and the one that gets it), whatever the size of the board; `record`,
///   `stop` and `cancel` notify the recording canvas and `isRecording`; `delete` notifies one `videoURL`.
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
public final class CanvasBoard: KeyValueObservable, @unchecked Sendable {
    /// The canvases' models, in board order. Observe it for insertions and removals with exact index sets.
    @ObservedArray public private(set) var canvases: [CanvasModel]
    /// Whether a canvas is recording. Canvases with a take show it playing while this is true, their cover otherwise.
    @Observed public private(set) var isRecording: Bool

    fileprivate struct Core: Sendable {
        var state: BoardState
        var models: [CanvasID: CanvasModel]
        /// Model writes not yet performed, in event order.
        var pending: [ModelUpdate] = []
        var next = 0
        /// Whether some thread is performing the pending writes.
        var isDraining = false
    }

    private let core: Mutex<Core>

    /// A board of `canvasCount` empty canvases, none selected. - Precondition: `canvasCount >= 1`.
    public convenience init(canvasCount: Int) {
        self.init(state: BoardState(canvasCount: canvasCount))
    }

    /// A board whose models mirror `state`.
    public init(state: BoardState) {
        let canvases = state.indices.map { CanvasModel(state[$0]) }
        self.canvases = canvases
        isRecording = state.isRecording
        core = Mutex(Core(state: state, models: Dictionary(uniqueKeysWithValues: canvases.map { ($0.id, $0) })))
    }

    /// The board as a value: the result of the last accepted event.
    public var state: BoardState {
        core.withAnnotatedLock { $0.state }
    }

    /// Sends `event` through `BoardState.handle(_:)` and updates the models that changed.
    ///
    /// - Returns: the effects for the host to perform, in order, or the rejection (then nothing changed and nothing
    ///   was notified).
    @discardableResult
    public func send(_ event: CanvasEvent) -> CanvasReaction {
        let (reaction, drains) = core.withAnnotatedLock { core -> (CanvasReaction, Bool) in
            let before = core.state
            let reaction = core.state.handle(event)
            guard reaction.isAccepted else { return (reaction, false) }
            core.pending += core.updates(from: before, on: event)
            guard !core.isDraining else { return (reaction, false) }
            core.isDraining = true
            return (reaction, true)
        }
        if drains {
            while let update = nextUpdate() { apply(update) }
        }
        return reaction
    }

    /// The next queued write, or nil (and the end of draining) when there is none.
    private func nextUpdate() -> ModelUpdate? {
        core.withAnnotatedLock { core in
            guard core.next < core.pending.count else {
                core.pending.removeAll(keepingCapacity: true)
                core.next = 0
                core.isDraining = false
                return nil
            }
            core.next += 1
            return core.pending[core.next - 1]
        }
    }

    /// The model of the canvas at `index` in `canvases`. - Precondition: `index` is in `canvases.indices`.
    public func model(at index: Int) -> CanvasModel {
        canvases[index]
    }

    /// The model of the canvas with identity `id`, or nil when it is not on the board (as of `state`).
    public func model(for id: CanvasID) -> CanvasModel? {
        core.withAnnotatedLock { $0.models[id] }
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
        case .recording(let value):
            isRecording = value
        case .insert(let model, let index):
            $canvases.insert(model, at: index)
        case .remove(let index):
            $canvases.remove(at: index)
        }
    }
}

extension CanvasBoard.Core {
    /// The writes that take the models from `before` to `state` (already updated by `event`), touching only the
    /// canvases the event involves: the one selected before, the one selected after, and the one whose take was
    /// deleted. `models` follows `state` at once; `canvases` and the model properties follow when the writes are
    /// performed.
    fileprivate mutating func updates(from before: BoardState, on event: CanvasEvent) -> [CanvasBoard.ModelUpdate] {
        let after = state
        var updates: [CanvasBoard.ModelUpdate] = []
        if case .remove(let index) = event {
            models[before.id(at: index)] = nil
            updates.append(.remove(at: index))
        }

        // The canvases involved, with their values before and after the event (the models hold the values before when
        // these writes are performed, since writes are performed in event order).
        var involved: [Involved] = []
        func include(_ beforeIndex: Int, afterIndex: Int?) {
            guard let afterIndex, let model = models[before.id(at: beforeIndex)],
                !involved.contains(where: { $0.model === model })
            else { return }
            involved.append(Involved(model: model, old: before[beforeIndex], new: after[afterIndex]))
        }
        if let selection = before.selection {
            include(selection.index, afterIndex: Self.index(afterEvent: event, beforeIndex: selection.index))
        }
        if let selection = after.selection, case .tap = event {
            // A tap changes no index, so the newly selected canvas has the same index before.
            include(selection.index, afterIndex: selection.index)
        }
        if case .delete(let index) = event {
            include(index, afterIndex: index)
        }

        // Canvases that give up the preview are written first (status, then isSelected), then the others (isSelected,
        // then status), so that two canvases never look like they hold the preview at once. Only values that change
        // are written.
        for canvas in involved where canvas.losesPreview {
            canvas.writes(into: &updates)
        }
        for canvas in involved where !canvas.losesPreview {
            canvas.writes(into: &updates)
        }
        if before.isRecording != after.isRecording { updates.append(.recording(after.isRecording)) }
        if case .add = event {
            let index = after.count - 1
            let model = CanvasModel(after[index])
            models[model.id] = model
            updates.append(.insert(model, at: index))
        }
        return updates
    }

    /// One canvas an event involves, its model and its values before and after.
    private struct Involved {
        let model: CanvasModel
        let old: CanvasState
        let new: CanvasState

        var losesPreview: Bool { old.isSelected && !new.isSelected }

        func writes(into updates: inout [CanvasBoard.ModelUpdate]) {
            if losesPreview {
                if old.status != new.status { updates.append(.status(model, new.status)) }
                updates.append(.selected(model, false))
            } else {
                if old.isSelected != new.isSelected { updates.append(.selected(model, new.isSelected)) }
                if old.status != new.status { updates.append(.status(model, new.status)) }
            }
            if old.videoURL != new.videoURL { updates.append(.videoURL(model, new.videoURL)) }
        }
    }

    /// Where the canvas at `beforeIndex` is after `event`, or nil when the event removed it.
    private static func index(afterEvent event: CanvasEvent, beforeIndex: Int) -> Int? {
        guard case .remove(let removed) = event else { return beforeIndex }
        if beforeIndex == removed { return nil }
        return beforeIndex > removed ? beforeIndex - 1 : beforeIndex
    }
}

import Foundation

extension BoardState {
    /// The transition function (the rules table of Docs/CanvasKit.md): the outcome of `event` on `state`, without changing `state`.
    ///
    /// Total: every state and every event has an outcome, and invariants I1-I3 hold for the next state. Taps,
    /// `record` and `cancel` share the canvas storage with `state` (constant time on any board); `stop`, `delete`,
    /// `add` and `remove` copy it, since `state` keeps its own. Use `handle(_:)` to update a board in place.
    public static func transition(from state: BoardState, on event: CanvasEvent) -> BoardOutcome {
        var next = state
        switch next.handle(event) {
        case .accepted(let effects): return .accepted(next: next, effects: effects)
        case .rejected(let rejection): return .rejected(rejection)
        }
    }

    /// The outcome of `event` on this board, which is left unchanged; the same as `transition(from: self, on: event)`.
    public func outcome(of event: CanvasEvent) -> BoardOutcome {
        BoardState.transition(from: self, on: event)
    }

    /// Applies `event` to this board in place and returns the effects, or returns the rejection and leaves the board
    /// exactly as it was.
    ///
    /// Constant time for every event but `add` and `remove` (which shift the canvases after the index) and `stop` (which
    /// checks that the take file is no other canvas's take), as long as this board's storage is not shared.
    public mutating func handle(_ event: CanvasEvent) -> CanvasReaction {
        switch event {
        case .tap(let index): tap(index)
        case .record: record()
        case .stop(let url): stop(take: url)
        case .cancel: cancel()
        case .delete(let index): delete(index)
        case .add: add()
        case .remove(let index): remove(index)
        }
    }

    private mutating func tap(_ index: Int) -> CanvasReaction {
        guard indices.contains(index) else { return .rejected(.indexOutOfRange(index: index, count: count)) }
        guard let current = selection else {
            selection = Selection(index: index, phase: .inPreview)
            return .accepted([.attachPreview(to: index)])
        }
        switch current.phase {
        case .recording:
            return .rejected(.lockedWhileRecording(recordingIndex: current.index))
        case .inPreview where current.index == index:
            selection = nil
            return .accepted([.detachPreview(from: index)])
        case .inPreview:
            selection = Selection(index: index, phase: .inPreview)
            return .accepted([.movePreview(from: current.index, to: index)])
        }
    }

    private mutating func record() -> CanvasReaction {
        guard let current = selection else { return .rejected(.nothingToRecord) }
        switch current.phase {
        case .recording:
            return .rejected(.alreadyRecording(index: current.index))
        case .inPreview:
            selection = Selection(index: current.index, phase: .recording)
            return .accepted([.startRecording(into: current.index)])
        }
    }

    private mutating func stop(take url: URL) -> CanvasReaction {
        guard let index = recordingIndex else { return .rejected(.nothingRecording) }
        let take = Take(url)
        if let owner = owner(ofTake: take, other: index) {
            return .rejected(.takeInUse(url: url, index: owner))
        }
        let old = slots[index].take
        slots[index].take = take
        selection = Selection(index: index, phase: .inPreview)
        var effects: [CanvasEffect] = [.takeFinished(index: index, url: url)]
        // The recorder may overwrite the previous take's file; that file is the new take, so it is not reported as
        // replaced (the host would otherwise remove the take it just recorded).
        if let old, !old.isSameFile(as: take) {
            effects.append(.takeReplaced(index: index, oldURL: old.url))
        }
        effects.append(.coverWanted(index: index, url: url))
        return .accepted(effects)
    }

    private mutating func cancel() -> CanvasReaction {
        guard let index = recordingIndex else { return .rejected(.nothingRecording) }
        selection = Selection(index: index, phase: .inPreview)
        return .accepted([.takeDiscarded(index: index)])
    }

    private mutating func delete(_ index: Int) -> CanvasReaction {
        guard indices.contains(index) else { return .rejected(.indexOutOfRange(index: index, count: count)) }
        if let recording = recordingIndex { return .rejected(.lockedWhileRecording(recordingIndex: recording)) }
        guard let url = slots[index].videoURL else { return .rejected(.noTake(index: index)) }
        slots[index].take = nil
        return .accepted([.takeRemoved(index: index, url: url)])
    }

    private mutating func add() -> CanvasReaction {
        if let recording = recordingIndex { return .rejected(.lockedWhileRecording(recordingIndex: recording)) }
        slots.append(Slot(id: CanvasID(rawValue: nextIdentity), videoURL: nil))
        nextIdentity += 1
        return .accepted([.canvasesInserted(IndexSet(integer: slots.count - 1))])
    }

    private mutating func remove(_ index: Int) -> CanvasReaction {
        guard indices.contains(index) else { return .rejected(.indexOutOfRange(index: index, count: count)) }
        if let recording = recordingIndex { return .rejected(.lockedWhileRecording(recordingIndex: recording)) }
        guard count > 1 else { return .rejected(.lastCanvas) }
        var effects: [CanvasEffect] = []
        if let current = selection {
            if current.index == index {
                effects.append(.detachPreview(from: index))
                selection = nil
            } else if current.index > index {
                // The previewing canvas keeps the preview; only its index shifts with the collection change.
                selection = Selection(index: current.index - 1, phase: current.phase)
            }
        }
        if let url = slots[index].videoURL {
            effects.append(.takeRemoved(index: index, url: url))
        }
        slots.remove(at: index)
        effects.append(.canvasesRemoved(IndexSet(integer: index)))
        return .accepted(effects)
    }
}

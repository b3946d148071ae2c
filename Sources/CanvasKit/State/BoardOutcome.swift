/// The result of the transition function: the next board, its effects and what changed, or a rejection.
///
/// The one result type of the canvas state machine: `BoardState.transition(from:on:)` returns it, and so does
/// `CanvasBoard.send(_:)`. A rejection carries no state: the board stays as it was.
public enum BoardOutcome: Sendable, Hashable {
    /// The event was accepted: `next` is the new board, `effects` what the host must do, in order, and `change` what
    /// the event changed, from which the model writes (``writes``) are derived.
    case accepted(next: BoardState, effects: [CanvasEffect], change: BoardChange)
    /// The event was refused; the board is unchanged.
    case rejected(CanvasRejection)

    /// The rejection, or nil when accepted.
    public var rejection: CanvasRejection? {
        if case .rejected(let rejection) = self { return rejection }
        return nil
    }

    /// The effects; empty when rejected.
    public var effects: [CanvasEffect] {
        if case .accepted(_, let effects, _) = self { return effects }
        return []
    }

    /// The next board, or nil when rejected.
    public var next: BoardState? {
        if case .accepted(let next, _, _) = self { return next }
        return nil
    }

    /// The writes that bring one observable model per canvas from the board before the event to ``next``, in the
    /// order they are performed; empty when rejected. See ``BoardChange/writes(after:)``.
    public var writes: [BoardWrite] {
        if case .accepted(let next, _, let change) = self { return change.writes(after: next) }
        return []
    }

    /// The number of the draft record that journals the event: set when a ``CanvasBoard`` opened on a draft accepted
    /// it (compare with ``BoardDraft/Progress/durable``, or wait for it with ``BoardDraft/durable(through:)``); nil
    /// for a rejected event, the transition function's outcome, and a board without a draft.
    public var draftRecord: UInt64? {
        if case .accepted(_, _, let change) = self { return change.draftRecord }
        return nil
    }

    /// Whether the event was accepted.
    public var isAccepted: Bool { rejection == nil }
}

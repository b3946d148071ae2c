/// The result of the pure transition function: the next board and its effects, or a rejection.
///
/// A rejection carries no state: the board stays as it was (a rejected event changes nothing).
public enum BoardOutcome: Sendable, Hashable {
    /// The event was accepted; `next` is the new board and `effects` what the host must do, in order.
    case accepted(next: BoardState, effects: [CanvasEffect])
    /// The event was refused; the board is unchanged.
    case rejected(CanvasRejection)

    /// The rejection, or nil when accepted.
    public var rejection: CanvasRejection? {
        if case .rejected(let rejection) = self { return rejection }
        return nil
    }

    /// The effects; empty when rejected.
    public var effects: [CanvasEffect] {
        if case .accepted(_, let effects) = self { return effects }
        return []
    }
}

/// The result of `BoardState.handle(_:)`, the in-place form of the transition function.
public enum CanvasReaction: Sendable, Hashable {
    /// The event was accepted and the board updated; perform the effects in order.
    case accepted([CanvasEffect])
    /// The event was refused; the board is unchanged.
    case rejected(CanvasRejection)

    /// The rejection, or nil when accepted.
    public var rejection: CanvasRejection? {
        if case .rejected(let rejection) = self { return rejection }
        return nil
    }

    /// The effects; empty when rejected.
    public var effects: [CanvasEffect] {
        if case .accepted(let effects) = self { return effects }
        return []
    }

    /// Whether the event was accepted.
    public var isAccepted: Bool { rejection == nil }
}

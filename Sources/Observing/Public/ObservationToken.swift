import Locking

/// One registered observation (guarantee O1).
///
/// Every call to `observe` returns a new token with its own identity (`===`, `Hashable`), even for the same object and
/// key path. `invalidate()` ends the observation; calling it again, or after the observed object went away, does
/// nothing. Dropping the last reference to a token invalidates it, so keep the token for as long as you want the
/// handler called.
///
/// A token retains neither the observed object nor anything on its key path (O3); it retains the handler (and what the
/// handler captures) until it is invalidated, and lets it go before `invalidate()` returns (made from inside the
/// handler: when that call returns; a call already handed to a queue or the main actor keeps it until it runs).
public final class ObservationToken: Sendable, Hashable, CustomStringConvertible {
    /// Let go once invalidated, which releases the handler.
    private let slot: LockedValue<(any AnyObservation)?>
    /// Kept after the observation is let go (by a call from inside the handler): a later `invalidate()` waits on it.
    private let gate: CallGate?

    init(_ observation: (any AnyObservation)?) {
        slot = LockedValue(observation)
        gate = observation?.gate
    }

    private var observation: (any AnyObservation)? { slot.withLock { $0 } }

    /// A token that observes nothing (already invalidated).
    public static var inert: ObservationToken { ObservationToken(nil) }

    /// Ends the observation. Idempotent, callable from any thread and from inside the handler.
    ///
    /// After it returns, no new handler call starts (O7). A handler call already running on another thread is waited
    /// for, so don't call this while holding a lock that handler needs. A call from inside the handler itself returns
    /// at once and lets that call finish.
    public func invalidate() {
        // Ended before it is let go: a concurrent `invalidate()` that finds it still here waits for the same end.
        guard let observation else {
            gate?.end()
            return
        }
        observation.end()
        slot.withLock { $0 = nil }
    }

    /// Whether the observation can still deliver: not invalidated, and the observed object still exists.
    public var isActive: Bool { observation?.isActive ?? false }

    deinit { observation?.end() }

    /// Tokens are equal only to themselves (identity).
    public static func == (lhs: ObservationToken, rhs: ObservationToken) -> Bool { lhs === rhs }

    /// Hashes the token's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// The observed type and key path, or `inactive`.
    public var description: String {
        guard let record = observation?.record() else { return "ObservationToken(inactive)" }
        return "ObservationToken(\(record.objectType) \(record.keyPath))"
    }
}

import Synchronization

/// One registered observation (guarantee O1).
///
/// Every call to `observe` returns a new token with its own identity (`===`, `Hashable`), even for the
/// same object and key path. `invalidate()` ends the observation; calling it again, or after the
/// observed object went away, does nothing. Dropping the last reference to a token invalidates it, so
/// keep the token for as long as you want the handler called.
///
/// A token retains neither the observed object nor anything on its key path (O3); it retains the
/// handler (and what the handler captures) until it is invalidated.
public final class ObservationToken: Sendable, Hashable, CustomStringConvertible {
    /// The observation, not retained: the list of live observations holds it for the token (`heldUnretained`) until
    /// this token's `deinit`, so a token costs no reference count of its own (a retain and a release per registration).
    /// Why `unowned(unsafe)` is safe: the list releases an observation only once `heldUnretained` is clear, which only
    /// this token's `deinit` does, as its last use of it; nothing else can run on a token while its `deinit` runs.
    @usableFromInline unowned(unsafe) let core: (any ObservationCore)?
    /// The same object as `core`, to end it through: a call on the stored existential retained it and released it
    /// around the call, two atomic instructions (`deinit` makes one on every token).
    @usableFromInline let ending: Unmanaged<ListedObservation>?

    /// Takes `core`, just registered, and lists it (`LiveObservations`): the list takes over the caller's reference,
    /// and holds it for this token. Inlinable, like `LiveObservations.insert(held:)`.
    @inlinable
    init<Core: ListedObservation & ObservationCore>(listing core: consuming Core) {
        self.core = core
        ending = LiveObservations.insert(held: core)
    }

    private init() {
        core = nil
        ending = nil
    }

    /// A token that observes nothing (already invalidated).
    public static var inert: ObservationToken {
        ObservationToken()
    }

    /// Ends the observation. Idempotent, callable from any thread and from inside the handler.
    ///
    /// After it returns, no new handler call starts (O7). A handler call already running on another
    /// thread is waited for, so don't call this while holding a lock that handler needs. A call from
    /// inside the handler itself returns at once and lets that call finish.
    public func invalidate() {
        ending?._withUnsafeGuaranteedRef { $0.end() }
    }

    /// Whether the observation can still deliver: not invalidated, and the observed object still exists.
    public var isActive: Bool {
        core?.isActive ?? false
    }

    deinit {
        // The last use of the observation: once `heldUnretained` is clear the list may release it.
        if let ending {
            ListedObservation.release(held: ending)
        }
    }

    /// Tokens are equal only to themselves (identity).
    public static func == (lhs: ObservationToken, rhs: ObservationToken) -> Bool {
        lhs === rhs
    }

    /// Hashes the token's identity.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }

    /// The observed type and key path, or `inactive`.
    public var description: String {
        guard let record = core?.record else { return "ObservationToken(inactive)" }
        return "ObservationToken(\(record.objectType) \(record.keyPath))"
    }
}

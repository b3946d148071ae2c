/// How many undelivered changes an ``ObservedChanges`` sequence keeps while its consumer is busy.
public enum ChangeBufferingPolicy: Sendable, Hashable {
    /// Keeps every change until it is consumed (the default): nothing is lost, and a consumer that never catches up
    /// lets the buffer grow.
    case unbounded
    /// Keeps at most this many changes (at least 0); while full, newer changes are dropped.
    case bufferingOldest(Int)
    /// Keeps at most this many changes (at least 0); while full, the oldest one is dropped for each newer change (what
    /// a screen that only shows the latest value wants).
    case bufferingNewest(Int)
}

extension KeyValueObservable {
    /// The changes of `keyPath` as an `AsyncSequence` (O13): the same ``ObservedChange`` values an
    /// ``observe(_:options:_:)`` handler gets, in the same order (the `.initial` one first if asked, then every change
    /// once, in the order the values were stored).
    ///
    /// ```swift
    /// for await change in doc.changes(for: \.title, options: [.initial, .new]) {
    ///     print(change.newValue!)
    /// }
    /// ```
    ///
    /// The observation is registered before this returns, so no change stored after that is missed; changes wait in the
    /// sequence's buffer until the loop asks for them. It ends when the loop is left (`break`, `return`, a thrown
    /// error), when the task running the loop is cancelled, or when the sequence and its iterator are released without
    /// being iterated. The sequence finishes (the loop ends normally) when this object goes away, once the changes
    /// already buffered are consumed; that is noticed through the object's own `@Observed` property the key path reads
    /// first (a key path that reads none of this object's properties finishes only when the observation ends). The
    /// sequence retains neither this object nor the objects on the key path.
    ///
    /// Iterate it once: like `AsyncStream`, it has a single consumer.
    ///
    /// - Parameters:
    ///   - keyPath: what to observe, from this object (chains such as `\.document?.title` too).
    ///   - options: what the changes carry, as for ``observe(_:options:_:)`` (default: old and new values).
    ///   - bufferingPolicy: what to keep while the consumer is busy (default ``ChangeBufferingPolicy/unbounded``: every
    ///     change). A bounded buffer drops changes when it is full.
    /// - Returns: the sequence of changes.
    /// - Precondition: a bounded `bufferingPolicy` has a limit of at least 0.
    public func changes<Value: Sendable>(
        for keyPath: KeyPath<Self, Value> & Sendable,
        options: ObservationOptions = [.old, .new],
        bufferingPolicy: ChangeBufferingPolicy = .unbounded
    ) -> ObservedChanges<Value> {
        let (stream, continuation) = AsyncStream<ObservedChange<Value>>.makeStream(
            bufferingPolicy: bufferingPolicy.streamPolicy(ObservedChange<Value>.self))
        let observation = register(
            keyPath, options: options, delivery: .mutatingThread, shared: false,
            caller: Caller { _, change in continuation.yield(change) }, onGone: { continuation.finish() })
        let subscription = ObservationToken(observation)
        // Weakly: the stream holds this closure, and a strong reference would keep the token (and the observation)
        // alive as long as the stream, even once its sequence is dropped.
        continuation.onTermination = { [weak subscription] _ in
            subscription?.invalidate()
        }
        return ObservedChanges(stream: stream, subscription: subscription)
    }
}

/// The changes of one key path of one object, from ``KeyValueObservable/changes(for:options:bufferingPolicy:)``.
///
/// An `AsyncSequence` of ``ObservedChange`` values that never fails. Its observation lasts while the sequence or its
/// iterator exists and is being iterated; see `changes(for:options:bufferingPolicy:)`.
public struct ObservedChanges<Value: Sendable>: AsyncSequence, Sendable {
    /// One change, as a handler would get it.
    public typealias Element = ObservedChange<Value>
    /// The sequence never throws.
    public typealias Failure = Never

    let stream: AsyncStream<ObservedChange<Value>>
    let subscription: ObservationToken

    /// The iterator of the changes; iterate a sequence once.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<ObservedChange<Value>>.Iterator
        /// Keeps the observation alive while the loop runs, even if the sequence itself is gone, and ends it when the
        /// loop is left (the iterator released).
        let iteration: ChangeIteration

        /// The next change, waiting for it if none is buffered; `nil` once the observation ended (the loop was left or
        /// its task cancelled) or the object went away and the buffer is empty.
        public mutating func next() async -> ObservedChange<Value>? { await base.next() }

        /// The next change, as ``next()``, run on the caller's actor.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> ObservedChange<Value>? {
            await base.next(isolation: actor)
        }
    }

    /// Starts iterating. Call it once per sequence.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: stream.makeAsyncIterator(), iteration: ChangeIteration(subscription))
    }
}

extension ChangeBufferingPolicy {
    /// The `AsyncStream` policy this one stands for.
    func streamPolicy<Element>(_: Element.Type) -> AsyncStream<Element>.Continuation.BufferingPolicy {
        switch self {
        case .unbounded:
            return .unbounded
        case .bufferingOldest(let limit):
            precondition(limit >= 0, "changes(for:): bufferingOldest needs a limit of at least 0, not \(limit)")
            return .bufferingOldest(limit)
        case .bufferingNewest(let limit):
            precondition(limit >= 0, "changes(for:): bufferingNewest needs a limit of at least 0, not \(limit)")
            return .bufferingNewest(limit)
        }
    }
}

/// Keeps the observation while a loop runs, even if the sequence is gone, and ends it when the loop is left.
final class ChangeIteration: Sendable {
    private let subscription: ObservationToken

    init(_ subscription: ObservationToken) { self.subscription = subscription }

    deinit { subscription.invalidate() }
}

public import Dispatch

/// Where an observation's handler runs (guarantee O9), chosen per observation.
public enum ObservationDelivery: Sendable {
    /// On the thread that made the change, before the setter returns (after any notifications that were already queued
    /// on that thread; see O8). This is the default.
    case mutatingThread
    /// Asynchronously on `queue`, in the order of the changes (O11: the calls are handed to the queue in store order,
    /// whatever thread wrote; a serial queue runs them in that order, a concurrent one may not).
    case queue(DispatchQueue)
    /// On the main actor: synchronously when the change is made on the main thread, otherwise asynchronously on the
    /// main queue, in the order of the changes.
    case mainActor
}

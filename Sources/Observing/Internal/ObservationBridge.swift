import Locking
import Observation
import Synchronization

/// The Swift Observation side of one `@Observed` / `@ObservedArray` storage (O12): the
/// `ObservationRegistrar` that `withObservationTracking` (and SwiftUI) register with when they read the
/// property, and what to tell it when the property changes.
///
/// Why one registrar per storage, created by the storage's first read: the `@Observable` macro keeps one
/// registrar per object in a stored property it adds to the class; `KeyValueObservable` promises that
/// a model needs nothing but its `@Observed` properties, so the only per-object places are the property
/// storages. A registrar only keys its trackings by key path within itself, so one per storage is as
/// exact as one per object (a tracking that reads three properties registers with three registrars).
/// Tracking is told the real subject and key path (`\Doc.title`), so whatever SwiftUI or a debugger
/// prints for a change names the property.
///
/// Why the first read arms it, and not only reads made inside a tracking scope: whether the calling
/// thread is inside `withObservationTracking` is kept in a thread-local of the Observation runtime that
/// only `ObservationRegistrar.access` reads, and that call says nothing back. So every getter calls
/// `access` (one call and a thread-local load when nothing tracks), and the bridge exists from the first
/// read on. A storage that was never read through its getter has no bridge, and its writes cost one
/// atomic load more than before. Writes to a storage with a bridge tell the registrar (two short
/// critical sections in the Observation runtime), whether or not a tracking is registered: clearing the
/// bridge again would be unsound, since a tracking that read the property registers with the registrar
/// only when its `apply` closure returns, possibly after other writes.
///
/// Reads made by `observe` while it evaluates a key path (`ThreadContext.track`) are not accesses: they
/// register a key-value observation, they are not a read a view depends on.
@usableFromInline
final class ObservationBridge: Sendable {
    @usableFromInline let registrar = ObservationRegistrar()
    /// Tells `registrar` that the property of the object passed in changed (`willSet` then `didSet`,
    /// both after the store: see `PropertyStorage.notifyingObservation(of:_:)`). Built where the
    /// subject's type and the key path are concrete.
    @usableFromInline let notify: @Sendable (ObservationRegistrar, AnyObject) -> Void
    /// Whether `RegistrarProbe` can tell that no tracking holds `registrar` (copied here so that a write reads no
    /// global).
    @usableFromInline let probes = RegistrarProbe.isUsable

    /// Whether a write must tell `registrar`: some tracking may be collecting an access to it or be registered
    /// with it (always true when the probe cannot tell).
    @inlinable
    @inline(__always)
    var mayBeTracked: Bool {
        !probes || RegistrarProbe.isHeldElsewhere(registrar)
    }

    init<Subject: KeyValueObservable, Member>(keyPath: KeyPath<Subject, Member>) {
        // Why `nonisolated(unsafe)` is safe: a `KeyPath` object is immutable once created, and it is
        // `Sendable` in all but name unless it captured subscript arguments; this one is the key path of
        // a wrapped stored property (`\Doc.title`, handed to the getter by the compiler), which captures
        // nothing.
        nonisolated(unsafe) let keyPath = keyPath
        notify = { registrar, object in
            let subject = unsafeDowncast(object, to: Subject.self)
            registrar.willSet(subject, keyPath: keyPath)
            registrar.didSet(subject, keyPath: keyPath)
        }
    }
}

/// Where a storage keeps its `ObservationBridge` (none until the property's first read).
///
/// The getters and setters read `address` (one load, no reference count, no generic call: the standard
/// library's `AtomicLazyReference.load()` is an unspecialized call that costs a write about 580
/// instructions); `owner` holds the bridge and releases it with the storage.
@usableFromInline
struct ObservationSlot: ~Copyable, Sendable {
    /// The bridge's address, or 0. Set once, with a releasing store, after `owner` holds the bridge.
    @usableFromInline let address = Atomic<UInt>(0)
    private let owner = LockedValue<ObservationBridge?>(nil)

    init() {}

    /// The bridge, unretained: `owner` keeps it until the storage goes away, and callers use it only while
    /// they use the storage.
    @inlinable
    @inline(__always)
    var bridge: Unmanaged<ObservationBridge>? {
        let bits = address.load(ordering: .acquiring)
        guard bits != 0 else { return nil }
        return Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: bits).unsafelyUnwrapped)
    }

    /// The bridge, made by `make` if there is none yet (by this call or another thread's).
    func bridge(making make: () -> ObservationBridge) -> Unmanaged<ObservationBridge> {
        owner.withLock { owner in
            if let existing = owner {
                return Unmanaged.passUnretained(existing)
            }
            let made = make()
            owner = made
            address.store(UInt(bitPattern: Unmanaged.passUnretained(made).toOpaque()), ordering: .releasing)
            return Unmanaged.passUnretained(made)
        }
    }
}

extension PropertyStorage {
    /// Records a read of this property (of `subject`, at `keyPath`) with Swift Observation: inside
    /// `withObservationTracking` the tracking's `onChange` then fires on the next change. Called by
    /// every getter; the bridge is created by the first call.
    @inlinable
    @inline(__always)
    func observationAccess<Subject: KeyValueObservable, Member>(
        _ subject: Subject, _ keyPath: KeyPath<Subject, Member>
    ) {
        if _slowPath(isTracking) && ThreadContext.isRecordingReadsOnThisThread {
            return
        }
        let bridge = observation.bridge ?? makeObservationBridge(keyPath)
        bridge._withUnsafeGuaranteedRef { $0.registrar.access(subject, keyPath: keyPath) }
    }

    @usableFromInline
    @inline(never)
    func makeObservationBridge<Subject: KeyValueObservable, Member>(
        _ keyPath: KeyPath<Subject, Member>
    ) -> Unmanaged<ObservationBridge> {
        observation.bridge { ObservationBridge(keyPath: keyPath) }
    }

    /// Whether a write must take the path that tells Swift Observation: the property was read through its getter
    /// and some tracking may hold its registrar (`ObservationBridge.mayBeTracked`). Checked before the store, where
    /// an `@Observable` class's `willSet` looks for trackings.
    @inlinable
    @inline(__always)
    var mayBeTrackedByObservation: Bool {
        guard let bridge = observation.bridge else { return false }
        return bridge._withUnsafeGuaranteedRef { $0.mayBeTracked }
    }

    /// `setValue` for an armed storage: stores and notifies as `setValue` does, then tells Swift
    /// Observation unless the write was equal. Out of line, so the plain setter stays small; inlinable, so
    /// it is specialized for `Value` where the model is compiled.
    @inlinable
    @inline(never)
    func setValueNotifyingObservation(_ newValue: Value, of object: AnyObject) {
        notifyingObservation(of: object) { setValue(newValue, of: object) }
    }

    /// Runs `mutation` (which stores into this storage once and notifies its observations), then tells
    /// Swift Observation, if the storage is armed, that the property changed.
    ///
    /// The registrar's `willSet` and `didSet` are both called after the store, on the writing thread and
    /// after this write's key-value handlers: a tracking's `onChange` reads the new value, as key-value
    /// handlers do (O6). An equal write (`Equatable` values) is not told, as it is not notified to
    /// key-value observations; it is recognized by the storage's version, which moved by exactly one
    /// (this write) between the value read before and the one read after. When another write came in
    /// between, the change is told: a spurious `onChange` is harmless, a lost one would leave a view stale.
    @inlinable
    func notifyingObservation(of object: AnyObject, _ mutation: () -> Void) {
        // Checked before the store, where an `@Observable` class's `willSet` looks for trackings.
        guard let bridge = observation.bridge, bridge._withUnsafeGuaranteedRef({ $0.mayBeTracked }) else {
            mutation()
            return
        }
        guard let isEqual else {
            mutation()
            bridge._withUnsafeGuaranteedRef { $0.notify($0.registrar, object) }
            return
        }
        let before = withState { ($0.value, $0.version) }
        mutation()
        let after = withState { ($0.value, $0.version) }
        if after.1 == before.1 &+ 1 && isEqual(before.0, after.0) {
            return
        }
        bridge._withUnsafeGuaranteedRef { $0.notify($0.registrar, object) }
    }
}

extension ThreadContext {
    /// Whether `observe` is evaluating a key path on the calling thread (its reads are recorded).
    @usableFromInline
    static var isRecordingReadsOnThisThread: Bool {
        existing?.isRecordingReads ?? false
    }
}

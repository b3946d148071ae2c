import Foundation
import Locking
import Synchronization

/// What every registered observation offers its token, its `KeyValueObserver` and the diagnostics.
@usableFromInline
protocol ObservationCore: AnyObject, Sendable {
    /// Ends the observation; idempotent. After it returns no new handler call starts (O7).
    func invalidate()
    /// Whether `invalidate()` has been called.
    var isInvalidated: Bool { get }
    /// Whether the observation can still deliver: not invalidated and the observed object exists.
    var isActive: Bool { get }
    /// A description for `ObservationDiagnostics`, or `nil` once the observed object is gone.
    var record: ObservationRecord? { get }
    /// The identity of the observed object (readable without touching the object).
    var rootIdentifier: ObjectIdentifier { get }
    /// The key path naming the observed property, as `KeyValueObserver` keys its pairs (once started); `nil`
    /// for observations that no `KeyValueObserver` makes.
    var propertyKeyPath: AnyKeyPath? { get }
}

/// The part of an observation that `LiveObservations` reaches without knowing its type: its link in the list and
/// whether it has ended.
///
/// Why `@unchecked Sendable` is safe: its stored properties are atomic (a class that can be subclassed cannot be
/// checked `Sendable`).
@usableFromInline
class ListedObservation: @unchecked Sendable {
    /// The address of the next observation in `LiveObservations`' list (0 at its end). Written by the thread that
    /// links this one in, before the releasing exchange that publishes it; read after an acquiring one.
    final let listNext = Atomic<UInt>(0)
    /// Whether its holder, an `ObservationToken` or a `KeyValueObserver`, holds this observation through the list's
    /// reference (neither keeps one of its own: a retain and a release fewer per registration): set when it is listed
    /// (`LiveObservations.insert(held:)`, or earlier by a holder that can reach it before), cleared (releasing) by the
    /// holder as its last use of it (`release(held:)`). A pruning keeps an observation while this is set, ended or not.
    @usableFromInline final let heldUnretained = Atomic<Bool>(false)

    @usableFromInline
    init() {}

    /// Whether the observation has ended (invalidated): a listing leaves it out.
    var hasEnded: Bool {
        true
    }

    /// Whether a pruning may drop it from the list and release the list's reference: it has ended, and no token relies
    /// on that reference.
    final var mayBeDropped: Bool {
        hasEnded && !heldUnretained.load(ordering: .acquiring)
    }

    /// Whether the observation can still deliver (`ObservationCore.isActive`, reached without knowing its type).
    @usableFromInline
    var isActive: Bool {
        false
    }

    /// Ends the observation `held` and gives it back to the list: its holder's last use of it (the list may release it
    /// from then on).
    @inlinable
    static func release(held: Unmanaged<ListedObservation>) {
        held._withUnsafeGuaranteedRef {
            $0.end()
            $0.heldUnretained.store(false, ordering: .releasing)
        }
    }

    /// Ends the observation: its `ObservationCore.invalidate()` (a class method, so that a token reaches it through a
    /// reference it does not retain for the call). Every subclass overrides it.
    @usableFromInline
    func end() {
        preconditionFailure("\(type(of: self)) does not override end()")
    }
}

extension ObservationCore {
    var propertyKeyPath: AnyKeyPath? { nil }
}

/// Told by a chain-link subscription (`PropertyStorage.addLink`) that a storage on the path of a
/// chained key path changed.
@usableFromInline
protocol ChainLinkTarget: AnyObject, Sendable {
    func linkDidChange()
}

/// Who registered an observation through a `KeyValueObserver`, for diagnostics.
@usableFromInline
struct OwnerDescription: Sendable {
    let typeName: String
    let identifier: ObjectIdentifier
    /// The weak reference to the owner: once it is gone the observation ends itself.
    @usableFromInline let link: OwnerLink
}

/// A chain-mode subscription to one storage on the path.
@usableFromInline
struct ChainLink {
    @usableFromInline weak var storage: (any TrackableStorage)?
    @usableFromInline let storageID: ObjectIdentifier
    @usableFromInline let subscriptionID: UInt64
    /// Whether the subscription is the last link of a path of stored properties, made by `makeLeafLink` (its changes
    /// take the fast path), rather than an ordinary link (`TrackableStorage.addLink(_:wantsPrior:since:)`).
    @usableFromInline let isLeaf: Bool

    @usableFromInline
    init(storage: any TrackableStorage, storageID: ObjectIdentifier, subscriptionID: UInt64, isLeaf: Bool) {
        self.storage = storage
        self.storageID = storageID
        self.subscriptionID = subscriptionID
        self.isLeaf = isLeaf
    }
}

/// The weak references of a `StoredChainFastPath`. Only touched under its observation's lock, so the run-time
/// exclusivity checks are skipped.
@usableFromInline
final class StoredChainStorages {
    @usableFromInline @exclusivity(unchecked) weak var first: (any TrackableStorage)?
    @usableFromInline @exclusivity(unchecked) weak var second: (any TrackableStorage)?

    @usableFromInline
    init() {}
}

/// Chain mode, for a path of two or three stored properties (`\Folder.document.title`): what a change of the last
/// property needs to be sent without evaluating the path again (`KeyPathObservation.fastChange`). Not generic, like
/// the rest of `ObservationState`.
@usableFromInline
struct StoredChainFastPath {
    /// The subscription of the last link (`ChainLink.isLeaf`); 0 when the path has no fast path.
    @usableFromInline var leafSubscriptionID: UInt64 = 0
    /// The storages before the last, in path order (the first is the root's; `second` only for three properties),
    /// and their versions when the path was last evaluated. Weak, like every link: a strong reference would keep the
    /// storage's value, the next object on the path, alive. The weak references live in a box made only for a path
    /// with a fast path: a weak field here would make every observation's state (direct ones too) impossible to move
    /// bit by bit, which cost every registration about 250 instructions of value witnesses.
    @usableFromInline var storages: StoredChainStorages?
    @usableFromInline var firstVersion: UInt64 = 0
    @usableFromInline var secondVersion: UInt64 = 0

    @inlinable
    var first: (any TrackableStorage)? {
        get { storages?.first }
        set { boxed.first = newValue }
    }

    @inlinable
    var second: (any TrackableStorage)? {
        get { storages?.second }
        set { boxed.second = newValue }
    }

    /// `storages`, made on first use.
    @usableFromInline
    var boxed: StoredChainStorages {
        mutating get {
            if let storages {
                return storages
            }
            let made = StoredChainStorages()
            storages = made
            return made
        }
    }
    @usableFromInline var hasSecond = false

    @usableFromInline
    init() {}
}

/// How a chain-mode observation is subscribed (see `KeyPathObservation`): pending until it starts, and again once it
/// is invalidated. (Direct mode's one subscription is not in the locked state: see `KeyPathObservation.directStorage`.)
@usableFromInline
enum ObservationMode {
    case pending
    case chain(links: [ChainLink])
}

/// The registration's `.initial` call still to be marked made (`KeyPathObservation.finishInitial()`): the direct
/// subscriber's storage and delivery, or, in chain mode, ticket 0.
@usableFromInline
enum PendingInitial {
    case direct(any TrackableStorage, AnyDelivery)
    case chain
}

/// What a `KeyPathObservation` keeps behind its lock. Not generic: the observation's code is not specialized
/// for its `Root` and `Value` (it is reached through `ObservationCore`), and every use of a generic state type
/// there (its fields, the lock around it, an optional of it) would look its metadata up in the runtime's cache;
/// what depends on `Value` is in a `ChainValue`, a class, whose fields need no look-up.
@usableFromInline
struct ObservationState {
    /// The observed object (a `Root`), not retained (see `RootReference`); nil once a chain-mode observation is
    /// invalidated (a direct one's stays: only diagnostics read it then, after checking `isActive`).
    @usableFromInline var root: RootReference?
    @usableFromInline var mode: ObservationMode = .pending
    /// Chain mode: the storage key paths last read, to name the observed path in diagnostics. (Direct mode
    /// names its one property from its storage.)
    var readNames: [ReadName] = []
    /// The direct-mode subscriber's `Delivery` when the first `invalidate()` ran inside a delivery on its own
    /// thread (a handler ending its own observation), which it could not wait for: later calls from other threads
    /// wait for it while it lives. Weak, so that it does not keep the handler past that delivery's end (this
    /// thread's context holds it until then, see `Hazards.release`); empty once it is gone, when nothing is left
    /// to wait for. (In a box made only then: a weak field here would cost every registration its weak-reference
    /// calls.)
    var deliveryEndedInsideItsCall: WeakDelivery?
    /// Chain mode: the ticket the next notifying re-evaluation takes (see `turn`).
    @usableFromInline var nextTicket: UInt64 = 0
    /// The key path that names the observed property for `KeyValueObserver` (see `propertyKeyPath(...)`).
    var propertyKeyPath: AnyKeyPath?
    /// Chain mode, when the key path is exactly the `@Observed` properties it read, one after the other
    /// (`\Folder.document.title`: no computed property, optional chaining or subscript in between): the
    /// version of each link's storage as last read, in link order. The path's value is then the last
    /// storage's value for as long as the other storages keep their versions, so a change of the last one is
    /// read from it without evaluating the path again (see `storedChainValue`). Nil for any other path.
    @usableFromInline var storedChainVersions: [UInt64]?
    /// Chain mode: the fast path of a path of two or three stored properties (empty for any other path).
    @usableFromInline var fastPath = StoredChainFastPath()
    /// Chain mode: the path's value as last computed, with its `==` (a `ChainValue<Value>`).
    @usableFromInline var chainValue: AnyObject?

    init(root: RootReference) {
        self.root = root
    }
}

/// A weak reference to a subscriber's `Delivery` (see `ObservationState.deliveryEndedInsideItsCall`). Only
/// reached under its observation's lock.
final class WeakDelivery {
    weak var delivery: AnyDelivery?
}

/// Chain mode: the value of the observed path as last computed, and `==` when `Value` is `Equatable` (a chain
/// notifies only when its end value changed; found on first use, since the dynamic cast is not free). Only
/// touched under its observation's lock, so the run-time exclusivity checks are skipped (each access was a call
/// to `swift_beginAccess`, about 75 instructions).
@usableFromInline
final class ChainValue<Value> {
    @usableFromInline @exclusivity(unchecked) var last: Value
    /// `==`, or nil for values that are not `Equatable`; valid once `equalityFound`.
    @usableFromInline @exclusivity(unchecked) var equality: ValueEquality<Value>?
    @usableFromInline @exclusivity(unchecked) var equalityFound = false

    init(_ last: Value) {
        self.last = last
    }

    /// Whether `lhs` and `rhs` are equal: `==` for `Equatable` values, never for others.
    @inlinable
    func isEqual(_ lhs: Value, _ rhs: Value) -> Bool {
        if !equalityFound {
            equality = makeValueEquality(Value.self)
            equalityFound = true
        }
        return equality?.isEqual(lhs, rhs) ?? false
    }
}

/// `==` for values typed `Value`, found at run time. A class rather than a closure: a closure kept in a generic class
/// is stored in its most general form, and specialized code read it through a reabstraction thunk allocated on every
/// change (an allocation and a release, about 150 instructions).
@usableFromInline
class ValueEquality<Value> {
    @usableFromInline
    init() {}

    /// Overridden by `EquatableEquality`, the only subclass made (`makeValueEquality`).
    @usableFromInline
    func isEqual(_ lhs: Value, _ rhs: Value) -> Bool {
        false
    }
}

/// `==` of `E` for values typed `Value`, where `E` is `Value` itself (`makeValueEquality` found it by casting
/// `Value.self`): the values are reinterpreted, not cast.
final class EquatableEquality<E: Equatable, Value>: ValueEquality<Value> {
    override func isEqual(_ lhs: Value, _ rhs: Value) -> Bool {
        unsafeBitCast(lhs, to: E.self) == unsafeBitCast(rhs, to: E.self)
    }
}

/// `ValueEquality` for `Value` if it is `Equatable`, else nil.
@usableFromInline
func makeValueEquality<Value>(_ type: Value.Type) -> ValueEquality<Value>? {
    guard let equatable = type as? any Equatable.Type else { return nil }
    return valueEquality(of: equatable, as: Value.self)
}

private func valueEquality<E: Equatable, Value>(of _: E.Type, as _: Value.Type) -> ValueEquality<Value> {
    EquatableEquality<E, Value>()
}

/// The state behind one `ObservationToken`: observes `keyPath` from `root`.
///
/// Direct mode: the key path is exactly one `@Observed` property of `root`; the observation subscribes
/// to that property's storage and forwards its changes without re-reading anything. Its subscription is not in the
/// locked state (see `directStorage`): registering and ending it take no lock section of the observation's.
/// Chain mode (`\.document.title`, computed properties, subclass key paths): the key path is evaluated
/// under an access tracker, the observation subscribes to every `@Observed` storage it read, and any of
/// them changing re-evaluates the path, re-targets the subscriptions and notifies if the end value changed.
///
/// Neither the root nor any object on the path is retained (O3); see `directStorage` for the one storage a direct
/// observation keeps.
///
/// Made where `Root` and `Value` are concrete (`KeyValueObservable.register` is inlinable), but its own code is
/// not specialized: it keeps its state in a non-generic `ObservationState` and non-generic fields, so that registering
/// and ending a direct observation touches no generic type.
///
/// Why `@unchecked Sendable` is safe (restated only because its base class, `ListedObservation`, is unchecked): every
/// stored property is immutable and `Sendable`, atomic, or a `LockedValue`, except `chainKeyPath`, `body`, the direct
/// subscription and `pendingInitial` (each argued where it is declared); the state behind the lock is argued at `state`.
@usableFromInline
final class KeyPathObservation<Root: AnyObject, Value>: ListedObservation, ObservationCore, ChainLinkTarget,
    @unchecked Sendable
{
    @usableFromInline let options: ObservationOptions
    let delivery: ObservationDelivery
    /// The handler, for the calls made through this observation (`callHandler`: the `.initial` call, a chain's
    /// changes, queue and main-actor delivery); released by the first `invalidate()` once no other thread calls it,
    /// so that what it captured is freed as soon as the observation ends (not when the token goes away).
    ///
    /// Why a `var` in a `Sendable` class is safe: it is written only by `init` and by the first `invalidate()`, after
    /// that call set `closed` and waited until no other thread names this observation in a hazard slot. A call that
    /// publishes itself after that wait began sees `closed` and does not read `body` (see `Hazards`); a call published
    /// before is waited for, and its slot's releasing clear is what the wait's load reads, so its read of `body`
    /// happens before the write. A call still running on the invalidating thread itself read `body` before, on this
    /// thread, and holds its own reference. The same argument is why `body` skips the run-time exclusivity check.
    @usableFromInline @exclusivity(unchecked) var body: (@Sendable (Root, ObservedChange<Value>) -> Void)?
    /// Set by the first `invalidate()` (sequentially consistent, before it reads the hazard slots): a call made through
    /// this observation that has not started will not start.
    @usableFromInline let closed = Atomic<Bool>(false)
    /// Calls `callHandler` where the delivery says (a queue, the main actor); nil for the mutating thread, where
    /// `deliver(_:_:)` calls it itself (no closure to allocate).
    @usableFromInline let send: (@Sendable (KeyPathObservation, Root, ObservedChange<Value>) -> Void)?
    /// Calls `chainDidChange()` on its argument (see `linkDidChange()`).
    @usableFromInline let chainChanged: @Sendable (KeyPathObservation) -> Void
    /// Calls `makeLeafLink(for:subscriptionID:)` on its argument: made where `Root` and `Value` are concrete, like
    /// `chainChanged`, so that the subscriber it makes, which every change of the path's last property calls, is
    /// specialized.
    @usableFromInline let leafLink: @Sendable (KeyPathObservation, any TrackableStorage, UInt64) -> AnyDelivery
    /// Chain mode: the observed key path, which a change evaluates again; nil in direct mode, which never evaluates it
    /// after `start` and names its property from its storage (not keeping it saves a retain and a release per
    /// registration). Why `nonisolated(unsafe)` is safe: it is written once, by `start` before the observation is
    /// published, and only evaluated inside the state's lock sections after that; a key path that captured subscript
    /// arguments reads them, never writes them.
    @usableFromInline nonisolated(unsafe) var chainKeyPath: KeyPath<Root, Value>?
    /// The observed object's type, turned into a name only for diagnostics.
    private let rootType: AnyObject.Type
    @usableFromInline
    let rootIdentifier: ObjectIdentifier
    @usableFromInline let owner: OwnerDescription?
    /// Made, and reached in `start()` and `linkDidChange()`, through `LockedValue`'s unchecked entry points: the
    /// state holds values the compiler cannot prove disconnected (a weak reference to the observed object, key paths,
    /// the objects a chain read, values of any type). Why that is safe: every access holds the lock, and what crosses
    /// threads through it is the model object and its values, which can only be reached from two threads at all if the
    /// model is itself `Sendable`.
    @usableFromInline let state: LockedValue<ObservationState>
    /// Chain mode, store order (O11): each re-evaluation that notifies takes the next ticket under the state's
    /// lock (where it computes the old and new values), and sends only once `turn` equals its ticket, then
    /// moves it on. Ticket 0 is the `.initial` call's when asked for. (Direct mode is ordered by its
    /// storage's turn, `PropertyStorage.turn`.)
    @usableFromInline let turn = Atomic<UInt64>(0)
    #if !canImport(ObjectiveC)
        /// The observed object's reference, whose unowned count keeps its memory until this observation's `deinit`
        /// (see `RootReference`).
        private let rootMemory: RootReference
    #endif
    /// Set by the first `invalidate()` once no handler call of this observation runs on any thread and none can
    /// start (see there): every later call may then return at once.
    private let waitedForEveryCall = Atomic<Bool>(false)

    // Direct mode's subscription. Not in the locked state: registering and ending a direct observation then take no
    // lock section of the observation's own (four atomic instructions each way). Why that is safe:
    // - `directDeliveryAddress`, `directSubscriptionID` and `directStorageID` are written once, by `start` or
    //   `startDirect`, before the observation is published (to its token, its `KeyValueObserver` or the list of live
    //   observations: each hands it over through a releasing store or a lock), and only read after that;
    // - `directStorage` is written by `start` or `startDirect` in the same way, then taken out by the first
    //   `invalidate()` (the one call whose exchange of `closed` found it false), and read by nothing else;
    // - `pendingInitial` is only touched by the registering thread, inside `register`.
    // The Delivery is held by the storage's subscriber list alone (it is alive while subscribed, and the first
    // `invalidate()` holds it from its removal until it is done); the observation keeps only its address, which names
    // it in the hazard slots. A later `invalidate()` reads that address only while the first has not finished
    // (`directRemoved`, `firstCallFinished`), so it never names another object (see `waitForFirstCall`).

    /// Direct mode: the observed property's storage, held strongly (a weak reference would give every storage a side
    /// table and make each retain in its setter take the slow path). If the object goes away first, the storage (and
    /// the last value of that property) is freed when the token is invalidated or released, like the handler.
    @exclusivity(unchecked) var directStorage: (any TrackableStorage)?
    /// Direct mode: the subscription's id in `directStorage`.
    @exclusivity(unchecked) var directSubscriptionID: UInt64 = 0
    /// Direct mode: the address of the subscriber's `Delivery` (0: not direct mode).
    @exclusivity(unchecked) var directDeliveryAddress: UInt = 0
    /// Direct mode: the storage's identity, to name the property in diagnostics once the storage is released.
    @exclusivity(unchecked) var directStorageID: ObjectIdentifier?
    /// The registration's `.initial` call still to be marked made (`finishInitial()`).
    @exclusivity(unchecked) var pendingInitial: PendingInitial?
    /// Direct mode: set by the first `invalidate()` once it removed (and closed) the subscriber, so no call of it
    /// starts after; a later call waits for this before it looks at the hazard slots.
    private let directRemoved = Atomic<Bool>(false)
    /// Set by the first `invalidate()` when it is done but could not wait for a call on its own thread (a handler
    /// ending its own observation): a later call waits for that call through `deliveryEndedInsideItsCall`.
    private let firstCallFinished = Atomic<Bool>(false)

    /// `send` must call `callHandler` on the observation it is given (on the chosen queue or actor; nil: at once).
    /// `root` is borrowed (`__shared`: `borrowing` crashes this compiler here), since only its address and type are
    /// kept: an owned argument is a retain in the caller and a release here.
    @usableFromInline
    init(
        root: __shared Root,
        options: ObservationOptions,
        delivery: ObservationDelivery,
        handler: @escaping @Sendable (Root, ObservedChange<Value>) -> Void,
        owner: OwnerDescription?,
        send: (@Sendable (KeyPathObservation, Root, ObservedChange<Value>) -> Void)?,
        chainChanged: @escaping @Sendable (KeyPathObservation) -> Void,
        leafLink: @escaping @Sendable (KeyPathObservation, any TrackableStorage, UInt64) -> AnyDelivery
    ) {
        self.chainChanged = chainChanged
        self.leafLink = leafLink
        self.options = options
        self.delivery = delivery
        self.body = handler
        self.send = send
        self.owner = owner
        self.rootType = type(of: root)
        self.rootIdentifier = ObjectIdentifier(root)
        let reference = RootReference(root)
        #if !canImport(ObjectiveC)
            reference.retainMemory()
            rootMemory = reference
        #endif
        // Made in place (a state built in a variable and then handed over was copied, field by field).
        self.state = LockedValue(unchecked: ObservationState(root: reference))
    }

    #if !canImport(ObjectiveC)
        deinit {
            rootMemory.releaseMemory()
        }
    #endif

    /// The observed object, if it still exists (call under the lock).
    @inlinable
    static func root(of state: ObservationState) -> Root? {
        // The state's root is only ever set from a `Root` (`init`).
        guard let root = state.root?.object else { return nil }
        return unsafeDowncast(root, to: Root.self)
    }

    // MARK: Registration

    /// Subscribes to what the key path reads from `root` (the observed object, which the caller holds); returns
    /// whether it started (always, since `root` exists). `direct` is
    /// the subscriber a direct observation hands to its storage (a `PropertyStorage<Value>.Delivery`, made where
    /// `Value` is concrete). With `.initial`, `initial` is called (under the lock) with the current value, and
    /// changes wait for `finishInitial()`, which the caller must call after making the initial call.
    @usableFromInline
    func start(root: Root, keyPath: KeyPath<Root, Value>, direct: AnyDelivery, initial: (Value) -> Void) -> Bool {
        // Objects read under the lock are released after it (see `linkDidChange`).
        var keptAlive: [AnyObject] = []
        let wantsInitial = options.contains(.initial)
        let started: Bool = state.withLockUnchecked { state in
            // The caller holds the root (`register` runs on it), so a direct observation, which read only the
            // root, keeps nothing else alive; a chain's reads are kept below. (Not read from the state's weak
            // reference: a weak load is a retain and a release through the object's side table.)
            var recorded = TrackedReads()
            let value = ThreadContext.current.track(into: &recorded) { root[keyPath: keyPath] }
            // The property read is the key path itself (key paths compare equal only if their types are the
            // same), so the storage's value type is `Value` and `direct` is its own `Delivery` type.
            // (Read in place: a copy of the read is three retains and three releases.)
            if recorded.count == 1, recorded.first.unsafelyUnwrapped.object === root,
                recorded.first.unsafelyUnwrapped.keyPath == keyPath
            {
                if type(of: root) == Root.self {
                    ThreadContext.current.rememberDirectProperty(
                        keyPath, readThrough: recorded.first.unsafelyUnwrapped.keyPath,
                        storage: recorded.first.unsafelyUnwrapped.storage, in: root)
                }
                subscribeDirect(storage: recorded.first.unsafelyUnwrapped.storage, direct: direct, initial: initial)
                return true
            }
            chainKeyPath = keyPath
            let reads = recorded.all
            keptAlive.append(root)
            keptAlive += reads.map(\.object)
            state.propertyKeyPath = Self.propertyKeyPath(keyPath, of: root, value: value, reads: reads)
            if reads.isEmpty {
                ObservationDiagnostics.report(
                    .unobservableKeyPath(
                        objectType: String(reflecting: rootType), keyPath: Self.describe(keyPath, reads: [])))
            }
            if wantsInitial {
                state.nextTicket = 1
                pendingInitial = .chain
            }
            let current = retrack(&state, root: root, value: value, reads: reads, links: [], keptAlive: &keptAlive)
            if wantsInitial {
                initial(current)
            }
            return true
        }
        withExtendedLifetime(keptAlive) {}
        return started
    }

    /// `start(root:direct:initial:)` for a key path already known to be one `@Observed` property of `root`, whose
    /// `storage` the caller found without evaluating the key path (`ThreadContext.directProperty(_:of:)`).
    /// No lock section: nothing else reaches the observation before it is published (see `directStorage`).
    @usableFromInline
    func startDirect(storage: any TrackableStorage, direct: consuming AnyDelivery, initial: (Value) -> Void) -> Bool {
        subscribeDirect(storage: storage, direct: direct, initial: initial)
        return true
    }

    /// Subscribes `direct` to `storage`, a storage of `Value` (the observed property), and notes the subscription
    /// (before the observation is published); with `.initial`, calls `initial` with the value read under the
    /// subscription's lock. `direct` is moved into the storage's subscriber list, which holds it alone (see
    /// `directStorage`).
    private func subscribeDirect(storage: any TrackableStorage, direct: consuming AnyDelivery, initial: (Value) -> Void)
    {
        let wantsPrior = options.contains(.prior)
        let id: UInt64
        directDeliveryAddress = direct.address
        if options.contains(.initial) {
            // Read under the subscription's lock: every change stored after it is delivered.
            let typed = unsafeDowncast(storage, to: PropertyStorage<Value>.self)
            let current: Value
            (id, current) = typed.subscribeReadingValue(direct, wantsPrior: wantsPrior, initialPending: true)
            initial(current)
            pendingInitial = .direct(storage, direct)
        } else {
            id = storage.subscribe(direct, wantsPrior: wantsPrior, initialPending: false)
        }
        directSubscriptionID = id
        directStorageID = ObjectIdentifier(storage)
        directStorage = storage
    }

    /// The key path of the observed property, as `KeyValueObserver` keys it (see `propertyKeyPath(_:of:value:reads:)`);
    /// available once `start()` ran.
    /// (Nil in direct mode, whose key path is the property's itself: `KeyValueObserver` files it under its own.)
    @usableFromInline
    var propertyKeyPath: AnyKeyPath? {
        if directDeliveryAddress != 0 {
            return nil
        }
        let property: AnyKeyPath? = state.withLockUnchecked { $0.propertyKeyPath }
        return property ?? chainKeyPath
    }

    /// Chain mode: the observed key path (see `chainKeyPath`).
    @inlinable
    var keyPath: KeyPath<Root, Value> {
        chainKeyPath.unsafelyUnwrapped
    }

    /// The key path that names the property `keyPath` observes on `root`, for `KeyValueObserver`'s "each
    /// (object, key path) at most once": a subclass key path to an inherited `@Observed` property (`\Square.radius`)
    /// names the same property as the superclass's (`\Circle.radius`), so both give the superclass's key path, as
    /// FBKVOController keys both by the name `radius`. Any other key path is its own key.
    ///
    /// Swift cannot compare key paths of different root types, so "the same property" is decided from what the
    /// evaluation read: exactly one `@Observed` property of `root` itself, declared on a superclass of `Root`, of the
    /// same value type and writability, holding the same value now. (A writable computed property of a subclass that
    /// transforms one inherited property without changing it, as `x * 1`, would pass too; the docs say so.)
    static func propertyKeyPath(_ keyPath: KeyPath<Root, Value>, of root: Root, value: Value, reads: [TrackedRead])
        -> AnyKeyPath
    {
        guard reads.count == 1, reads[0].object === root else { return keyPath }
        let property = reads[0].keyPath
        guard property != keyPath, type(of: property).rootType != Root.self, type(of: property).valueType == Value.self,
            keyPath is ReferenceWritableKeyPath<Root, Value>
        else { return keyPath }
        guard let stored = root[keyPath: property] as? Value, let equality = makeEquality(Value.self),
            equality(stored, value)
        else { return keyPath }
        return property
    }

    /// Marks the `.initial` call as made (whether or not it was sent): changes held back for it may go.
    @usableFromInline
    func finishInitial() {
        // Only the registering thread touches `pendingInitial`, so no lock.
        guard options.contains(.initial) else { return }
        switch replacing(&pendingInitial, with: nil) {
        case .direct(let storage, let delivery):
            storage.finishInitial(delivery)
        case .chain:
            turn.store(1, ordering: .releasing)
        case nil:
            break
        }
    }

    /// Subscribes to `reads` (dropping links no longer read) until the path is stable; returns the value.
    /// Every object and storage it touches is added to `keptAlive`, to be released after the lock.
    @usableFromInline
    func retrack(
        _ state: inout ObservationState, root: Root, value: Value, reads: [TrackedRead], links: [ChainLink],
        keptAlive: inout [AnyObject]
    ) -> Value {
        var value = value
        var reads = reads
        var links = links
        var leaf: Int?
        var stable = false
        for _ in 0..<16 {
            // The last read of a path of two or three stored properties gets a leaf link (the fast path).
            leaf = Self.fastPathLeaf(keyPath, reads: reads)
            var kept: [ChainLink] = []
            var changed = false
            var seen = Set<ObjectIdentifier>()
            for (index, read) in reads.enumerated() {
                let id = ObjectIdentifier(read.storage)
                guard seen.insert(id).inserted else { continue }
                let isLeaf = index == leaf
                if let existing = links.first(where: { $0.storageID == id && $0.isLeaf == isLeaf }) {
                    kept.append(existing)
                    continue
                }
                let added: (id: UInt64, changed: Bool)
                if isLeaf {
                    let subscription = nextSubscriptionID.add(2, ordering: .relaxed).oldValue
                    let delivery = leafLink(self, read.storage, subscription)
                    added = (subscription, read.storage.addLink(delivery, id: subscription, since: read.version))
                } else {
                    added = read.storage.addLink(self, wantsPrior: false, since: read.version)
                }
                changed = changed || added.changed
                kept.append(ChainLink(storage: read.storage, storageID: id, subscriptionID: added.id, isLeaf: isLeaf))
            }
            // Links no longer read, and links whose role changed (a storage that moved between the last place and
            // another), are dropped.
            for link in links where !kept.contains(where: { $0.subscriptionID == link.subscriptionID }) {
                if let storage = link.storage {
                    keptAlive.append(storage)
                    storage.removeSubscriber(link.subscriptionID, waitingForCalls: false)
                }
            }
            links = kept
            guard changed else {
                stable = true
                break
            }
            // A link changed between the read and the subscription: read the path again.
            let keyPath = self.keyPath
            reads = []
            value = ThreadContext.current.track(into: &reads) { root[keyPath: keyPath] }
            keptAlive += reads.map(\.object)
        }
        state.storedChainVersions =
            links.count == reads.count && Self.isStoredPropertyChain(keyPath, reads: reads)
            ? reads.map(\.version) : nil
        // A path of stored properties is named from its links (`storedChainNames`): a weak reference to each object on
        // it would give the object a side table, and every retain and release of it, anywhere, the slow path.
        state.readNames = state.storedChainVersions == nil ? reads.map(ReadName.init) : []
        var fastPath = StoredChainFastPath()
        if stable, let leaf, links.count == reads.count, links[leaf].isLeaf {
            fastPath.leafSubscriptionID = links[leaf].subscriptionID
            fastPath.first = reads[0].storage
            fastPath.firstVersion = reads[0].version
            if leaf == 2 {
                fastPath.second = reads[1].storage
                fastPath.secondVersion = reads[1].version
                fastPath.hasSecond = true
            }
        }
        state.fastPath = fastPath
        state.mode = .chain(links: links)
        if let chainValue = state.chainValue {
            Self.chainValue(chainValue).last = value
        } else {
            state.chainValue = ChainValue(value)
        }
        return value
    }

    /// The index of the last read when `reads` are a path of two or three stored properties, each a different storage
    /// (`isStoredPropertyChain`): its link takes the fast path. Nil otherwise.
    private static func fastPathLeaf(_ keyPath: KeyPath<Root, Value>, reads: [TrackedRead]) -> Int? {
        guard reads.count == 2 || reads.count == 3,
            Set(reads.map { ObjectIdentifier($0.storage) }).count == reads.count,
            isStoredPropertyChain(keyPath, reads: reads)
        else { return nil }
        return reads.count - 1
    }

    /// Whether `keyPath` is exactly the properties `reads` read, in order: each read is a different storage, and the
    /// read key paths appended one to the other make `keyPath` (key paths compare by their components).
    private static func isStoredPropertyChain(_ keyPath: KeyPath<Root, Value>, reads: [TrackedRead]) -> Bool {
        guard reads.count >= 2 else { return false }
        var composed = reads[0].keyPath
        for read in reads.dropFirst() {
            guard let next = composed.appending(path: read.keyPath) else { return false }
            composed = next
        }
        return composed == keyPath
    }

    /// Chain mode, for a path of stored properties (`State.storedChainVersions`): the path's value read from its
    /// last storage, when no other storage on the path has changed since the path was last evaluated; nil when one
    /// has (or is gone), so the path must be evaluated again. Every storage it holds for a moment is added to
    /// `keptAlive`, to be released after the lock.
    @inlinable
    static func storedChainValue(versions: [UInt64]?, links: [ChainLink], keptAlive: inout [AnyObject]) -> Value? {
        guard let versions, versions.count == links.count, let last = links.last
        else { return nil }
        for index in 0..<(links.count - 1) {
            guard let storage = links[index].storage else { return nil }
            keptAlive.append(storage)
            guard storage.currentVersion == versions[index] else { return nil }
        }
        guard let storage = last.storage else { return nil }
        keptAlive.append(storage)
        guard let leaf = storage as? PropertyStorage<Value> else { return nil }
        return leaf.untrackedValue
    }

    /// The state's `ChainValue`, which is only ever made with this observation's `Value`.
    @inlinable
    static func chainValue(_ object: AnyObject) -> ChainValue<Value> {
        unsafeDowncast(object, to: ChainValue<Value>.self)
    }

    // MARK: Changes

    /// Chain mode: a storage on the path changed; re-evaluate, re-target, notify if the end value changed.
    /// Calls `chainChanged`, made where `Root` and `Value` are concrete, so that this path (every change of a
    /// chained key path) is specialized: unspecialized, each generic value it handles (optionals, tuples, the
    /// change) was a metadata look-up.
    @usableFromInline
    func linkDidChange() {
        chainChanged(self)
    }

    /// The body of `linkDidChange()`, inlinable so that `chainChanged` specializes it.
    @inlinable
    func chainDidChange() {
        if isClosed {
            return
        }
        if let owner, !owner.link.isAlive {
            invalidate()
            return
        }
        // Strong references taken under the lock (the root, the objects read) are released only after
        // it: the last release of an object runs its deinit, which may end this very observation
        // (an object that owns the token), and that must not happen while the lock is held.
        var keptAlive: [AnyObject] = []
        let outcome: (root: Root, old: Value, new: Value, ticket: UInt64)? = state.withLockUnchecked { state in
            guard let root = Self.root(of: state), case .chain(let links) = state.mode, let box = state.chainValue
            else { return nil }
            let chain = Self.chainValue(box)
            let lastValue = chain.last
            keptAlive.append(root)
            let current: Value
            if let stored = Self.storedChainValue(
                versions: state.storedChainVersions, links: links, keptAlive: &keptAlive)
            {
                // Only the last property changed: its value is the path's, the links stay as they are.
                chain.last = stored
                current = stored
            } else {
                let keyPath = self.keyPath
                var reads: [TrackedRead] = []
                let value = ThreadContext.current.track(into: &reads) { root[keyPath: keyPath] }
                keptAlive += reads.map(\.object)
                current = retrack(
                    &state, root: root, value: value, reads: reads, links: links, keptAlive: &keptAlive)
            }
            if chain.isEqual(lastValue, current) {
                return nil
            }
            let ticket = state.nextTicket
            state.nextTicket = ticket &+ 1
            return (root, lastValue, current, ticket)
        }
        withExtendedLifetime(keptAlive) {}
        guard let outcome else { return }
        send(outcome.root, old: outcome.old, new: outcome.new, ticket: outcome.ticket)
    }

    /// Sends the change from `old` to `new`, computed under the lock with `ticket`, in that ticket's turn: another
    /// thread may still be sending the previous value (or the initial call), and changes go out in the order their
    /// values were computed. The changes are built already filtered by the options, with a literal `nil` for the
    /// indexes (a chain's change is a `.setting`): a change filtered by `filtered(by:)` was copied and destroyed
    /// through its value witnesses, about 190 instructions.
    @inlinable
    func send(_ root: Root, old: Value, new: Value, ticket: UInt64) {
        var attempt = 0
        while turn.load(ordering: .acquiring) != ticket {
            Hazards.backOff(attempt)
            attempt += 1
        }
        let wantsOld = options.contains(.old)
        if options.contains(.prior) {
            deliver(
                root,
                ObservedChange(
                    kind: .setting, oldValue: wantsOld ? old : nil, newValue: nil, indexBox: nil, isPrior: true))
        }
        deliver(
            root,
            ObservedChange(
                kind: .setting, oldValue: wantsOld ? old : nil, newValue: options.contains(.new) ? new : nil,
                indexBox: nil, isPrior: false))
        turn.store(ticket &+ 1, ordering: .releasing)
    }

    // MARK: The fast path of a path of stored properties

    /// The subscriber of the last link of a path of two or three stored properties (`ChainLink.isLeaf`) on `storage`,
    /// the last property's: its value type is `Value` (the path's key path is the read key paths appended,
    /// `isStoredPropertyChain`), so the subscriber is that storage's own `Delivery` type, and hands each change
    /// straight to `leafDidChange` with the storage's `==` (built where the property's type is concrete, so cheaper
    /// than `ChainValue`'s). It holds the observation strongly, like every link (see `PropertyStorage.addLink`).
    @inlinable
    func makeLeafLink(for storage: any TrackableStorage, subscriptionID: UInt64) -> AnyDelivery {
        let isEqual = unsafeDowncast(storage, to: PropertyStorage<Value>.self).isEqual
        return PropertyStorage<Value>.Delivery { change, _, _ in
            if !change.isPrior {
                self.leafDidChange(change, isEqual: isEqual, subscriptionID: subscriptionID)
            }
        }
    }

    /// What the fast path's lock section leaves for after the lock. The root and the storages it loaded from weak
    /// references are carried out, so that they are released after the lock (a release may be the last one, whose
    /// deinits may end this very observation).
    @usableFromInline
    enum FastOutcome {
        /// Not the fast path's case (a link no longer the last, a middle replaced, a collection change): evaluate the
        /// path (`chainDidChange`).
        case general(Root?, AnyObject?, AnyObject?)
        /// Nothing to send: the path's value did not change (an equal value), or the observed object is gone.
        case unchanged(Root?, AnyObject?, AnyObject?)
        /// Send the change from `old` to `new` in the turn `ticket`.
        case send(Root, AnyObject?, AnyObject?, old: Value, new: Value, ticket: UInt64)
    }

    /// A change of the last property of a path of stored properties, delivered by its storage to the leaf link
    /// `subscriptionID`: sent without evaluating the path when the other properties are unchanged.
    /// `isEqual` is the last storage's `==` (nil when it has none: `ChainValue`'s, found at run time, is used then).
    @inlinable
    func leafDidChange(
        _ change: ObservedChange<Value>, isEqual: ((Value, Value) -> Bool)?, subscriptionID: UInt64
    ) {
        if isClosed {
            return
        }
        if let owner, !owner.link.isAlive {
            invalidate()
            return
        }
        let outcome = state.withLockUnchecked { state in
            fastChange(&state, change, isEqual: isEqual, subscriptionID: subscriptionID)
        }
        switch consume outcome {
        case .general:
            chainDidChange()
        case .unchanged:
            return
        case .send(let root, _, _, let old, let new, let ticket):
            send(root, old: old, new: new, ticket: ticket)
        }
    }

    /// The fast path (call under the lock): when `subscriptionID` is still the last link and the storages before it
    /// still have the versions they had when the path was last evaluated, the path's value is the last property's, so
    /// the change's new value is the path's. A moved version is a middle replaced (even by another thread whose
    /// notification has not arrived yet): the general path evaluates the path again and re-targets. The versions are
    /// checked in path order, and each storage is alive while it is read: loaded from its weak reference, held until
    /// after the lock. No allocation, no evaluation of the key path, no cast.
    @inlinable
    func fastChange(
        _ state: inout ObservationState, _ change: ObservedChange<Value>, isEqual: ((Value, Value) -> Bool)?,
        subscriptionID: UInt64
    ) -> FastOutcome {
        guard subscriptionID == state.fastPath.leafSubscriptionID, change.kind == .setting,
            let new = change.newValue, state.chainValue != nil
        else { return .general(nil, nil, nil) }
        guard let root = Self.root(of: state) else { return .unchanged(nil, nil, nil) }
        guard let first = state.fastPath.first, first.currentVersion == state.fastPath.firstVersion else {
            return .general(root, nil, nil)
        }
        var second: AnyObject?
        if state.fastPath.hasSecond {
            guard let loaded = state.fastPath.second else { return .general(root, first, nil) }
            second = loaded
            guard loaded.currentVersion == state.fastPath.secondVersion else { return .general(root, first, second) }
        }
        // Not retained: the state holds it, and only `invalidate()` drops it, under this lock, releasing it after.
        unowned(unsafe) let chain = Self.chainValue(state.chainValue.unsafelyUnwrapped)
        let old = chain.last
        chain.last = new
        let equal = if let isEqual { isEqual(old, new) } else { chain.isEqual(old, new) }
        if equal {
            return .unchanged(root, first, second)
        }
        let ticket = state.nextTicket
        state.nextTicket = ticket &+ 1
        return .send(root, first, second, old: old, new: new, ticket: ticket)
    }

    /// Calls the handler with the current value (`.initial`).
    @usableFromInline
    func sendInitial(_ value: Value) {
        guard let root = state.withLockUnchecked({ Self.root(of: $0) }) else { return }
        deliver(root, ObservedChange(kind: .setting, oldValue: nil, newValue: value).filtered(by: options))
    }

    /// Calls the handler with `change` through `send`, or, without one, at once on this thread unless the owner
    /// (if any) is gone.
    @inlinable
    func deliver(_ root: Root, _ change: ObservedChange<Value>) {
        if let send {
            send(self, root, change)
        } else if owner?.link.isAlive != false {
            callHandler(root, change)
        }
    }

    /// The address that names this observation in a hazard slot.
    @inlinable
    var address: UInt {
        UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque())
    }

    /// Calls the handler unless the observation was invalidated, published in the calling thread's stack of hazard
    /// slots for the length of the call (O7: `invalidate()` waits for it, see `Hazards`).
    @inlinable
    func callHandler(_ root: Root, _ change: ObservedChange<Value>) {
        ThreadContext.withCurrent { context in
            // Published first, then `closed` read, both sequentially consistent: `invalidate()` stores `closed`, then
            // reads the slots, so either this call sees it closed or `invalidate()` sees the call and waits.
            context.publishCall(address)
            if !closed.load(ordering: .sequentiallyConsistent), let body {
                body(root, change)
            }
            context.endCall()
        }
    }

    /// The storage's `Delivery` of the direct-mode subscriber (tests: it must outlive a call in progress that ends its
    /// own observation). Only while the observation is active: the storage's subscriber list holds it until the first
    /// `invalidate()`.
    var directDelivery: AnyObject? {
        guard directDeliveryAddress != 0, !isClosed else { return nil }
        return Unmanaged<AnyDelivery>.fromOpaque(UnsafeRawPointer(bitPattern: directDeliveryAddress).unsafelyUnwrapped)
            .takeUnretainedValue()
    }

    // MARK: Ending

    /// Whether `invalidate()` has been called.
    @inlinable
    var isClosed: Bool {
        closed.load(ordering: .acquiring)
    }

    @usableFromInline
    var isInvalidated: Bool {
        isClosed
    }

    override func end() {
        invalidate()
    }

    override var hasEnded: Bool {
        isClosed
    }

    @usableFromInline
    override var isActive: Bool {
        #if canImport(ObjectiveC)
            // The root comes out of the lock so its last release (if any) happens after it.
            let rootIsAlive = state.withLockUnchecked { $0.root?.isAlive ?? false }
        #else
            // `rootMemory` keeps the object's memory until this observation's `deinit`, so its liveness is read
            // without the lock (the state's root, which `invalidate()` clears, differs only once `closed` is set).
            let rootIsAlive = rootMemory.isAlive
        #endif
        return !isClosed && rootIsAlive && owner?.link.isAlive != false
    }

    /// Every call (not only the first) returns only once no handler call runs on another thread and
    /// none can start: the hazard slots (`Hazards`) name both the storage's direct calls (the subscriber's `Delivery`)
    /// and the calls made through this observation (`callHandler`), and one scan waits for both.
    @usableFromInline
    func invalidate() {
        // A finished first call left nothing to wait for (its token's `deinit` calls this a second time).
        if waitedForEveryCall.load(ordering: .acquiring) {
            return
        }
        // Sequentially consistent, before the slots are read (below): see `callHandler`.
        let first = !closed.exchange(true, ordering: .sequentiallyConsistent)
        if directDeliveryAddress != 0 {
            if first {
                endDirect()
            } else {
                waitForFirstCall()
            }
            return
        }
        endChain(first: first)
    }

    /// The first `invalidate()` of a direct observation: removes the subscriber, waits for the calls of it and of this
    /// observation in progress on other threads, and releases the handler. Takes no lock of the observation's: only
    /// this call writes the direct subscription after it started (see `directStorage`).
    private func endDirect() {
        let own = address
        // The context unretained (see `ThreadContext.withCurrent`), and everything in its closure: a `Delivery` made
        // outside and used inside was captured, a retain and a release.
        ThreadContext.withCurrent { context in
            // Moved out (no reference count touched). Always there: only this call takes it.
            let storage = replacing(&directStorage, with: nil).unsafelyUnwrapped
            // Owned from here: the storage's list held it, so it lives until this call drops it, after the wait.
            // Always there: only this call removes it. (Bound by `guard`, not `if let`: that copy was a retain and a
            // release.)
            guard let delivery = storage.takeSubscriber(directSubscriptionID) else {
                preconditionFailure("a direct observation's subscriber was removed but by its first invalidate()")
            }
            // No call of the subscriber starts after its removal (it is closed): a later call may look at the slots
            // now.
            directRemoved.store(true, ordering: .releasing)
            // What `Hazards.release(_:waitingForCalls:)` does, written out so that the flags below are set
            // before the `Delivery` is released (and without the retain and release that call cost here): wait for
            // the calls of the `Delivery` and of this observation on other threads.
            Hazards.waitUntilNotCalled(delivery.address, or: own, on: context)
            // No other thread calls the handler now, and none will: released here (not under a lock: what it captured
            // may have a deinit that does anything).
            body = nil
            // A call of this observation may be running on this thread (a handler ending its own observation, or
            // another handler of the same delivery): it was not waited for, so later calls from other threads must
            // still wait for it (`deliveryEndedInsideItsCall`, and this thread's slots). (The depth first: no call
            // through an observation on this thread, the common case, needs no search.)
            if context.isDelivering {
                // The setter up the stack may hold the `Delivery` unretained: the context keeps it until this thread's
                // delivery ends, and a weak reference lets later calls wait for it without keeping it (and the
                // handler) longer.
                context.retire(delivery)
                let ended = WeakDelivery()
                ended.delivery = delivery
                state.withLockUnchecked { $0.deliveryEndedInsideItsCall = ended }
                firstCallFinished.store(true, ordering: .releasing)
            } else if context.callDepth != 0 && context.isCalling(own) {
                firstCallFinished.store(true, ordering: .releasing)
            } else {
                // With no call of it running here, no handler call runs anywhere now, and none can start.
                waitedForEveryCall.store(true, ordering: .releasing)
            }
            Hazards.reclaimDeferred(on: context)
            // The `Delivery` (with the handler the storage's closure captured) is released here, after the flags: a
            // later call reads `directDeliveryAddress` only while neither flag is set.
            withExtendedLifetime(delivery) {}
        }
    }

    /// A later `invalidate()` of a direct observation: returns once the first call has removed the subscriber and no
    /// other thread calls it or this observation.
    ///
    /// It waits for the calls itself rather than for the first call to end, because that one may be waiting for this
    /// thread (a handler of this observation ending it while another thread does too). The `Delivery`'s address
    /// names it only until the first call releases it, which comes after a flag is set, so the scan stops as soon as
    /// one is: then the first call has waited for every other thread (`waitedForEveryCall`), or it left the one call
    /// it could not wait for, its own thread's, in `deliveryEndedInsideItsCall`, held weakly.
    private func waitForFirstCall() {
        let own = address
        var attempt = 0
        while !directRemoved.load(ordering: .acquiring) {
            Hazards.backOff(attempt)
            attempt += 1
        }
        Hazards.waitUntilNotCalled(
            directDeliveryAddress, or: own,
            unless: {
                waitedForEveryCall.load(ordering: .acquiring) || firstCallFinished.load(ordering: .acquiring)
            })
        if waitedForEveryCall.load(ordering: .acquiring) || !firstCallFinished.load(ordering: .acquiring) {
            return
        }
        // Retained out of the lock, so it cannot go away (nor its address name another object) while waited for.
        let ended = state.withLockUnchecked { $0.deliveryEndedInsideItsCall?.delivery }
        Hazards.waitUntilNotCalled(ended?.address ?? own, or: own)
        withExtendedLifetime(ended) {}
    }

    /// `invalidate()` of an observation in chain mode (or never started): drops its links and its values.
    private func endChain(first: Bool) {
        let own = address
        Hazards.waitUntilNotCalled(own, or: own)
        guard first else { return }
        // No other thread calls the handler now, and none will: released here (not under a lock: what it captured
        // may have a deinit that does anything).
        body = nil
        let ownCallMayRun = ThreadContext.withCurrent { $0.isDelivering || ($0.callDepth != 0 && $0.isCalling(own)) }
        // Moved out, not copied (a copy and the assignment after it are a retain and a release each).
        let (mode, chainValue) = state.withLockUnchecked { state in
            state.root = nil
            return (replacing(&state.mode, with: .pending), replacing(&state.chainValue, with: nil))
        }
        // Released after the lock (the last value of a chain may be an object with a deinit).
        withExtendedLifetime(chainValue) {}
        if case .chain(let links) = mode {
            for link in links {
                link.storage?.removeSubscriber(link.subscriptionID, waitingForCalls: false)
            }
        }
        // (`LiveObservations` drops it by itself, now that it is invalidated.)
        // The hazard slots waited for every call but this thread's own: with none running here (no delivery in
        // progress on this thread, no call of this observation up its stack), no handler call runs anywhere now, and
        // none can start.
        if !ownCallMayRun {
            waitedForEveryCall.store(true, ordering: .releasing)
        }
    }

    @usableFromInline
    var record: ObservationRecord? {
        // Checking that the object lives takes a strong reference to it for a moment; keep that moment
        // short (the description is built after), since the last release runs the object's deinit.
        guard isActive else { return nil }
        let (root, mode, readNames, stored) = state.withLockUnchecked {
            ($0.root?.object, $0.mode, $0.readNames, $0.storedChainVersions != nil)
        }
        let names: [String]
        if let storage = directStorageID, let root {
            names = [propertyName(ofStorage: storage, in: root)]
        } else if stored, case .chain(let links) = mode, let root {
            names = Self.storedChainNames(root: root, links: links)
        } else {
            names = readNames.map(\.name)
        }
        let description = Self.describe(chainKeyPath, reads: names)
        return ObservationRecord(
            objectType: String(reflecting: rootType),
            objectIdentifier: rootIdentifier,
            keyPath: description,
            options: options,
            delivery: delivery,
            ownerType: owner?.typeName,
            ownerIdentifier: owner?.identifier
        )
    }
}

extension KeyPathObservation {
    /// The names of the properties of a path of stored properties, found from its links (diagnostics): the first is a
    /// property of the root, each later one a property of the value of the one before, read from its storage now;
    /// `<property>` from a storage that is gone on.
    static func storedChainNames(root: AnyObject, links: [ChainLink]) -> [String] {
        var object: AnyObject? = root
        return links.map { link in
            guard let current = object, let storage = link.storage else {
                object = nil
                return "<property>"
            }
            object = storage.valueObject
            return propertyName(ofStorage: link.storageID, in: current)
        }
    }

    /// `\Doc.title` for a key path. Key paths to wrapped properties print as `<computed ...>`, so
    /// those are named from the storages the path read (`\Folder.document.title`); so is a direct observation's, which
    /// keeps no key path (nil), from its one property.
    static func describe(_ keyPath: KeyPath<Root, Value>?, reads names: [String]) -> String {
        if let keyPath {
            let text = String(describing: keyPath)
            guard text.contains("<computed") else { return text }
        }
        let path = names.isEmpty ? "<computed>" : names.joined(separator: ".")
        return "\\\(Root.self).\(path)"
    }
}

/// A property read while evaluating an observed key path, kept to name the path in diagnostics.
/// Neither the object nor its storage is retained (the object weakly, the storage by identity only).
struct ReadName {
    weak var object: AnyObject?
    let storage: ObjectIdentifier

    init(_ read: TrackedRead) {
        object = read.object
        storage = ObjectIdentifier(read.storage)
    }

    /// The property's name (found by reflection), or `<property>` once the object is gone.
    var name: String {
        guard let object else { return "<property>" }
        return propertyName(ofStorage: storage, in: object)
    }
}

/// `==` for `Value` if it is `Equatable` (found at run time, once per observation), else `nil`.
@usableFromInline
func makeEquality<Value>(_ type: Value.Type) -> ((Value, Value) -> Bool)? {
    guard let equatable = type as? any Equatable.Type else { return nil }
    return equality(of: equatable, as: Value.self)
}

/// `==` of `E` for values typed `Value`. `E` is `Value` itself (`makeEquality` found it by casting `Value.self`), so
/// the values are reinterpreted, not cast: a dynamic cast of each operand cost a chained key path's change about
/// 700 instructions.
private func equality<E: Equatable, Value>(of _: E.Type, as _: Value.Type) -> (Value, Value) -> Bool {
    { lhs, rhs in
        unsafeBitCast(lhs, to: E.self) == unsafeBitCast(rhs, to: E.self)
    }
}

/// Every observation not yet invalidated, for `ObservationDiagnostics.liveObservations()`, with no lock taken by a
/// registration or an invalidation.
///
/// An intrusive singly linked list, newest first, through `ListedObservation.listNext`; the list holds a strong
/// reference to each observation in it (taken by `insert`). Listing is a push: the observation is linked in front
/// with a compare-and-exchange on `head`. Ending an observation does nothing here: pruning drops the ended ones
/// (`ListedObservation.hasEnded`), and releases them. Pruning takes the whole list at once (an exchange of `head` with
/// 0), so only one thread at a time owns the nodes it walks (`pruning` serializes the pruners), while other threads
/// keep pushing onto the emptied head; the survivors are then pushed back in front as one chain. A push that
/// overlaps a pruning cannot link to a freed node: its exchange succeeds only if `head` still holds the address it
/// linked to, and every address in the list is an observation the list keeps alive (a push-only list emptied all at
/// once has no ABA case).
///
/// A thread prunes after each `pruneInterval` of its own pushes (if no other thread is pruning; the interval follows
/// the list's length), and every listing prunes first; so an invalidated observation (its handler and storage already
/// released by `invalidate()`) stays allocated until then, with the unowned count on its object (`RootReference`). (Before, an array under a global
/// lock: two lock sections per registration, and each observation's index in it, about 450 instructions.)
@usableFromInline
enum LiveObservations {
    /// The first listed observation's address (retained by the list); 0 when empty.
    private static let head = Atomic<UInt>(0)
    /// Serializes the pruners (`prune`).
    private static let pruning = LockedValue<Void>(())
    /// How many observations the last pruning kept (relaxed: it only sets the interval).
    private static let keptByLastPruning = Atomic<Int>(0)

    /// How many of its own pushes a thread makes between two prunings: a quarter of the observations the last pruning
    /// kept, and at least 8, so that a push walks at most about four nodes of the list on average, and the ended
    /// observations freed together stay few while the list is short. (A fixed 64 freed them in batches of up to 64 in
    /// a short list, more than the allocator's per-thread cache keeps of one size, so most of those frees, and the
    /// allocations after them, took the allocator's lock: two atomic instructions each.)
    static var pruneInterval: Int { max(8, keptByLastPruning.load(ordering: .relaxed) / 4) }

    /// Lists `observation`, retaining it; call once per observation.
    @usableFromInline
    static func insert(_ observation: ListedObservation) {
        insert(node: Unmanaged.passRetained(observation))
    }

    /// Lists `observation` for a holder that keeps no reference of its own (a token, a `KeyValueObserver`): marks it
    /// held (`heldUnretained`, before the push publishes it) and takes over the caller's reference to it; returns it
    /// unretained. Call once per observation.
    @inlinable
    static func insert<Observation: ListedObservation>(held observation: consuming Observation)
        -> Unmanaged<ListedObservation>
    {
        observation.heldUnretained.store(true, ordering: .relaxed)
        let node = Unmanaged<ListedObservation>.fromOpaque(handOver(observation).toOpaque())
        insert(node: node)
        return node
    }

    /// Lists the observation `node`, whose reference the list takes over (call once per observation).
    @usableFromInline
    static func insert(node: Unmanaged<ListedObservation>) {
        push(first: node, last: node)
        if ThreadContext.withCurrent({ $0.countListing(every: pruneInterval) }) {
            release(ended: pruning.withLockIfAvailable { _ in prune(keeping: nil) } ?? 0)
        }
    }

    /// Links the chain `first`...`last` (already linked to each other) in front of the list.
    private static func push(first: Unmanaged<ListedObservation>, last: Unmanaged<ListedObservation>) {
        let address = UInt(bitPattern: first.toOpaque())
        var current = head.load(ordering: .relaxed)
        while true {
            last._withUnsafeGuaranteedRef { $0.listNext.store(current, ordering: .relaxed) }
            let (exchanged, original) = head.weakCompareExchange(
                expected: current, desired: address, successOrdering: .releasing, failureOrdering: .relaxed)
            if exchanged {
                return
            }
            current = original
        }
    }

    /// The listed observation at `address` (not retained: the list holds it).
    private static func node(_ address: UInt) -> Unmanaged<ListedObservation> {
        Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: address).unsafelyUnwrapped)
    }

    /// Takes the list, unlinks the ended observations that no token relies on (`mayBeDropped`) and pushes the others
    /// back, in their order, handing those not ended to `keeping` (if any); returns the first unlinked one (the unlinked
    /// ones chained through `listNext`), which the caller releases with `release(ended:)` once it no longer holds
    /// `pruning` (their deinits may run any code, one that lists the observations too). Call holding `pruning`.
    private static func prune(keeping: ((ListedObservation) -> Void)?) -> UInt {
        var address = head.exchange(0, ordering: .acquiring)
        var firstKept: Unmanaged<ListedObservation>?
        var lastKept: Unmanaged<ListedObservation>?
        var ended: UInt = 0
        var keptCount = 0
        while address != 0 {
            let current = node(address)
            let (next, hasEnded, mayBeDropped) = current._withUnsafeGuaranteedRef {
                ($0.listNext.load(ordering: .relaxed), $0.hasEnded, $0.mayBeDropped)
            }
            if mayBeDropped {
                current._withUnsafeGuaranteedRef { $0.listNext.store(ended, ordering: .relaxed) }
                ended = address
            } else {
                if let lastKept {
                    lastKept._withUnsafeGuaranteedRef { $0.listNext.store(address, ordering: .relaxed) }
                } else {
                    firstKept = current
                }
                lastKept = current
                keptCount += 1
                if !hasEnded {
                    keeping?(current.takeUnretainedValue())
                }
            }
            address = next
        }
        if let firstKept, let lastKept {
            push(first: firstKept, last: lastKept)
        }
        keptByLastPruning.store(keptCount, ordering: .relaxed)
        return ended
    }

    /// Releases the list's references to the ended observations `prune` returned.
    private static func release(ended: UInt) {
        var address = ended
        while address != 0 {
            let current = node(address)
            address = current._withUnsafeGuaranteedRef { $0.listNext.load(ordering: .relaxed) }
            current.release()
        }
    }

    /// The observations not yet invalidated, retained.
    static var all: [any ObservationCore] {
        var kept: [ListedObservation] = []
        let ended = pruning.withLockUnchecked { _ in prune { kept.append($0) } }
        release(ended: ended)
        // Every listed observation is an `ObservationCore` (`KeyPathObservation`, `DirectChangeObservation`).
        return kept.map { $0 as! any ObservationCore }
    }
}

/// The caller's reference to `object`, as an unmanaged one that now owns it (to be released through it): what
/// `Unmanaged.passRetained` gives, without its retain and the caller's release after it, which the optimizer does not
/// remove across a call. The reference is moved into a local optional, whose bits are read and then cleared, so that
/// the optional's end releases nothing.
@inlinable
func handOver<T: AnyObject>(_ object: consuming T) -> Unmanaged<T> {
    var slot: T? = consume object
    return withUnsafeMutableBytes(of: &slot) { bytes in
        let address = bytes.load(as: UnsafeRawPointer.self)
        bytes.storeBytes(of: 0, as: UInt.self)
        return Unmanaged<T>.fromOpaque(address)
    }
}

/// Puts `new` in `value` and returns what was there, moving both (no copy, so no reference count is touched).
@inline(__always)
func replacing<T>(_ value: inout T, with new: consuming T) -> T {
    var old = new
    swap(&value, &old)
    return old
}

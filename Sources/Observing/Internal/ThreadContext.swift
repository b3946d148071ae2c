import Locking
public import ObservingThreadLocal
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Per-thread state of the observation machinery: the re-entrancy queue (O8), the hazard slots of the handler
/// calls in progress on this thread (O7) and the key-path access tracker (O4).
///
/// Deliberately not `Sendable`: each instance is reached only through the thread-local slot of the
/// thread that created it, so it is only ever touched by that thread.
@usableFromInline
final class ThreadContext {
    /// A notification waiting for the handler that caused it to return.
    struct Pending {
        var round: Int
        var work: (ThreadContext) -> Void
    }

    /// Whether a delivery is running on this thread (a change made now is queued, not delivered).
    /// (Only this thread touches a context, so run-time exclusivity checks are skipped.)
    @usableFromInline
    @exclusivity(unchecked) var isDelivering = false
    /// Whether `enqueue` was called since `beginDelivery()` (then `endDelivery()` has work to do).
    @usableFromInline
    @exclusivity(unchecked) var hasQueued = false
    /// The ticket of the write this thread just stored, for the setter's path that delivers after the lock
    /// without holding the turn yet (see `PropertyStorage.turn`).
    @usableFromInline
    @exclusivity(unchecked) var heldTicket: UInt64 = 0
    /// The round of the notification being delivered: 0 for a change made outside any handler,
    /// n + 1 for a change made inside a handler of round n.
    @exclusivity(unchecked) private var currentRound = 0
    @exclusivity(unchecked) private var pending: [Pending] = []
    @exclusivity(unchecked) private var pendingHead = 0
    private var stoppedCycle: (source: CycleSource, rounds: Int)?

    /// The slots of the calls made through an observation on this thread (`publishCall(_:)`), innermost at
    /// `callDepth - 1`: `callSlotCount` slots taken so far (from `Hazards`, which holds them; given back at this
    /// thread's exit), in a buffer of `callSlotCapacity`. A hand-managed buffer rather
    /// than an `Array` because a push and a pop happen around every such call, and an `Array` would check its
    /// uniqueness each time. Only this thread touches it (the context is thread-confined; removers read the slots
    /// through `Hazards`' list, never this buffer); it is freed in `deinit`.
    @usableFromInline @exclusivity(unchecked) var callSlots: UnsafeMutablePointer<Unmanaged<HazardSlot>>
    @usableFromInline @exclusivity(unchecked) var callDepth = 0
    @usableFromInline @exclusivity(unchecked) var callSlotCount = 0
    @usableFromInline @exclusivity(unchecked) var callSlotCapacity = 8

    /// Reads recorded by `track(_:)`, innermost tracking scope last.
    /// (Only this thread touches a context, so run-time exclusivity checks are skipped.)
    @exclusivity(unchecked) private var trackingStack: [TrackedReads] = []

    /// This thread's identity in its hazard slots (`HazardSlot.owner`): never reused.
    @usableFromInline let threadID: UInt
    /// The subscriber the storage's setter is calling on this thread, for the threads that remove subscribers (see
    /// `Hazards`; the calls made through an observation use `callSlots`).
    @usableFromInline let hazard: HazardSlot
    /// Removed subscribers (and subscriber lists of freed storages) that a caller up this thread's stack
    /// may still hold unretained: released when the outermost delivery ends.
    private var retired: [AnyObject] = []
    /// Storages freed by a handler during the current delivery (see `PropertyStorage.endTurn`).
    private var freedStorages: [UInt] = []
    /// The key paths this thread found to be one `@Observed` property of an object of exactly their root type, with
    /// how to read that property's storage (see `directProperty(_:of:)`): `directPropertyCapacity` entries, made on
    /// first use, freed in `deinit`.
    @usableFromInline @exclusivity(unchecked) var directProperties: UnsafeMutablePointer<DirectPropertyEntry>?
    /// How many observations this thread listed (`countListing(every:)`).
    @exclusivity(unchecked) private var listings = 0

    @usableFromInline
    init() {
        threadID = nextThreadID.add(1, ordering: .relaxed).oldValue
        // Unretained: `Hazards`' list holds every slot forever.
        hazard = Hazards.acquireSlot(owner: threadID).takeUnretainedValue()
        callSlots = .allocate(capacity: callSlotCapacity)
    }

    deinit {
        callSlots.deallocate()
        if let directProperties {
            directProperties.deinitialize(count: Self.directPropertyCapacity)
            directProperties.deallocate()
        }
    }

    /// The context of the calling thread, created on first use and freed when the thread exits.
    @usableFromInline
    static var current: ThreadContext {
        Unmanaged<ThreadContext>.fromOpaque(currentPointer()).takeUnretainedValue()
    }

    /// Creates the calling thread's context and stores it (retained) in the thread-local slot; the
    /// `threadContextKey` destructor releases it when the thread exits.
    @usableFromInline
    @inline(never)
    static func makeCurrent() -> UnsafeMutableRawPointer {
        let context = ThreadContext()
        let pointer = Unmanaged.passRetained(context).toOpaque()
        // The C slot is what every lookup reads; the pthread key only runs the destructor at thread exit.
        pthread_setspecific(threadContextKey, pointer)
        observing_set_current_context(pointer)
        return pointer
    }

    /// The calling thread's context if it has one (never creates it).
    static var existing: ThreadContext? {
        observing_current_context().map { Unmanaged<ThreadContext>.fromOpaque($0).takeUnretainedValue() }
    }

    /// The calling thread's context pointer, creating the context on first use: one load from the C
    /// thread-local slot (see `ObservingThreadLocal.h`).
    @inlinable
    @inline(__always)
    static func currentPointer() -> UnsafeMutableRawPointer {
        if let pointer = observing_current_context() {
            return pointer
        }
        return makeCurrent()
    }

    /// Calls `body` with the context of the calling thread, without retaining it.
    ///
    /// Why the unretained reference is safe: the thread-local slot holds a +1 reference that is
    /// released only by the slot's destructor when this thread exits, which cannot happen while this
    /// thread runs `body`.
    @inlinable
    @inline(__always)
    static func withCurrent<Result>(_ body: (ThreadContext) -> Result) -> Result {
        Unmanaged<ThreadContext>.fromOpaque(currentPointer())._withUnsafeGuaranteedRef(body)
    }

    // MARK: Calls made through an observation (O7)

    /// Publishes `address` (an observation's) in the next slot of this thread's stack of calls, before the call it
    /// names (see `Hazards`: a sequentially consistent store, which the caller follows with a sequentially consistent
    /// load of the observation's `closed` flag). Pair with `endCall()`.
    @inlinable
    @inline(__always)
    func publishCall(_ address: UInt) {
        if _slowPath(callDepth == callSlotCount) {
            addCallSlot()
        }
        // In bounds: `callDepth < callSlotCount` after the check above.
        callSlots[callDepth]._withUnsafeGuaranteedRef { $0.delivery.store(address, ordering: .sequentiallyConsistent) }
        callDepth += 1
    }

    /// Ends the innermost call published by `publishCall(_:)`: a releasing store, so that a remover that reads the
    /// cleared slot also sees everything the call did.
    @inlinable
    @inline(__always)
    func endCall() {
        // Pops are paired with pushes, so the depth is positive here.
        callDepth -= 1
        callSlots[callDepth]._withUnsafeGuaranteedRef { $0.delivery.store(0, ordering: .releasing) }
    }

    /// Whether a call published by `publishCall(address)` runs on this thread (up its stack).
    func isCalling(_ address: UInt) -> Bool {
        for index in 0..<callDepth
        where callSlots[index]._withUnsafeGuaranteedRef({
            $0.delivery.load(ordering: .relaxed) == address
        }) {
            return true
        }
        return false
    }

    /// Takes the next slot of the stack (a call nested deeper than any before on this thread) from `Hazards`.
    @usableFromInline
    @inline(never)
    func addCallSlot() {
        if callSlotCount == callSlotCapacity {
            let capacity = callSlotCapacity * 2
            let grown = UnsafeMutablePointer<Unmanaged<HazardSlot>>.allocate(capacity: capacity)
            grown.moveInitialize(from: callSlots, count: callSlotCount)
            callSlots.deallocate()
            callSlots = grown
            callSlotCapacity = capacity
        }
        (callSlots + callSlotCount).initialize(to: Hazards.acquireSlot(owner: threadID))
        callSlotCount += 1
    }

    /// Gives this thread's hazard slots back to `Hazards` (at its exit).
    func releaseSlots() {
        Hazards.releaseSlot(Unmanaged.passUnretained(hazard))
        for index in 0..<callSlotCount {
            Hazards.releaseSlot(callSlots[index])
        }
    }

    // MARK: Delivery (O8)

    /// Starts a delivery on this thread; call only when `isDelivering` is false, and pair with
    /// `endDelivery()`, which delivers everything the handlers queued meanwhile.
    @inlinable
    func beginDelivery() {
        isDelivering = true
    }

    /// Ends the delivery started by `beginDelivery()`: drains the queued notifications, round by round.
    @inlinable
    func endDelivery() {
        if _slowPath(hasQueued) {
            finishQueued()
        }
        isDelivering = false
    }

    /// Keeps `object` (a removed subscriber, or the subscriber list of a freed storage) until the outermost
    /// delivery on this thread ends: a caller up the stack may be calling it through an unretained reference.
    /// Call only while `isDelivering`.
    func retire(_ object: AnyObject) {
        retired.append(object)
        hasQueued = true
    }

    /// Records that the storage at address `storage` was freed during the current delivery (call only while
    /// `isDelivering`).
    func noteFreedStorage(_ storage: UInt) {
        freedStorages.append(storage)
        hasQueued = true
    }

    /// Whether the storage at address `storage` was freed during the current delivery.
    @usableFromInline
    func wasFreedDuringDelivery(_ storage: UInt) -> Bool {
        freedStorages.contains(storage)
    }

    /// Delivers what was queued, then reports a cycle that was stopped.
    @usableFromInline
    func finishQueued() {
        while true {
            drain()
            currentRound = 0
            guard !retired.isEmpty else { break }
            // Released only now that every handler call of this delivery has returned. A deinit run by
            // the release is still inside the delivery (`isDelivering`), so what it changes is queued and
            // delivered by the next turn of this loop.
            var released: [AnyObject] = []
            swap(&released, &retired)
            released.removeAll()
        }
        hasQueued = false
        freedStorages.removeAll()
        if let stopped = stoppedCycle {
            stoppedCycle = nil
            ObservationDiagnostics.report(.unsettledCycle(source: stopped.source, rounds: stopped.rounds))
        }
    }

    /// Runs `work` now, as part of a delivery, even if one is already running (used for `.initial`
    /// callbacks, which must run before `observe` returns). Changes made by `work` are queued.
    @usableFromInline
    func deliverNow(_ work: () -> Void) {
        if isDelivering {
            work()
            return
        }
        beginDelivery()
        work()
        endDelivery()
    }

    /// Queues `work` after what is already queued, one round deeper than the notification being
    /// delivered; beyond `ObservationDiagnostics.maximumRounds` it is dropped and the cycle reported.
    /// `object` and `storage` name the changed property in that report. A dropped notification's `dropped`
    /// runs in its place, in the same order (it ends the delivery's turn, see `PropertyStorage.turn`).
    @usableFromInline
    func enqueue(
        object: AnyObject, storage: any PropertyNaming, _ work: @escaping (ThreadContext) -> Void,
        dropped: ((ThreadContext) -> Void)? = nil
    ) {
        hasQueued = true
        let round = currentRound + 1
        let limit = ObservationDiagnostics.maximumRounds
        if round > limit {
            if stoppedCycle == nil {
                stoppedCycle = (CycleSource(object: object, propertyName: storage.propertyName(in: object)), limit)
            }
            if let dropped {
                pending.append(Pending(round: round, work: dropped))
            }
            return
        }
        pending.append(Pending(round: round, work: work))
    }

    private func drain() {
        while pendingHead < pending.count {
            let next = pending[pendingHead]
            pendingHead += 1
            currentRound = next.round
            next.work(self)
        }
        pending.removeAll(keepingCapacity: pending.capacity <= 64)
        pendingHead = 0
    }

    // MARK: Diagnostics

    /// Counts one listing of an observation by this thread (`LiveObservations.insert`); true once `interval` listings
    /// were counted since it was last true (the interval may change between calls).
    func countListing(every interval: Int) -> Bool {
        listings += 1
        guard listings >= interval else { return false }
        listings = 0
        return true
    }

    // MARK: Key paths known to be one property

    /// How many key paths `directProperties` remembers: 32 sets of two entries. A key path is looked for in the two
    /// entries of its set (`directPropertySet(for:)`), so two key paths never push each other out, and a third of one
    /// set replaces the entry filled first.
    @usableFromInline static var directPropertyCapacity: Int { 64 }

    /// The first of the two entries of the set of the key path at `address`, from all of its bits (a multiplicative
    /// hash): key path objects lie on a heap whose blocks often share their low bits (two literals a page apart, one
    /// in the model's module and one in the app's, were seen here), so the low bits alone gave them one entry, and
    /// each observation of one pushed the other out.
    @inlinable
    static func directPropertySet(for address: UInt) -> Int {
        // 32 sets: the top five bits of the product.
        Int(truncatingIfNeeded: (address &* 0x9E37_79B9_7F4A_7C15) >> (UInt(UInt.bitWidth) - 5)) &* 2
    }

    /// The storage of the `@Observed` property that `keyPath` is, read from `object` without evaluating the key path
    /// (not retained: `object` holds it), if this thread found before that this key path object is exactly one
    /// property of an object of its root type (`rememberDirectProperty`), and that property's storage in `object` was
    /// last read through the property's own key path (the one its getter passes, the entry's `readAddress`); nil
    /// otherwise (then the caller evaluates the key path under the tracker, about 1,400 instructions, most of them in
    /// the standard library's key path projection). The caller checks that `object`'s type is exactly the key
    /// path's root type (a subclass may override the property).
    ///
    /// Why the storage found is the one the key path's getter reads:
    /// - an entry keeps its key paths alive, so an address found here names the very key path object that was
    ///   evaluated (the runtime makes one per literal and module: a key path written in another module than the
    ///   property is another object than the one the property's getter passes, equal to it);
    /// - an object of that exact type has the same layout as the one the entry was made from, so the word at the
    ///   entry's offset is the same declared field there: the property wrapper whose storage the getter read then,
    ///   and a storage of `Value`;
    /// - the one way the field found could be another property's is two wrappers of one object sharing a storage
    ///   (`_b = _a`) when the entry was made; so the storage found must also have been last read through the key
    ///   path the getter passed when the entry was made (`PropertyStorage.lastTrackedKeyPath`, compared with the
    ///   entry's `readAddress`), which another property's storage was not: each property's getter passes its own.
    ///   (The first observation of each object's property therefore still evaluates the key path.) Compared with
    ///   the key path looked up instead, a key path written in another module would never be found: its
    ///   evaluation marks the storage with the getter's key path, not with it.
    @inlinable
    func directProperty<Value>(_ keyPath: AnyKeyPath, of object: AnyObject, as _: Value.Type)
        -> Unmanaged<PropertyStorage<Value>>?
    {
        guard let table = directProperties else { return nil }
        let address = UInt(bitPattern: Unmanaged.passUnretained(keyPath).toOpaque())
        var entry = table + Self.directPropertySet(for: address)
        if entry.pointee.address != address {
            entry += 1
            guard entry.pointee.address == address else { return nil }
        }
        let storage = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
            .load(fromByteOffset: entry.pointee.offset, as: Unmanaged<PropertyStorage<Value>>.self)
        let readThrough = entry.pointee.readAddress
        guard storage._withUnsafeGuaranteedRef({ $0.lastTrackedKeyPath.load(ordering: .relaxed) == readThrough }) else {
            return nil
        }
        return storage
    }

    /// Remembers that `keyPath`, evaluated on `object` (of exactly the key path's root type), read exactly one
    /// `@Observed` property, whose storage is `storage`, through the property's own key path `readThrough`: finds the
    /// field of `object` holding it (the first word, after the object's header, equal to its address; the field
    /// exists, so the search never reads past it). Not under ThreadSanitizer: the search reads the object's other
    /// fields, which the program may be writing on another thread under a lock of its own (a benign read, but a
    /// report); there every observation evaluates its key path.
    func rememberDirectProperty(
        _ keyPath: AnyKeyPath, readThrough: AnyKeyPath, storage: AnyObject, in object: AnyObject
    ) {
        if !Self.remembersDirectProperties {
            return
        }
        let base = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
        let target = UInt(bitPattern: Unmanaged.passUnretained(storage).toOpaque())
        let word = MemoryLayout<UInt>.size
        // After the metadata pointer (a native object's reference counts follow it, which are no heap address; an
        // Objective-C object's fields may start there).
        var offset = word
        while base.load(fromByteOffset: offset, as: UInt.self) != target {
            offset += word
            if offset > Self.largestDirectPropertyOffset {
                return
            }
        }
        let table: UnsafeMutablePointer<DirectPropertyEntry>
        if let existing = directProperties {
            table = existing
        } else {
            table = .allocate(capacity: Self.directPropertyCapacity)
            table.initialize(repeating: DirectPropertyEntry(), count: Self.directPropertyCapacity)
            directProperties = table
        }
        let address = UInt(bitPattern: Unmanaged.passUnretained(keyPath).toOpaque())
        let set = Self.directPropertySet(for: address)
        // The entry already holding this key path, else an empty one, else the one not filled last (the set's first
        // entry notes which: `filledSecond`).
        let index: Int
        if table[set].address == address || table[set].address == 0 {
            index = set
        } else if table[set + 1].address == address || table[set + 1].address == 0 {
            index = set + 1
        } else {
            index = table[set].filledSecond ? set : set + 1
        }
        table[index] = DirectPropertyEntry(address: address, offset: offset, keyPath: keyPath, readThrough: readThrough)
        table[set].filledSecond = index == set + 1
    }

    /// Whether `rememberDirectProperty` remembers anything: not under ThreadSanitizer (see there).
    static var remembersDirectProperties: Bool {
        !ThreadSanitizer.isActive
    }

    /// Properties further into their object than this are not remembered (the search gives up).
    static var largestDirectPropertyOffset: Int { 4096 }

    // MARK: Key-path tracking (O4)

    /// Evaluates `body` and returns the `@Observed` reads it made on this thread, in order.
    func track<Result>(_ body: () -> Result) -> (Result, [TrackedRead]) {
        var reads: [TrackedRead] = []
        let result = track(into: &reads, body)
        return (result, reads)
    }

    /// Evaluates `body` and sets `reads` to the `@Observed` reads it made on this thread, in order. (Not a tuple
    /// result: in code not specialized for `Result`, a tuple holding it is a metadata look-up.)
    @usableFromInline
    func track<Result>(into reads: inout [TrackedRead], _ body: () -> Result) -> Result {
        var recorded = TrackedReads()
        let result = track(into: &recorded, body)
        reads = recorded.all
        return result
    }

    /// `track(into:_:)` recording into a `TrackedReads`, which holds one read without allocating.
    func track<Result>(into reads: inout TrackedReads, _ body: () -> Result) -> Result {
        trackingStack.append(TrackedReads())
        activeTrackers.add(1, ordering: .relaxed)
        let result = body()
        activeTrackers.subtract(1, ordering: .relaxed)
        reads = trackingStack.removeLast()
        return result
    }

    /// Records a read made by an `@Observed` getter if a tracking scope is open on this thread.
    @usableFromInline
    func recordRead(_ read: consuming TrackedRead) {
        guard !trackingStack.isEmpty else { return }
        // Consumed and moved in: a copy would retain the object, the storage and the key path once more.
        trackingStack[trackingStack.count - 1].append(read)
    }

    /// Whether a tracking scope is open on this thread (used by the Swift Observation bridge).
    var isRecordingReads: Bool {
        !trackingStack.isEmpty
    }
}

/// One entry of `ThreadContext.directProperties`.
@usableFromInline
struct DirectPropertyEntry {
    /// The key path's address; 0 for an empty entry.
    @usableFromInline var address: UInt = 0
    /// Where the field holding the property's storage is, in bytes from the object's start.
    @usableFromInline var offset = 0
    /// The address of the key path the property's getter read its storage through when the entry was made (the
    /// property's own, which the getter passes; another object than `keyPath` when the key path was written in
    /// another module than the property).
    @usableFromInline var readAddress: UInt = 0
    /// Keep the two key paths alive, so that their addresses cannot name other key paths while the entry lives.
    var keyPath: AnyKeyPath?
    var readKeyPath: AnyKeyPath?
    /// In a set's first entry: whether its second entry was the one filled last.
    var filledSecond = false

    init() {}

    init(address: UInt, offset: Int, keyPath: AnyKeyPath, readThrough: AnyKeyPath) {
        self.address = address
        self.offset = offset
        self.keyPath = keyPath
        readAddress = UInt(bitPattern: Unmanaged.passUnretained(readThrough).toOpaque())
        readKeyPath = readThrough
    }
}

/// The source of `ThreadContext.threadID` (identities are never reused).
let nextThreadID = Atomic<UInt>(1)

/// How many tracking scopes are open on all threads: getters look at the thread-local context only
/// when this is not zero, so reads outside `observe` cost one relaxed load.
let activeTrackers = Atomic<Int>(0)

/// The thread-local slot holding each thread's `ThreadContext` (retained; released when the thread exits).
let threadContextKey: pthread_key_t = {
    var key = pthread_key_t()
    #if canImport(Darwin)
        let destructor: @convention(c) (UnsafeMutableRawPointer) -> Void = { pointer in
            let context = Unmanaged<ThreadContext>.fromOpaque(pointer)
            observing_set_current_context(nil)
            context.takeUnretainedValue().releaseSlots()
            context.release()
        }
    #else
        let destructor: @convention(c) (UnsafeMutableRawPointer?) -> Void = { pointer in
            guard let pointer else { return }
            let context = Unmanaged<ThreadContext>.fromOpaque(pointer)
            observing_set_current_context(nil)
            context.takeUnretainedValue().releaseSlots()
            context.release()
        }
    #endif
    let status = pthread_key_create(&key, destructor)
    precondition(status == 0, "Observing: pthread_key_create failed (\(status)); no thread-local slot left")
    return key
}()

import Locking
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One hazard of a thread: the address of the object whose handler call the thread is making (0 when none).
///
/// This is how a change reaches its handler with no reference count touched (O7 without per-change atomic
/// read-modify-writes): the caller publishes the address of what it calls here before calling it; whoever ends an
/// observation looks at every thread's slots and keeps what it removed alive (and, for `invalidate()`, waits) while
/// some thread still names it. A thread has one slot for the storage's calls of its subscribers (`ThreadContext.hazard`:
/// the setter's single-subscriber path writes it without looking anything up) and a stack of slots for the calls
/// made through an observation (`ThreadContext.publishCall(_:)`: the `.initial` call, a chain's change, queue and
/// main-actor delivery), which nest: an `.initial` call made inside a handler, a main-actor call made at once inside a
/// delivery. See `Hazards` for how a slot is published, and why each way is ordered.
///
/// Slots are never freed: they form `Hazards`' list, which removers walk without a lock, and a thread that exits
/// gives its slots back (`owner` 0) for the next threads to take.
@usableFromInline
final class HazardSlot: Sendable {
    /// The address of the `Delivery` or the observation being called by the owning thread; 0 when none.
    @usableFromInline let delivery = Atomic<UInt>(0)
    /// The thread that owns the slot (`ThreadContext.threadID`), 0 while no thread does: a remover does not wait for
    /// its own thread's calls. (Another thread's slot may change owner while a remover looks at it, but a remover's
    /// own slots cannot, so whichever owner it reads, it excludes exactly its own.)
    let owner: Atomic<UInt>
    /// The address of the next slot in `Hazards`' list (0 at its end): written before the slot is published, never
    /// after.
    let next = Atomic<UInt>(0)

    init(owner: UInt) {
        self.owner = Atomic(owner)
    }
}

/// The hazard slots of all threads, and the removed subscribers that a thread may still be calling: the one mechanism
/// behind O7 (no handler call starts after `invalidate()` returns, and it waits for the calls running elsewhere).
///
/// The protocol (hazard pointers, with the storage lock as the ordering point of the fast path):
/// - Fast path (`PropertyStorage.setValue`, one subscriber): the setter publishes the `Delivery`'s address
///   in its slot (a releasing store) while it holds the storage lock, then unlocks and calls it unless it
///   is closed (which only this thread can have done since the lock). A removal takes the same lock
///   before it scans the slots, so either the removal came first (the setter's snapshot no longer holds
///   the subscriber) or the scan sees the published address. The store is releasing so that a remover
///   that reads it also sees the end of the thread's previous call.
/// - Other paths (several subscribers, queued changes): the caller publishes the address (a sequentially
///   consistent exchange), then reads `Delivery.closed` (sequentially consistent); the remover sets
///   `closed` (sequentially consistent, under the storage lock), then reads the slots (sequentially
///   consistent). In the single total order of those four operations, one thread's store comes before the
///   other thread's load (Dekker): either the caller sees the `Delivery` closed and skips it, or the
///   remover sees the address and waits.
/// - Calls made through an observation (`KeyPathObservation.callHandler`): the same as the previous case, with the
///   observation's address pushed on the thread's stack of slots and its `closed` flag, which `invalidate()` sets
///   (sequentially consistent) before it reads the slots. A nested call takes the next slot of the stack, so the
///   calls further up the thread's stack stay published.
/// - A slot is cleared with a releasing store and read with (sequentially consistent, so acquiring)
///   loads, so everything the handler did happens before the remover goes on (and before the `Delivery`,
///   with what its closure captured, is released).
///
/// An address is never reused while it is named: the remover releases the `Delivery` only once no slot
/// names it, and a removed subscriber is in no later snapshot, so once a slot stops naming it, it never
/// names it again. An observation named by a call made through it is alive for the length of the call (its caller
/// holds it: the token's registration, a chain link's subscriber, a queued block).
@usableFromInline
enum Hazards {
    /// The first slot of the list of every slot ever made (its address; each slot is retained by the list, forever).
    /// A push-only list walked without a lock: scanning it is what every removal does, and a lock around it was two
    /// atomic read-modify-writes per removal. It holds as many slots as threads observed at once, times the deepest
    /// nesting of their calls: a thread takes free slots before it makes new ones (`acquireSlot`).
    private static let head = Atomic<UInt>(0)
    /// Removed deliveries that another thread was calling when they were removed without waiting
    /// (re-targeted chain links); released by a later `release` once no slot names them. Reached through
    /// `withLockUnchecked` because they are typed `AnyObject`: under the lock they are only appended, compared by
    /// identity and released, never used, so no state of theirs is touched from two threads.
    private static let deferred = LockedValue<[AnyObject]>([])
    /// How many deliveries `deferred` holds (so that a removal skips its lock when there are none).
    private static let deferredCount = Atomic<Int>(0)

    /// The slot at `address` in the list (not retained: the list holds it forever).
    private static func slot(_ address: UInt) -> Unmanaged<HazardSlot> {
        Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: address).unsafelyUnwrapped)
    }

    /// A slot for the thread `owner`: a free one of the list (given back by a thread that exited; it names nothing),
    /// or a new one pushed in front. Unretained: the list holds it forever.
    static func acquireSlot(owner: UInt) -> Unmanaged<HazardSlot> {
        var address = head.load(ordering: .acquiring)
        while address != 0 {
            let current = slot(address)
            // Looked at before the compare-and-exchange, which would take the cache line of a slot in use from the
            // thread that writes it on every change.
            let taken = current._withUnsafeGuaranteedRef {
                $0.owner.load(ordering: .relaxed) == 0
                    && $0.owner.compareExchange(expected: 0, desired: owner, ordering: .acquiring).exchanged
            }
            if taken {
                return current
            }
            address = current._withUnsafeGuaranteedRef { $0.next.load(ordering: .relaxed) }
        }
        let made = Unmanaged.passRetained(HazardSlot(owner: owner))
        let madeAddress = UInt(bitPattern: made.toOpaque())
        var first = head.load(ordering: .relaxed)
        while true {
            made._withUnsafeGuaranteedRef { $0.next.store(first, ordering: .relaxed) }
            // Sequentially consistent, like the loads of `head` by the removers' scans (see `isCalled`).
            let (exchanged, original) = head.compareExchange(
                expected: first, desired: madeAddress, ordering: .sequentiallyConsistent)
            if exchanged {
                return made
            }
            first = original
        }
    }

    /// How many slots the list holds (tests).
    static var slotCount: Int {
        var count = 0
        var current = head.load(ordering: .acquiring)
        while current != 0 {
            count += 1
            current = slot(current)._withUnsafeGuaranteedRef { $0.next.load(ordering: .relaxed) }
        }
        return count
    }

    /// Gives `slot` back (its thread exits; it names nothing, since every call clears its slot when it ends).
    static func releaseSlot(_ slot: Unmanaged<HazardSlot>) {
        slot._withUnsafeGuaranteedRef { $0.owner.store(0, ordering: .releasing) }
    }

    /// Whether a thread other than `excluded` is calling what is at `address` or at `other` (pass the same address
    /// twice for one).
    ///
    /// A slot pushed after this scan loaded `head` is missed, which is safe: its thread publishes in it only after the
    /// push (a sequentially consistent exchange, after this scan's sequentially consistent load of `head`, so after the
    /// remover closed what it removed, which the caller then sees closed); the setter's fast path makes its thread's
    /// slot inside the storage lock that the remover took before scanning.
    static func isCalled(_ address: UInt, or other: UInt, excludingThread excluded: UInt) -> Bool {
        var current = head.load(ordering: .sequentiallyConsistent)
        while current != 0 {
            let (named, owner, next) = slot(current)._withUnsafeGuaranteedRef {
                (
                    $0.delivery.load(ordering: .sequentiallyConsistent), $0.owner.load(ordering: .relaxed),
                    $0.next.load(ordering: .relaxed)
                )
            }
            if owner != excluded && named != 0 && (named == address || named == other) {
                return true
            }
            current = next
        }
        return false
    }

    /// Whether `delivery` was removed while another thread called it and is still waiting to be released
    /// (tests).
    static func isDeferred(_ delivery: AnyObject) -> Bool {
        deferred.withLockUnchecked { list in list.contains { $0 === delivery } }
    }

    /// Disposes of `delivery`, just removed from its storage and marked closed (`removeSubscriber`).
    ///
    /// With `waitingForCalls`, returns only once no other thread is calling it (`invalidate()`: no handler
    /// call may start after it returns, O7). Without, a delivery still being called on another thread is
    /// kept in a list and released by a later call (re-targeting a chain must not block a handler). A
    /// delivery removed while this thread is itself delivering (a handler ending an observation) is kept by
    /// this thread's context until that delivery ends, since the caller up the stack may hold it unretained.
    /// (A direct observation's `invalidate()` does the same itself, `KeyPathObservation.endDirect()`, waiting for its
    /// own calls in the same scan.)
    static func release(_ delivery: AnyObject, waitingForCalls: Bool) {
        // The context unretained (see `ThreadContext.withCurrent`).
        ThreadContext.withCurrent { context in
            release(delivery, waitingForCalls: waitingForCalls, on: context)
        }
    }

    private static func release(_ delivery: AnyObject, waitingForCalls: Bool, on context: ThreadContext) {
        let address = UInt(bitPattern: Unmanaged.passUnretained(delivery).toOpaque())
        if waitingForCalls {
            waitUntilNotCalled(address, or: address, on: context)
        }
        // This thread may be calling it (a handler ending its observation, a link dropped by its own call); a
        // reclaim never looks at the reclaiming thread's own slot, so the context keeps it until that call returns.
        if context.isDelivering {
            context.retire(delivery)
        }
        if !waitingForCalls && isCalled(address, or: address, excludingThread: context.threadID) {
            deferred.withLockUnchecked { list in
                list.append(delivery)
                deferredCount.store(list.count, ordering: .relaxed)
            }
            return
        }
        reclaimDeferred(on: context)
    }

    /// Releases the deferred deliveries that no thread but `context`'s calls any more, if there are any (a removal
    /// does this after its own delivery is disposed of).
    @inline(__always)
    static func reclaimDeferred(on context: ThreadContext) {
        if deferredCount.load(ordering: .relaxed) != 0 {
            reclaimDeferred(excludingThread: context.threadID)
        }
    }

    /// Returns once no thread but the calling one is calling what is at `address` or at `other` (a `Delivery`
    /// already closed by its removal, an observation already closed by `invalidate()`): what makes `invalidate()`
    /// wait for a handler call in progress elsewhere (O7). A call on the calling thread (a handler ending its own
    /// observation) is not waited for: it is up this thread's stack.
    static func waitUntilNotCalled(_ address: UInt, or other: UInt) {
        ThreadContext.withCurrent { waitUntilNotCalled(address, or: other, on: $0) }
    }

    /// `waitUntilNotCalled(_:or:)` that also returns as soon as `stop` returns true (asked before each scan): for an
    /// address that may stop naming its object once `stop` is true (the object released, the address reused).
    static func waitUntilNotCalled(_ address: UInt, or other: UInt, unless stop: () -> Bool) {
        ThreadContext.withCurrent { waitUntilNotCalled(address, or: other, on: $0, unless: stop) }
    }

    /// `waitUntilNotCalled(_:or:unless:)` with the calling thread's context (by default, until no other thread calls).
    @inline(__always)
    static func waitUntilNotCalled(
        _ address: UInt, or other: UInt, on context: ThreadContext, unless stop: () -> Bool = { false }
    ) {
        let own = context.threadID
        var attempt = 0
        while !stop() && isCalled(address, or: other, excludingThread: own) {
            backOff(attempt)
            attempt += 1
        }
    }

    /// Releases the deferred deliveries that no other thread calls any more (they are released after the
    /// lock, since a release may run deinits).
    private static func reclaimDeferred(excludingThread own: UInt) {
        let free: [AnyObject] = deferred.withLock { list in
            guard !list.isEmpty else { return [] }
            var kept: [AnyObject] = []
            var free: [AnyObject] = []
            for delivery in list {
                let address = UInt(bitPattern: Unmanaged.passUnretained(delivery).toOpaque())
                if isCalled(address, or: address, excludingThread: own) {
                    kept.append(delivery)
                } else {
                    free.append(delivery)
                }
            }
            list = kept
            deferredCount.store(kept.count, ordering: .relaxed)
            return free
        }
        withExtendedLifetime(free) {}
    }

    /// Waits a little before looking again: yields for the first rounds, then sleeps, up to a millisecond.
    @usableFromInline
    static func backOff(_ attempt: Int) {
        if attempt < 64 {
            sched_yield()
        } else {
            usleep(useconds_t(min(1 << min(attempt - 64, 10), 1_000)))
        }
    }
}

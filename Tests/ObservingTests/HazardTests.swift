import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Observing

/// The delivery path that touches no reference count (see `Hazards` in the module): a change reaches its subscriber
/// through an unretained reference published in the thread's hazard slot. These tests pin what that
/// path must still guarantee: O7 (after `invalidate()` returns, no call starts; it waits for a call running
/// elsewhere) with one subscriber and with several, and that nothing a running call uses is freed under it.
@Suite struct HazardTests {
    /// Several subscribers: the writer's thread holds the list while the first handler runs; the second
    /// observation is invalidated meanwhile from another thread, and must never be called after that returns.
    @Test func observationInvalidatedWhileAnotherHandlerOfTheSameChangeRunsIsNotCalled() async {
        let counter = Counter()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let invalidated = Flag()
        let lateCalls = CallCounter()
        let first = counter.observe(\.value) { _, _ in
            entered.signal()
            release.wait()
        }
        let second = counter.observe(\.value) { _, _ in
            if invalidated.isSet {
                lateCalls.increment()
            }
        }
        let writer = StartedThread { counter.value = 1 }
        await wait(for: entered)
        second.invalidate()
        invalidated.set()
        release.signal()
        await writer.finished()
        #expect(lateCalls.count == 0, "an observation was called after its invalidate() returned")
        first.invalidate()
    }

    /// Several subscribers: `invalidate()` from another thread waits for the call of that observation in progress.
    @Test func invalidateWaitsForItsCallAmongSeveralSubscribers() async {
        let counter = Counter()
        let slow = SlowObservation()
        let other = counter.observe(\.value) { _, _ in }
        let token = slow.start(on: counter)
        let writer = StartedThread { counter.value = 1 }
        await wait(for: slow.entered)
        token.invalidate()
        #expect(slow.exited.isSet, "invalidate() returned while the handler was still running")
        await writer.finished()
        other.invalidate()
    }

    /// One subscriber, ended by its own handler: the subscriber's `Delivery` (which holds the handler) must stay
    /// alive until the handler returns, since the setter up the stack calls it through an unretained reference,
    /// and be freed before the setter returns.
    @Test func handlerEndingItsOwnObservationKeepsItsDeliveryUntilItReturns() throws {
        let counter = Counter()
        let holder = Protected<ObservationToken?>(nil)
        let delivery = Protected(WeakReference(nil))
        let aliveAfterInvalidate = Flag()
        let token = counter.observe(\.value) { _, _ in
            guard let token = holder.withLock({ $0 }) else { return }
            token.invalidate()
            if delivery.withLock({ $0.object != nil }) {
                aliveAfterInvalidate.set()
            }
        }
        holder.withLock { $0 = token }
        let core = try #require(token.core as? KeyPathObservation<Counter, Int>)
        delivery.withLock { $0.object = core.directDelivery }
        #expect(delivery.withLock { $0.object != nil })
        counter.value = 1
        #expect(aliveAfterInvalidate.isSet, "the running handler's delivery was freed under it")
        #expect(
            delivery.withLock { $0.object == nil }, "the delivery outlived the delivery of the change that ended it")
    }

    /// One subscriber, ended by user code that runs inside the setter before the handler call (the value's own
    /// `==`, which decides whether the write notifies): once `invalidate()` has returned, the handler is not called.
    @Test func observationEndedByTheValuesEqualityIsNotCalled() {
        let model = Tagged()
        let calls = CallCounter()
        let token = model.observe(\.tag) { _, _ in calls.increment() }
        EndingTag.toEnd.withLock { $0 = token }
        model.tag = EndingTag(value: 1)
        #expect(EndingTag.toEnd.withLock { $0 } == nil, "the value's == did not run")
        #expect(calls.count == 0, "the handler was called after its observation ended")
        #expect(!token.isActive)
    }

    /// One subscriber that is a chain link, whose handler replaces the property wrapper itself: the storage the
    /// setter is delivering from is freed during its own delivery. Its subscribers are kept until that delivery
    /// ends (AddressSanitizer in `Tools/sanitize.sh` would report a use after free otherwise).
    @Test func storageFreedDuringItsOwnDeliverySurvives() {
        let page = ReplaceablePage()
        let book = Book(page: page)
        let calls = CallCounter()
        let token = book.observe(\.page.number) { book, _ in
            calls.increment()
            book.page.replaceNumberStorage()
        }
        page.number = 1
        #expect(calls.count == 1)
        page.number = 2
        token.invalidate()
        #expect(page.number == 2)
    }

    /// A chain re-targeted while another thread is in a call of the link being dropped: the link is not
    /// released under that call (it is deferred), and is released by a later removal once the call is over.
    /// (The re-targeting thread's own change then waits for the call in progress: store order, O11.)
    @Test func linkDroppedWhileAnotherThreadCallsItIsReleasedLater() async {
        let folder = LinkedFolder()
        let first = LinkedDocument()
        folder.document = first
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let blocked = Flag()
        let token = folder.observe(\.document.title) { _, change in
            if change.newValue == "block", !blocked.isSet {
                blocked.set()
                entered.signal()
                release.wait()
            }
        }
        weak let link = first.titleDeliveries.first
        #expect(link != nil)
        // The writer's thread calls the title link (one subscriber: the unretained path) and blocks in the handler.
        let writer = StartedThread { first.title = "block" }
        await wait(for: entered)
        // Re-targeting (on another thread, whose notification waits for the blocked call) drops the link to
        // `first.title` while the writer is still inside its call.
        let retargeter = StartedThread { folder.document = LinkedDocument() }
        while !first.titleDeliveries.isEmpty {
            await Task.yield()
        }
        #expect(link.map(Hazards.isDeferred) == true, "a link being called was released, or not kept")
        release.signal()
        await writer.finished()
        await retargeter.finished()
        // The next removal releases what no thread calls any more.
        token.invalidate()
        #expect(link == nil, "the dropped link was never released")
    }

    /// Calls made through an observation nest on one thread: a chain's handler registers other observations with
    /// `.initial`, whose initial calls run inside it, each inside the one before, deeper than the stack of hazard slots
    /// a thread starts with. `invalidate()` of the outer observation from another thread, while the innermost call
    /// runs, must still wait for the outer handler to return: the nested calls must not hide it (as one slot per
    /// thread, saved and restored around each call, would).
    @Test func invalidateWaitsForAnOuterCallWhileNestedCallsRunOnItsThread() async {
        let model = DoubledCounter()
        let others = (0..<20).map { _ in Counter() }
        let entered = DispatchSemaphore(value: 0)
        let exited = Flag()
        let inner = Protected<[ObservationToken]>([])
        // Registers an observation of `others[depth]` whose initial call registers the next one, down to the last,
        // whose initial call lets the test go on and sleeps a little.
        @Sendable func nest(_ depth: Int) {
            let token = others[depth].observe(\.value, options: [.initial]) { _, _ in
                if depth + 1 < others.count {
                    nest(depth + 1)
                } else {
                    entered.signal()
                    Thread.sleep(forTimeInterval: 0.02)
                }
            }
            inner.withLock { $0.append(token) }
        }
        let outer = model.observe(\.doubled, options: [.new]) { _, _ in
            nest(0)
            // The nested calls have returned; the outer call still runs.
            Thread.sleep(forTimeInterval: 0.05)
            exited.set()
        }
        let writer = StartedThread { model.value = 1 }
        await wait(for: entered)
        outer.invalidate()
        #expect(exited.isSet, "invalidate() returned while the outer handler was still running")
        await writer.finished()
        #expect(inner.withLock { $0.count } == others.count)
        for token in inner.withLock({ $0 }) {
            token.invalidate()
        }
    }

    /// A thread's hazard slots are given back when it exits and taken by later threads; a call published in a slot
    /// taken that way is waited for like any other, and the thread that owned it before is no longer excluded.
    @Test func slotGivenBackByAnExitedThreadIsScannedForItsNextOwner() {
        let address: UInt = 0x10
        let first = UInt.max - 1
        let second = UInt.max - 2
        let slot = Hazards.acquireSlot(owner: first)
        slot._withUnsafeGuaranteedRef { $0.delivery.store(address, ordering: .sequentiallyConsistent) }
        #expect(Hazards.isCalled(address, or: address, excludingThread: 0))
        #expect(!Hazards.isCalled(address, or: address, excludingThread: first), "a thread waited for itself")
        slot._withUnsafeGuaranteedRef { $0.delivery.store(0, ordering: .releasing) }
        Hazards.releaseSlot(slot)
        #expect(slot._withUnsafeGuaranteedRef { $0.owner.load(ordering: .acquiring) } == 0)
        // Free slots are taken before a new one is made: the list's free slots, until this one (unless another thread
        // took it meanwhile, and a new slot is made: the search ends there).
        var taken: [Unmanaged<HazardSlot>] = []
        let count = Hazards.slotCount
        while !taken.contains(where: { $0.toOpaque() == slot.toOpaque() }) && Hazards.slotCount == count {
            taken.append(Hazards.acquireSlot(owner: second))
        }
        if taken.contains(where: { $0.toOpaque() == slot.toOpaque() }) {
            slot._withUnsafeGuaranteedRef { $0.delivery.store(address, ordering: .sequentiallyConsistent) }
            #expect(
                Hazards.isCalled(address, or: address, excludingThread: first), "the slot's next owner was excluded")
            #expect(!Hazards.isCalled(address, or: address, excludingThread: second))
            slot._withUnsafeGuaranteedRef { $0.delivery.store(0, ordering: .releasing) }
        }
        for next in taken {
            Hazards.releaseSlot(next)
        }
    }

    /// The nesting test again, on a thread started after another one that nested as deep exited: the second thread
    /// takes the slots the first gave back, and `invalidate()` still waits for its outer call.
    @Test func invalidateWaitsForAnOuterCallOnAThreadThatTookGivenBackSlots() async {
        await StartedThread {
            let counters = (0..<20).map { _ in Counter() }
            let tokens = Protected<[ObservationToken]>([])
            @Sendable func nest(_ depth: Int) {
                guard depth < counters.count else { return }
                let token = counters[depth].observe(\.value, options: [.initial]) { _, _ in nest(depth + 1) }
                tokens.withLock { $0.append(token) }
            }
            nest(0)
            for token in tokens.withLock({ $0 }) {
                token.invalidate()
            }
        }.finished()
        await invalidateWaitsForAnOuterCallWhileNestedCallsRunOnItsThread()
    }

    /// A nested call (an `.initial` call made inside a chain's handler) that invalidates the outer observation, which
    /// runs up the same thread's stack: `invalidate()` returns at once (no waiting for its own thread), the outer
    /// handler finishes, and is not called again.
    @Test func nestedCallEndingTheOuterObservationDoesNotWaitForItself() {
        let model = DoubledCounter()
        let other = Counter()
        let holder = Protected<ObservationToken?>(nil)
        let inner = Protected<ObservationToken?>(nil)
        let calls = CallCounter()
        let outer = model.observe(\.doubled, options: [.new]) { _, _ in
            calls.increment()
            let token = other.observe(\.value, options: [.initial]) { _, _ in
                holder.withLock { $0 }?.invalidate()
            }
            inner.withLock { $0 = token }
        }
        holder.withLock { $0 = outer }
        model.value = 1
        #expect(calls.count == 1)
        #expect(!outer.isActive)
        model.value = 2
        #expect(calls.count == 1, "the outer observation was called after it ended")
        inner.withLock { $0 }?.invalidate()
    }

    /// Threads observe and invalidate one property while others write it, all through the one-subscriber path:
    /// no handler of an observation may start after its `invalidate()` returned. Bounded like the stress test.
    @Test func noCallStartsAfterInvalidateUnderConcurrentWrites() async {
        let counter = Counter()
        let (violations, deliveries) = await invalidateRacingWriters(
            write: { counter.value = $0 },
            observe: { called in counter.observe(\.value) { _, _ in called() } })
        #expect(violations == 0, "\(violations) handler calls started after invalidate() returned")
        #expect(deliveries > 0)
    }

    /// A prior observer's handler that replaces the property wrapper and ends its observation drops the last
    /// references to the storage whose setter is running: the setter reached it unretained, and stores the value
    /// only after the prior notifications. The storage must live until the setter returns (AddressSanitizer reports
    /// a use after free otherwise).
    @Test func storageFreedByAPriorHandlerOutlivesTheSetter() {
        let page = ReplaceablePage()
        let storage = Protected(WeakReference(page.numberStorage))
        let holder = Protected<ObservationToken?>(nil)
        let freedUnderSetter = Flag()
        let token = page.observe(\.number, options: [.prior, .new]) { page, change in
            guard change.isPrior else { return }
            page.replaceNumberStorage()
            holder.withLock { $0 }?.invalidate()
            if storage.withLock({ $0.object == nil }) {
                freedUnderSetter.set()
            }
        }
        holder.withLock { $0 = token }
        page.number = 1
        #expect(!freedUnderSetter.isSet, "the storage was freed while its setter still ran")
        #expect(storage.withLock { $0.object == nil }, "the replaced storage was never freed")
    }

    /// Two threads write the property a chain link follows: the second writer's call of the link starts only once
    /// the first writer's call has returned (store order, O11). So a link is never called by two threads at once,
    /// and a link dropped by its own call (re-targeting) is never also inside another thread's call; the dropping
    /// thread's context keeps it until its own call returns (`Hazards.release`).
    @Test func secondWritersCallOfALinkStartsAfterTheFirstReturns() async {
        let model = SwitchingTitle()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let events = Recorder<String>()
        let token = model.observe(\.shown) { _, change in
            events.append("enter \(change.newValue ?? "-")")
            if change.newValue == "first" {
                entered.signal()
                release.wait()
            }
            events.append("exit \(change.newValue ?? "-")")
        }
        let link = Protected(WeakReference(model.titleDeliveries.first))
        let first = StartedThread { model.title = "first" }
        await wait(for: entered)
        model.useName.store(true, ordering: .relaxed)
        let second = StartedThread { model.title = "second" }
        // The second write is stored at once; its delivery waits for the first call to return.
        while model.title != "second" {
            await Task.yield()
        }
        release.signal()
        await second.finished()
        await first.finished()
        #expect(events.values == ["enter first", "exit first", "enter ", "exit "])
        token.invalidate()
        #expect(link.withLock { $0.object == nil }, "the dropped link was never released")
    }
}

/// A value whose `==` ends the observation in `toEnd` (once), as user code run inside the setter may.
private struct EndingTag: Equatable {
    static let toEnd = Protected<ObservationToken?>(nil)
    var value: Int

    static func == (lhs: EndingTag, rhs: EndingTag) -> Bool {
        toEnd.withLock { token in
            let ending = token
            token = nil
            return ending
        }?.invalidate()
        return lhs.value == rhs.value
    }
}

private final class Tagged: KeyValueObservable {
    @Observed var tag = EndingTag(value: 0)
}

/// A model whose property wrapper can be replaced (which frees the storage behind it).
private final class ReplaceablePage: KeyValueObservable {
    @Observed var number = 0

    func replaceNumberStorage() {
        _number = Observed(wrappedValue: number)
    }

    /// The storage behind `number` now.
    var numberStorage: AnyObject {
        _number.storage
    }
}

private final class Book: KeyValueObservable {
    @Observed var page: ReplaceablePage

    init(page: ReplaceablePage) {
        self.page = page
    }
}

/// Shared between threads. Why `@unchecked Sendable` is safe: every stored property is `@Observed` (behind the
/// storage's lock), and the wrappers are written only by the initializer.
private final class LinkedDocument: KeyValueObservable, @unchecked Sendable {
    @Observed var title = ""

    /// The subscribers' deliveries of `title` (the chain links registered on it).
    var titleDeliveries: [AnyObject] {
        _title.storage.withState { $0.subscribers.map(\.delivery) }
    }
}

/// Shared between threads; see `LinkedDocument`.
private final class LinkedFolder: KeyValueObservable, @unchecked Sendable {
    @Observed var document = LinkedDocument()
}

/// Reads `title` or, once `useName` is set, `name`: switching it makes the next evaluation of `shown` drop its
/// link to `title`. Shared between threads; see `LinkedDocument` (`useName` is atomic).
private final class SwitchingTitle: KeyValueObservable, @unchecked Sendable {
    @Observed var title = ""
    @Observed var name = ""
    /// Not observed: the evaluation that reads it re-targets.
    let useName = Atomic<Bool>(false)

    var shown: String {
        useName.load(ordering: .relaxed) ? name : title
    }

    /// The subscribers' deliveries of `title` (the chain links registered on it).
    var titleDeliveries: [AnyObject] {
        _title.storage.withState { $0.subscribers.map(\.delivery) }
    }
}

/// A computed property over one `@Observed` one: observing it makes a chain observation, whose handler is called
/// through the observation (not by the storage). Shared between threads; see `LinkedDocument`.
private final class DoubledCounter: KeyValueObservable, @unchecked Sendable {
    @Observed var value = 0

    var doubled: Int {
        value * 2
    }
}

/// A weak reference, kept in a `Protected` to be shared with handlers.
private struct WeakReference {
    weak var object: AnyObject?

    init(_ object: AnyObject?) {
        self.object = object
    }
}

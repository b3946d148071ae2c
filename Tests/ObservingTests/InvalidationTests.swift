import Foundation
import Observing
import Synchronization
import TestSupport
import Testing

/// O7 in the cases that are easy to get wrong: after `invalidate()` returns no call starts and a call running
/// elsewhere has returned, with one subscriber and with several, for calls nested on one thread, and when the
/// storage being written goes away during its own delivery.
@Suite struct InvalidationTests {
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

    /// A handler that ends its own observation in the prior call of a change is not called again for that change's
    /// new value, direct or chained (the chain makes both calls in one evaluation).
    @Test(arguments: [false, true])
    func handlerEndingItsObservationInThePriorCallGetsNoChangeCall(chained: Bool) {
        let folder = Folder()
        folder.document = Document(title: "a")
        let document = folder.document!
        let holder = Protected<ObservationToken?>(nil)
        let calls = CallCounter()
        let handler: @Sendable () -> Void = {
            calls.increment()
            holder.withLock { $0 }?.invalidate()
        }
        let token =
            chained
            ? folder.observe(\.document?.title, options: [.prior, .new]) { _, _ in handler() }
            : document.observe(\.title, options: [.prior, .new]) { _, _ in handler() }
        holder.withLock { $0 = token }
        document.title = "b"
        #expect(calls.count == 1, "calls after the handler ended its observation")
        holder.withLock { $0 = nil }
    }

    /// Observations start while other threads write the property, each write waiting for its turn at the
    /// observations it found. A write made as an observation starts may find it before its first turn is set, and
    /// wait for that turn: the start must wake it, or that write, and every later one behind it, waits until the
    /// observation ends (each round here waits up to 5 s for the new observation's first call).
    @Test(.timeLimit(.minutes(10)))
    func aWriteMadeAsAnObservationStartsIsDelivered() {
        let counter = Counter()
        let deadline = Deadline(seconds: min(StressScale.seconds, 1))
        let writers = max(StressScale.threads, 4)
        let stop = Atomic<Bool>(false)
        let finished = DispatchSemaphore(value: 0)
        for index in 0..<writers {
            Thread {
                var value = index << 32
                while !stop.load(ordering: .relaxed) {
                    value += 1
                    counter.value = value
                }
                finished.signal()
            }.start()
        }
        var stuck = 0
        var rounds = 0
        while !deadline.hasPassed && stuck == 0 {
            let called = DispatchSemaphore(value: 0)
            let token = counter.observe(\.value) { _, _ in called.signal() }
            if called.wait(timeout: .now() + 5) == .timedOut { stuck += 1 }
            token.invalidate()
            rounds += 1
        }
        stop.store(true, ordering: .relaxed)
        for _ in 0..<writers { finished.wait() }
        #expect(stuck == 0, "round \(rounds): the new observation was never called while \(writers) threads wrote")
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

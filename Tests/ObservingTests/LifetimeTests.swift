import Observing
import TestSupport
import Testing

/// O3: observed objects and observers are not retained by the registry or by tokens; an observed
/// object that goes away first leaves inert tokens, never a crash or a leak.
@Suite struct LifetimeTests {
    /// An observer in the plain-token style: it holds its token; the handler captures only `calls`.
    final class Watcher {
        var token: ObservationToken?
        let calls = CallCounter()

        func watch(_ circle: Circle) {
            let calls = calls
            token = circle.observe(\.radius) { _, _ in calls.increment() }
        }
    }

    @Test func tokenDoesNotRetainTheObservedObject() {
        let tracker = LifetimeTracker()
        let token: ObservationToken
        do {
            let circle = tracker.watch(Circle())
            token = circle.observe(\.radius) { _, _ in }
            #expect(token.isActive)
        }
        tracker.expectAllFreed()
        #expect(!token.isActive)
        token.invalidate()
        token.invalidate()
    }

    @Test func observedObjectFreedFirstLeavesAnInertTokenAndFreesTheHandler() {
        let tracker = LifetimeTracker()
        let captured = InstanceCounter()
        var tokens: [ObservationToken] = []
        do {
            let circle = tracker.watch(Circle())
            let instance = captured.make()
            tokens.append(circle.observe(\.radius) { _, _ in _ = instance })
            tokens.append(circle.observe(\.borderWidth, options: [.prior, .initial]) { _, _ in })
            #expect(ObservationDiagnostics.liveObservations(of: circle).count == 2)
        }
        #expect(tokens.allSatisfy { !$0.isActive })
        #expect(captured.live == 1, "the token keeps its handler until it is invalidated")
        for token in tokens { token.invalidate() }
        #expect(captured.live == 0)
        tokens.removeAll()
        tracker.expectAllFreed()
    }

    /// A handler that ends its own observation is let go once that call returns, though the token lives on (it keeps
    /// the observation's call gate, so that a later `invalidate()` from another thread can wait for the call).
    @Test func handlerThatEndedItsOwnObservationIsFreedAfterTheCall() {
        let circle = Circle()
        let captured = InstanceCounter()
        let holder = Protected<ObservationToken?>(nil)
        let token: ObservationToken
        do {
            let instance = captured.make()
            token = circle.observe(\.radius) { _, _ in
                _ = instance
                holder.withLock { $0 }?.invalidate()
            }
        }
        holder.withLock { $0 = token }
        #expect(captured.live == 1)
        circle.radius = 1
        #expect(!token.isActive)
        #expect(captured.live == 0, "the ended observation still holds its handler")
        holder.withLock { $0 = nil }
    }

    /// A listing of the observations (diagnostics, an audit) holds each one until it returns, possibly on another
    /// thread: an observation ended meanwhile still lets its handler, and what the handler captures, go at once.
    @Test func observationEndedWhileAListingHoldsItFreesItsHandlerAtOnce() {
        let circle = Circle()
        let folder = Folder()
        folder.document = Document(title: "a")
        let owner = Circle()
        let observer = KeyValueObserver(owner: owner)
        let captured = InstanceCounter()
        let token: ObservationToken
        do {
            let direct = captured.make("direct")
            let chain = captured.make("chain")
            let tokenHandler = captured.make("token")
            observer.observe(circle, \.radius) { _, _ in _ = direct }
            observer.observe(folder, \.document?.title) { _, _ in _ = chain }
            token = circle.observe(\.borderWidth) { _, _ in _ = tokenHandler }
        }
        var liveWhileListed: [String: Int]?
        _ = ObservationDiagnostics.liveObservations { _, listedOwner in
            if listedOwner === owner && liveWhileListed == nil {
                observer.unobserveAll()
                token.invalidate()
                liveWhileListed = captured.liveTags
            }
            return false
        }
        #expect(liveWhileListed == [:], "handlers held by the ended observations: \(liveWhileListed ?? [:])")
    }

    @Test func observerFreedFirstEndsItsObservation() {
        let tracker = LifetimeTracker()
        let circle = Circle()
        let calls: CallCounter
        do {
            let watcher = tracker.watch(Watcher())
            calls = watcher.calls
            watcher.watch(circle)
            circle.radius = 1
            #expect(calls.count == 1)
        }
        circle.radius = 2
        #expect(calls.count == 1)
        tracker.expectAllFreed()
        #expect(ObservationDiagnostics.liveObservations(of: circle).isEmpty)
    }

    @Test func chainedObservationOfAFreedRootIsInert() {
        let tracker = LifetimeTracker()
        let document = Document()
        let token: ObservationToken
        do {
            let folder = tracker.watch(Folder(document: document))
            token = folder.observe(\.document?.title) { _, _ in }
        }
        tracker.expectAllFreed()
        document.title = "changed after the root went away"
        #expect(!token.isActive)
        token.invalidate()
    }

    @Test func everythingInAScenarioIsFreed() {
        let tracker = LifetimeTracker()
        do {
            let folder = tracker.watch(Folder(document: tracker.watch(Document(title: "a"))))
            let list = tracker.watch(ItemList())
            let observer = tracker.watch(KeyValueObserver(owner: folder))
            observer.observe(folder, \.document?.title) { _, _ in }
            observer.observe(list, \.items) { _, _ in }
            let token = tracker.watch(list.observe(\.items, options: [.initial, .prior]) { list, _ in _ = list.items })
            list.$items.append(Item(id: 1, name: "one"))
            folder.document = tracker.watch(Document(title: "b"))
            folder.document?.title = "c"
            token.invalidate()
        }
        tracker.expectAllFreed()
        #expect(tracker.watchedCount == 6)
    }
}

extension LifetimeTests {
    /// A token keeps nothing of its object once the object went away (only its handler, until invalidated): the
    /// values of the object's properties go with it.
    @Test func valueOfAFreedObjectIsFreedWithTheToken() {
        let tracker = LifetimeTracker()
        let token: ObservationToken
        do {
            let folder = tracker.watch(Folder())
            let document = tracker.watch(Document())
            folder.document = document
            token = folder.observe(\.document) { _, _ in }
        }
        #expect(tracker.survivors.isEmpty)
        #expect(!token.isActive)
        token.invalidate()
        tracker.expectAllFreed()
    }
}

/// Observes a computed property of itself and owns the token; reading `probe` may drop the last
/// outside reference to it.
final class Dropper: KeyValueObservable {
    let child: Counter
    var token: ObservationToken?
    var onRead: () -> Void = {}

    init(child: Counter) {
        self.child = child
    }

    /// Reads `child.value` (so a change of it re-evaluates the chain) but always returns 0, so the
    /// re-evaluation finds the end value unchanged.
    var probe: Int {
        if child.value == 2 {
            onRead()
        }
        return 0
    }
}

extension LifetimeTests {
    /// The last reference to an observed object goes away while its chain is being re-evaluated, and
    /// its deinit ends that same observation: no deadlock, everything freed.
    @Test func objectFreedDuringItsOwnChainEvaluation() {
        let tracker = LifetimeTracker()
        let child = Counter()
        var holder: Dropper? = tracker.watch(Dropper(child: child))
        holder?.onRead = { holder = nil }
        holder?.token = holder?.observe(\.probe) { _, _ in }
        child.value = 1
        #expect(holder != nil)
        child.value = 2
        #expect(holder == nil)
        tracker.expectAllFreed()
    }
}

/// An object whose deinit uses the property that held it.
final class Occupant {
    weak var slot: Slot?
    let seen: Recorder<Int>

    init(slot: Slot, seen: Recorder<Int>) {
        self.slot = slot
        self.seen = seen
    }

    deinit {
        seen.append(slot?.members.count ?? -1)
        slot?.occupant = nil
    }
}

final class Slot: KeyValueObservable {
    @Observed var occupant: Occupant?
    @ObservedArray var members: [Occupant] = []
}

extension LifetimeTests {
    /// A value released by a write is released after the property's lock, so its deinit may read or
    /// write that property (with and without observers).
    @Test(arguments: [false, true])
    func deinitOfAReplacedValueMayUseTheProperty(observed: Bool) {
        let slot = Slot()
        let seen = Recorder<Int>()
        let token = observed ? slot.observe(\.occupant) { _, _ in } : nil
        slot.occupant = Occupant(slot: slot, seen: seen)
        slot.occupant = nil
        slot.$members.append(Occupant(slot: slot, seen: seen))
        slot.$members.removeAll()
        slot.members = [Occupant(slot: slot, seen: seen)]
        slot.members = []
        #expect(seen.values == [0, 0, 0])
        token?.invalidate()
    }
}

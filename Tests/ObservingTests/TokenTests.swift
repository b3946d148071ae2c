import Observing
import SeededRandom
import TestSupport
import Testing

/// O1: every observation is a token with its own identity; `invalidate()` is idempotent; a token's
/// deinit invalidates it.
@Suite struct TokenTests {
    @Test func everyObserveReturnsANewToken() {
        let tracker = LifetimeTracker()
        do {
            let doc = tracker.watch(Document())
            let first = tracker.watch(doc.observe(\.title) { _, _ in })
            let second = tracker.watch(doc.observe(\.title) { _, _ in })
            #expect(first !== second)
            #expect(first != second)
            #expect(Set([first, second]).count == 2)
            #expect(ObservationDiagnostics.liveObservations(of: doc).count == 2)
        }
        tracker.expectAllFreed()
    }

    /// O1, O10: whatever order observations end in (tokens and an observer's pairs mixed), diagnostics list exactly
    /// the others, and exactly the others are still called.
    @Test(arguments: 1...20) func endingObservationsInAnyOrderLeavesExactlyTheOthers(seed: UInt64) {
        var generator = SplitMix64(seed: seed)
        let docs = (0..<4).map { Document(title: "doc \($0)") }
        let observer = KeyValueObserver()
        let calls = Recorder<Int>()
        var tokens: [Int: ObservationToken] = [:]
        var pairs: [Int: Document] = [:]
        for index in 0..<12 {
            let doc = docs[index % docs.count]
            if index % 3 == 2 {
                #expect(observer.observe(doc, \.isFavorite) { _, _ in calls.append(index) })
                pairs[index] = doc
            } else {
                tokens[index] = doc.observe(\.title) { _, _ in calls.append(index) }
            }
        }
        var live = Set(0..<12)
        for index in (0..<12).shuffled(using: &generator) {
            if let token = tokens[index] { token.invalidate() } else { observer.unobserve(pairs[index]!, \.isFavorite) }
            live.remove(index)
            let listed = docs.reduce(0) { $0 + ObservationDiagnostics.liveObservations(of: $1).count }
            #expect(listed == live.count)
            #expect(ObservationDiagnostics.liveObservations(registeredBy: observer).count == live.count { $0 % 3 == 2 })
            let before = calls.values.count
            for doc in docs {
                doc.title += "."
                doc.isFavorite.toggle()
            }
            #expect(Set(calls.values.dropFirst(before)) == live)
        }
    }

    @Test func invalidatingOneTokenLeavesTheOtherObserving() {
        let doc = Document()
        let seen = Recorder<String>()
        let first = doc.observe(\.title) { _, change in seen.append("first:\(change.newValue!)") }
        let second = doc.observe(\.title) { _, change in seen.append("second:\(change.newValue!)") }
        doc.title = "a"
        first.invalidate()
        doc.title = "b"
        #expect(seen.values == ["first:a", "second:a", "second:b"])
        #expect(!first.isActive)
        #expect(second.isActive)
        second.invalidate()
    }

    @Test func invalidateIsIdempotent() {
        let doc = Document()
        let calls = CallCounter()
        let token = doc.observe(\.title) { _, _ in calls.increment() }
        doc.title = "a"
        token.invalidate()
        token.invalidate()
        doc.title = "b"
        token.invalidate()
        #expect(calls.count == 1)
        #expect(!token.isActive)
        #expect(ObservationDiagnostics.liveObservations(of: doc).isEmpty)
    }

    @Test func releasingTheTokenInvalidatesIt() {
        let tracker = LifetimeTracker()
        let doc = Document()
        let calls = CallCounter()
        do {
            let token = tracker.watch(doc.observe(\.title) { _, _ in calls.increment() })
            doc.title = "a"
            #expect(token.isActive)
        }
        doc.title = "b"
        #expect(calls.count == 1)
        #expect(ObservationDiagnostics.liveObservations(of: doc).isEmpty)
        tracker.expectAllFreed()
    }

    @Test func inertTokenDoesNothing() {
        let token = ObservationToken.inert
        #expect(!token.isActive)
        token.invalidate()
        #expect(token.description == "ObservationToken(inactive)")
    }

    @Test func descriptionNamesTheObservation() {
        let doc = Document()
        let token = doc.observe(\.title) { _, _ in }
        #expect(token.description.contains("Document"))
        #expect(token.description.contains("title"))
        token.invalidate()
    }
}

import Observing
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

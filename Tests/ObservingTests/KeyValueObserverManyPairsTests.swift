import Observing
import TestSupport
import Testing

/// `KeyValueObserver` keeps a few pairs in an array and moves them to a dictionary past 16: both must behave the
/// same (at most once per pair, idempotent unobserve, unobserve by object, everything ended with the observer).
@Suite struct KeyValueObserverManyPairsTests {
    @Test(arguments: [3, 16, 17, 40])
    func pairsBehaveTheSameAtAnyCount(count: Int) {
        let observer = KeyValueObserver()
        let documents = (0..<count).map { _ in Document() }
        let calls = CallCounter()
        for document in documents {
            #expect(observer.observe(document, \.title) { _, _ in calls.increment() })
            #expect(!observer.observe(document, \.title) { _, _ in calls.increment() })
            #expect(observer.observe(document, \.isFavorite) { _, _ in calls.increment() })
        }
        #expect(observer.observationCount == 2 * count)
        for document in documents {
            document.title = "changed"
        }
        #expect(calls.count == count)
        observer.unobserve(documents[0], \.title)
        observer.unobserve(documents[0], \.title)
        #expect(!observer.isObserving(documents[0], \.title))
        #expect(observer.isObserving(documents[0], \.isFavorite))
        observer.unobserve(documents[count - 1])
        #expect(!observer.isObserving(documents[count - 1], \.isFavorite))
        #expect(observer.observationCount == 2 * count - 3)
        #expect(observer.observe(documents[0], \.title) { _, _ in calls.increment() })
        documents[0].title = "again"
        #expect(calls.count == count + 1)
        observer.unobserveAll()
        #expect(observer.observationCount == 0)
        for document in documents {
            #expect(ObservationDiagnostics.liveObservations(of: document).isEmpty)
        }
    }
}

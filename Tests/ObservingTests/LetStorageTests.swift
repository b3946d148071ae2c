import Foundation
import Observation
import Observing
import Testing

/// A model shared between threads: its storage in `let`s, so the compiler checks its `Sendable` conformance.
private final class SharedTake: KeyValueObservable, Sendable {
    private let _title = Observed(wrappedValue: "")
    private let _markers = ObservedArray<Double>(wrappedValue: [])
    private let _next = Observed<SharedTake?>(wrappedValue: nil)

    var title: String {
        get { _title[self, \.title] }
        set { _title[self, \.title] = newValue }
    }

    var markers: [Double] { _markers[self, \.markers] }

    var next: SharedTake? {
        get { _next[self, \.next] }
        set { _next[self, \.next] = newValue }
    }

    func addMarker(_ seconds: Double) {
        _markers.editor(self, \.markers).append(seconds)
    }

    func removeMarker(at index: Int) {
        _markers.editor(self, \.markers).remove(at: index)
    }
}

/// A model whose getters count their calls.
private final class CountingTake: KeyValueObservable, Sendable {
    let getterCalls = CallCounter()
    private let _plain = Observed(wrappedValue: 0)
    private let _other = Observed(wrappedValue: 0)

    var plain: Int {
        get {
            getterCalls.increment()
            return _plain[self, \.plain]
        }
        set { _plain[self, \.plain] = newValue }
    }

    var other: Int {
        get { _other[self, \.other] }
        set { _other[self, \.other] = newValue }
    }
}

/// Observes `keyPath` (one key path object for all calls, as a cell binding again passes) of each of `takes` through
/// one observer, writes 1 then 2 to `write` of each, and returns the getter calls the observing made per take and the
/// values delivered.
private func observeEach(
    _ takes: [CountingTake], _ keyPath: ReferenceWritableKeyPath<CountingTake, Int> & Sendable,
    writing write: ReferenceWritableKeyPath<CountingTake, Int>
) -> (getterCalls: [Int], delivered: [String]) {
    let observer = KeyValueObserver()
    let delivered = Recorder<String>()
    for (index, take) in takes.enumerated() {
        observer.observe(take, keyPath, options: [.new]) { _, change in
            delivered.append("\(index): \(change.newValue!)")
        }
    }
    // Counted before the writes: a write through a key path to a computed property calls its getter too.
    let getterCalls = takes.map(\.getterCalls.count)
    for take in takes {
        take[keyPath: write] = 1
        take[keyPath: write] = 2
    }
    observer.unobserveAll()
    return (getterCalls, delivered.values)
}

@Suite("Observed kept in a let: a Sendable model")
struct LetStorageTests {
    @Test("writes notify with old and new values, equal writes do not, and diagnostics name the property")
    func writesAndDiagnostics() {
        let take = SharedTake()
        let changes = Recorder<String>()
        let token = take.observe(\.title, options: [.old, .new]) { _, change in
            changes.append("\(change.oldValue ?? "-") > \(change.newValue ?? "-")")
        }
        take.title = "a"
        take.title = "a"
        take.title = "b"
        #expect(changes.values == [" > a", "a > b"])
        #expect(ObservationDiagnostics.liveObservations(of: take).map(\.keyPath) == ["\\SharedTake.title"])
        token.invalidate()
    }

    @Test("the array's editor sends insertions and removals with their indexes")
    func arrayEditor() {
        let take = SharedTake()
        let changes = Recorder<String>()
        let token = take.observe(\.markers, options: [.new]) { _, change in
            changes.append("\(change.kind) \(Array(change.indexes ?? []))")
        }
        take.addMarker(1)
        take.addMarker(2)
        take.removeMarker(at: 0)
        #expect(take.markers == [2])
        #expect(changes.values == ["insertion [0]", "insertion [1]", "removal [0]"])
        token.invalidate()
    }

    @Test("chains through let storage re-target when the middle object is replaced")
    func chains() {
        let take = SharedTake()
        let first = SharedTake()
        take.next = first
        let titles = Recorder<String>()
        let token = take.observe(\.next?.title, options: [.new]) { _, change in titles.append(change.newValue! ?? "nil")
        }
        first.title = "one"
        let second = SharedTake()
        take.next = second
        second.title = "two"
        first.title = "ignored"
        #expect(titles.values == ["one", "", "two"])
        token.invalidate()
    }

    @Test("Swift Observation tracks a read and fires on a write")
    func swiftObservation() {
        let take = SharedTake()
        let fired = CallCounter()
        withObservationTracking {
            _ = take.title
        } onChange: {
            fired.increment()
        }
        take.title = "new"
        #expect(fired.count == 1)
    }

    @Test("each observation of a let-stored property evaluates its getter once, and follows its own object")
    func eachObservationEvaluatesTheGetterOnce() {
        let plain = observeEach([CountingTake(), CountingTake()], \.plain, writing: \.plain)
        #expect(plain.getterCalls == [1, 1])
        #expect(plain.delivered == ["0: 1", "0: 2", "1: 1", "1: 2"])
        #expect(observeEach([CountingTake()], \.plain, writing: \.other).delivered.isEmpty)
    }

    @Test("the model crosses threads as it is, and a write from another thread is delivered")
    func crossesThreads() async {
        let take = SharedTake()
        let titles = Recorder<String>()
        let token = take.observe(\.title, options: [.new]) { _, change in titles.append(change.newValue!) }
        await Task.detached { take.title = "from another thread" }.value
        #expect(titles.values == ["from another thread"])
        token.invalidate()
    }
}

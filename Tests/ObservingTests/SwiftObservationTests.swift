import Foundation
import Observation
import Observing
import Synchronization
import TestSupport
import Testing

/// A model with nothing but `KeyValueObservable` and its wrapped properties: no macro, no registrar.
///
/// Why `@unchecked Sendable` is safe: every stored property is `@Observed` / `@ObservedArray`, whose
/// values live behind their storage's lock; the wrappers themselves are written only by the initializer.
private final class Track: KeyValueObservable, @unchecked Sendable {
    @Observed var title = ""
    @Observed var rating = 0
    @Observed var artwork = Opaque(number: 0)
    @ObservedArray var tags: [String] = []
    @ObservedArray var items: [Item] = []
    @Observed var next: Track?

}

/// Counts the `onChange` calls of one `withObservationTracking` and records what the handler read.
private final class Tracking: Sendable {
    let calls = CallCounter()
    let titlesSeen = Recorder<String>()
}

/// Reads `read` inside `withObservationTracking`; `onChange` counts the calls on `tracking`.
private func track(_ tracking: Tracking, _ read: () -> Void, onChange: (@Sendable () -> Void)? = nil) {
    withObservationTracking {
        read()
    } onChange: {
        tracking.calls.increment()
        onChange?()
    }
}

@Suite("Swift Observation (O12)")
struct SwiftObservationTests {
    @Test("A KeyValueObservable class is Observable: no macro, no registrar in the class")
    func isObservable() {
        func accepts(_: some Observable) {}
        accepts(Track())
    }

    @Test("Reading an @Observed property inside withObservationTracking tracks it; writing it fires onChange once")
    func observedReadIsTracked() {
        let model = Track()
        let tracking = Tracking()
        track(tracking) { _ = model.title }
        #expect(tracking.calls.count == 0)
        model.title = "Intro"
        #expect(tracking.calls.count == 1)
        // withObservationTracking's onChange is one-shot; a new read re-arms it.
        model.title = "Outro"
        #expect(tracking.calls.count == 1)
        track(tracking) { _ = model.title }
        model.title = "Bridge"
        #expect(tracking.calls.count == 2)
    }

    @Test("onChange runs after the store: it reads the new value, like a key-value handler")
    func onChangeSeesTheStoredValue() {
        let model = Track()
        let tracking = Tracking()
        track(tracking, { _ = model.title }, onChange: { tracking.titlesSeen.append(model.title) })
        model.title = "Stored"
        #expect(tracking.titlesSeen.values == ["Stored"])
    }

    @Test("Only the properties read are tracked")
    func onlyReadPropertiesAreTracked() {
        let model = Track()
        let other = Track()
        let tracking = Tracking()
        track(tracking) { _ = model.title }
        model.rating = 5
        other.title = "Other object"
        #expect(tracking.calls.count == 0)
        model.title = "Read one"
        #expect(tracking.calls.count == 1)
    }

    @Test("A write of an equal value does not fire onChange; a non-Equatable value always does")
    func equalWrites() {
        let model = Track()
        model.title = "Same"
        let tracking = Tracking()
        track(tracking) { _ = model.title }
        model.title = "Same"
        #expect(tracking.calls.count == 0)
        model.title = "Different"
        #expect(tracking.calls.count == 1)

        let opaque = Tracking()
        track(opaque) { _ = model.artwork }
        model.artwork = model.artwork
        #expect(opaque.calls.count == 1)
    }

    @Test("@ObservedArray: reading tracks; assignment and every editor mutation fire onChange")
    func observedArrayIsTracked() {
        let model = Track()
        let mutations: [(String, (Track) -> Void)] = [
            ("assign", { $0.tags = ["a", "b"] }),
            ("append", { $0.$tags.append("c") }),
            ("insert", { $0.$tags.insert("z", at: 0) }),
            ("replace", { $0.$tags[0] = "y" }),
            ("remove", { $0.$tags.remove(at: 0) }),
            ("removeAll", { $0.$tags.removeAll() }),
            ("diffed assign", { $0.items = [Item(id: 1, name: "one")] }),
            ("diffed append", { $0.$items.append(Item(id: 2, name: "two")) }),
        ]
        for (name, mutate) in mutations {
            let tracking = Tracking()
            track(tracking) {
                _ = model.tags
                _ = model.items
            }
            mutate(model)
            #expect(tracking.calls.count == 1, "\(name)")
        }
        // An equal whole assignment changes nothing and fires nothing.
        let tracking = Tracking()
        track(tracking) { _ = model.items }
        model.items = model.items
        #expect(tracking.calls.count == 0)
    }

    @Test("Chained reads track every property on the path")
    func chainedReadsAreTracked() {
        let model = Track()
        let next = Track()
        model.next = next
        let first = Tracking()
        track(first) { _ = model.next?.title }
        next.title = "Inner"
        #expect(first.calls.count == 1)
        let second = Tracking()
        track(second) { _ = model.next?.title }
        model.next = Track()
        #expect(second.calls.count == 1)
    }

    @Test("Key-value observation keeps working alongside, and runs before onChange")
    func keyValueObservationAlongside() {
        let model = Track()
        let order = Recorder<String>()
        let token = model.observe(\.title, options: [.new]) { _, change in
            order.append("handler \(change.newValue ?? "")")
        }
        let tracking = Tracking()
        track(tracking, { _ = model.title }, onChange: { order.append("onChange") })
        model.title = "Both"
        model.title = "Only the handler"
        #expect(order.values == ["handler Both", "onChange", "handler Only the handler"])
        token.invalidate()
    }

    @Test("A write made inside onChange is stored and notified")
    func writeInsideOnChange() {
        let model = Track()
        let seen = Recorder<Int>()
        let token = model.observe(\.rating, options: [.new]) { _, change in seen.append(change.newValue ?? -1) }
        let tracking = Tracking()
        track(tracking, { _ = model.title }, onChange: { model.rating = 7 })
        model.title = "Trigger"
        #expect(model.rating == 7)
        #expect(seen.values == [7])
        token.invalidate()
    }

    @Test("Reads made by observe to evaluate its key path are not Swift Observation accesses")
    func observeDoesNotArm() {
        let model = Track()
        let next = Track()
        model.next = next
        let direct = model.observe(\.rating) { _, _ in }
        let chained = model.observe(\.next?.title) { _, _ in }
        // ... even when observe is called inside a tracking scope: registering is not a read.
        let tracking = Tracking()
        var inside: ObservationToken?
        track(tracking) { inside = model.observe(\.title) { _, _ in } }
        model.title = "Not tracked"
        #expect(tracking.calls.count == 0)
        for token in [direct, chained, inside] {
            token?.invalidate()
        }
    }

    @Test("Concurrent writers and trackers: every tracking armed before a write fires")
    func concurrentTracking() async {
        let model = Track()
        let threads = StressScale.threads
        let rounds = 200
        let armed = Tracking()
        await runOnThreads(threads) { index in
            for round in 0..<rounds {
                if index == 0 {
                    // Thread 0 tracks: each round arms a tracking, then writes; that write must fire it.
                    let tracking = Tracking()
                    track(tracking) { _ = model.rating }
                    model.rating = -(round + 1)
                    if tracking.calls.count == 1 {
                        armed.calls.increment()
                    }
                } else {
                    model.title = "\(index):\(round)"
                    _ = model.title
                }
            }
        }
        #expect(armed.calls.count == rounds)
    }

    @Test("Writes that skip the registrar while nothing tracks do not stop later trackings, nested ones included")
    func trackingAfterUntrackedWrites() {
        let model = Track()
        for round in 0..<3 {
            for index in 0..<5 { model.title = "untracked \(round).\(index)" }
            let outer = Tracking()
            let inner = Tracking()
            track(outer) {
                _ = model.rating
                track(inner) { _ = model.title }
            }
            model.title = "tracked \(round)"
            #expect(inner.calls.count == 1)
            #expect(outer.calls.count == 1, "the inner tracking's reads are the outer's too")
            model.rating = round + 1
            #expect(outer.calls.count == 1)
        }
    }

    @Test("A tracking registered on another thread while this one writes in a loop fires")
    func trackingRegisteredDuringWrites() {
        let model = Track()
        _ = model.rating
        let stop = Atomic(false)
        let writer = Thread {
            var value = 0
            while !stop.load(ordering: .relaxed) {
                value += 1
                model.rating = value
            }
        }
        writer.start()
        for _ in 0..<200 {
            let tracking = Tracking()
            track(tracking) { _ = model.rating }
            while tracking.calls.count == 0 {}
        }
        stop.store(true, ordering: .relaxed)
    }
}

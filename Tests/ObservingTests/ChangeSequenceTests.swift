import Foundation
import Observing
import Synchronization
import TestSupport
import Testing

/// Why `@unchecked Sendable` is safe: every stored property is `@Observed` / `@ObservedArray`, whose
/// values live behind their storage's lock; the wrappers themselves are written only by the initializer.
private final class Song: KeyValueObservable, @unchecked Sendable {
    @Observed var title = ""
    @Observed var rating = 0
    @ObservedArray var items: [Item] = []
    @Observed var next: Song?
}

/// The first `count` elements of `changes` (leaving the loop after them).
private func first<Value>(_ count: Int, of changes: ObservedChanges<Value>) async -> [ObservedChange<Value>] {
    var result: [ObservedChange<Value>] = []
    guard count > 0 else { return result }
    for await change in changes {
        result.append(change)
        if result.count == count {
            break
        }
    }
    return result
}

/// Every element of `changes` until it finishes.
private func all<Value>(of changes: ObservedChanges<Value>) async -> [ObservedChange<Value>] {
    var result: [ObservedChange<Value>] = []
    for await change in changes {
        result.append(change)
    }
    return result
}

@Suite("Changes as an AsyncSequence (O13)")
struct ChangeSequenceTests {
    @Test(
        "The same changes a handler gets, in order, the initial one first",
        arguments: [
            ObservationOptions([.initial, .old, .new]), [.new], [.old], [.prior, .old, .new], [.initial, .prior],
        ])
    func sameChangesAsAHandler(options: ObservationOptions) async {
        let song = Song()
        song.title = "Draft"
        let handled = Recorder<ObservedChange<String>>()
        let token = song.observe(\.title, options: options) { _, change in handled.append(change) }
        let changes = song.changes(for: \.title, options: options)
        for title in ["One", "One", "Two", "Three"] {
            song.title = title
        }
        let expected = handled.values
        #expect(expected.count >= 3)
        #expect(await first(expected.count, of: changes) == expected)
        token.invalidate()
    }

    @Test("@ObservedArray: insertions, removals and replacements with their indexes")
    func collectionChanges() async {
        let song = Song()
        let handled = Recorder<ObservedChange<[Item]>>()
        let token = song.observe(\.items) { _, change in handled.append(change) }
        let changes = song.changes(for: \.items)
        song.$items.append(Item(id: 1, name: "a"))
        song.$items.insert(Item(id: 2, name: "b"), at: 0)
        song.items = [Item(id: 1, name: "A"), Item(id: 3, name: "c")]
        song.$items.remove(at: 0)
        let expected = handled.values
        #expect(expected.map(\.kind) == [.insertion, .insertion, .removal, .insertion, .replacement, .removal])
        #expect(await first(expected.count, of: changes) == expected)
        token.invalidate()
    }

    @Test("Chained key paths: re-targeted like an observation, the same changes")
    func chainedKeyPath() async {
        let song = Song()
        let handled = Recorder<ObservedChange<String?>>()
        let token = song.observe(\.next?.title, options: [.initial, .new]) { _, change in handled.append(change) }
        let changes = song.changes(for: \.next?.title, options: [.initial, .new])
        let next = Song()
        song.next = next
        next.title = "Inner"
        song.next = Song()
        let expected = handled.values
        #expect(expected.count == 4)
        #expect(await first(expected.count, of: changes) == expected)
        token.invalidate()
    }

    @Test("Concurrent writers: every change once, each thread's in its order; the last is the stored value")
    func concurrentWriters() async {
        let song = Song()
        let threads = StressScale.threads
        let perThread = 500
        let changes = song.changes(for: \.rating, options: [.new])
        let consumer = Task { await first(threads * perThread, of: changes) }
        await runOnThreads(threads) { thread in
            for index in 1...perThread {
                song.rating = thread * 1_000_000 + index
            }
        }
        let received = await consumer.value.map { $0.newValue ?? -1 }
        #expect(received.count == threads * perThread)
        #expect(Set(received).count == received.count)
        for thread in 0..<threads {
            let mine = received.filter { $0 / 1_000_000 == thread }
            #expect(mine == (1...perThread).map { thread * 1_000_000 + $0 })
        }
    }

    @Test("Leaving the loop ends the observation: the diagnostics no longer list it")
    func leavingTheLoopEnds() async {
        let song = Song()
        let changes = song.changes(for: \.title, options: [.initial])
        var listed: [String] = []
        for await _ in changes {
            listed = ObservationDiagnostics.liveObservations(of: song).map(\.keyPath)
            break
        }
        #expect(listed == ["\\Song.title"])
        #expect(ObservationDiagnostics.liveObservations(of: song).isEmpty)
        // A chained key path (through `observe`) ends the same way.
        let chained = song.changes(for: \.next?.title, options: [.initial])
        #expect(await first(1, of: chained).count == 1)
        #expect(ObservationDiagnostics.liveObservations(of: song).isEmpty)
    }

    @Test("Cancelling the consuming task ends the observation")
    func cancellingEnds() async {
        let song = Song()
        let received = Recorder<String>()
        let changes = song.changes(for: \.title, options: [.initial, .new])
        let consumer = Task {
            for await change in changes {
                received.append(change.newValue ?? "")
            }
        }
        // The initial value arrives once the loop runs: then it is waiting for the next change.
        while received.values.isEmpty {
            await Task.yield()
        }
        #expect(ObservationDiagnostics.liveObservations(of: song).count == 1)
        consumer.cancel()
        await consumer.value
        #expect(ObservationDiagnostics.liveObservations(of: song).isEmpty)
        song.title = "After"
        #expect(received.values == [""])
    }

    @Test("A sequence released without being iterated ends its observation")
    func releasedUnIterated() {
        let song = Song()
        do {
            let direct = song.changes(for: \.title)
            let chained = song.changes(for: \.next?.title)
            #expect(ObservationDiagnostics.liveObservations(of: song).count == 2)
            withExtendedLifetime((direct, chained)) {}
        }
        #expect(ObservationDiagnostics.liveObservations(of: song).isEmpty)
    }

    @Test(
        "The object going away finishes the sequence after the buffered changes; it is never retained",
        arguments: [false, true])
    func objectGoingAwayFinishes(throughComputedProperty: Bool) async {
        weak var gone: Song?
        let changes: ObservedChanges<String?>
        do {
            let song = Song()
            song.next = Song()
            gone = song
            changes =
                throughComputedProperty
                ? song.changes(for: \.next?.title.description) : song.changes(for: \.next?.title)
            song.next?.title = "Last"
        }
        #expect(gone == nil)
        #expect(await all(of: changes).map { $0.newValue ?? nil } == ["Last"])
    }

    @Test("A direct key path finishes when its object goes away, also while the loop waits")
    func directFinishesWhileWaiting() async {
        weak var gone: Song?
        var song: Song? = Song()
        gone = song
        let changes = song!.changes(for: \.title, options: [.initial, .new])
        let received = Recorder<String>()
        let consumer = Task {
            for await change in changes {
                received.append(change.newValue ?? "")
            }
            return received.values
        }
        while received.values.isEmpty {
            await Task.yield()
        }
        song?.title = "Before"
        song = nil
        // A test running in parallel may be reading `ObservationDiagnostics`, which holds each observed object for
        // the moment it takes to tell whether it still exists (as its documentation says): then the object goes on
        // that thread, moments later (seen once under ThreadSanitizer). The sequence itself never retains it.
        let deadline = ContinuousClock.now + .seconds(2)
        while gone != nil, ContinuousClock.now < deadline { await Task.yield() }
        #expect(gone == nil)
        #expect(await consumer.value == ["", "Before"])
    }

    @Test("Buffering policies: unbounded keeps all, bufferingOldest the first, bufferingNewest the last")
    func bufferingPolicies() async {
        let expectations: [(ChangeBufferingPolicy, [Int])] = [
            (.unbounded, [1, 2, 3, 4]), (.bufferingOldest(2), [1, 2]), (.bufferingNewest(2), [3, 4]),
            (.bufferingNewest(0), []),
        ]
        for (policy, expected) in expectations {
            let changes: ObservedChanges<Int>
            do {
                let song = Song()
                changes = song.changes(for: \.rating, options: [.new], bufferingPolicy: policy)
                for rating in 1...4 {
                    song.rating = rating
                }
            }
            // The song is gone: the sequence yields what its buffer kept, then finishes.
            #expect(await all(of: changes).map { $0.newValue ?? -1 } == expected, "\(policy)")
        }
    }

    @Test("A key path that reads no @Observed property yields its initial value and finishes")
    func unobservableKeyPath() async {
        let song = Song()
        let issues = Recorder<String>()
        // The handler sees every thread's issues, and other suites run in parallel: count this model's only.
        let handler = ObservationDiagnostics.addIssueHandler { issue in
            // Only this file's Song has a key path that reads nothing.
            if case .unobservableKeyPath(let type, _) = issue, type.hasSuffix("Song") {
                issues.append(issue.description)
            }
        }
        let changes = song.changes(for: \.unobservable, options: [.initial, .new])
        #expect(await all(of: changes).map(\.newValue) == [42])
        #expect(issues.values.count == 1)
        handler.invalidate()
    }
}

extension Song {
    fileprivate var unobservable: Int { 42 }
}

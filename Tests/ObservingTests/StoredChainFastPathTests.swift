import Foundation
import Observing
import Synchronization
import TestSupport
import Testing

/// Models for the fast path of a path of stored properties: a change of the last property, delivered by its storage to
/// the chain's leaf link, is sent without evaluating the path while the properties before it keep their versions.
private final class Chapter: KeyValueObservable, @unchecked Sendable {
    // Why `@unchecked Sendable` is safe: every stored property is `@Observed` (its value lives behind its lock).
    @Observed var heading: String
    @ObservedArray var notes: [String] = []

    init(_ heading: String) { self.heading = heading }
}

private final class Volume: KeyValueObservable, @unchecked Sendable {
    // Why `@unchecked Sendable` is safe: every stored property is `@Observed`.
    @Observed var chapter: Chapter
    @Observed var name: String

    init(_ name: String, chapter: String = "c") {
        self.name = name
        self.chapter = Chapter(chapter)
    }
}

private final class Archive: KeyValueObservable, @unchecked Sendable {
    // Why `@unchecked Sendable` is safe: the only stored property is `@Observed`.
    @Observed var volume: Volume

    init(_ volume: Volume) { self.volume = volume }
}

@Suite("Chains of stored properties: the fast path of the last property's changes")
struct StoredChainFastPathTests {
    @Test("after a middle is replaced, the new last property's changes carry the right old values")
    func oldValuesAfterRetargeting() {
        let library = Archive(Volume("v", chapter: "a"))
        let seen = Recorder<String>()
        let token = library.observe(\.volume.chapter.heading, options: [.old, .new]) { _, change in
            seen.append("\(change.oldValue!)->\(change.newValue!)")
        }
        library.volume.chapter.heading = "b"
        let detached = library.volume.chapter
        library.volume.chapter = Chapter("c")
        detached.heading = "ignored"
        library.volume.chapter.heading = "d"
        let detachedVolume = library.volume
        library.volume = Volume("w", chapter: "e")
        detachedVolume.chapter.heading = "ignored too"
        library.volume.chapter.heading = "f"
        library.volume.chapter.heading = "f"
        #expect(seen.values == ["a->b", "b->c", "c->d", "d->e", "e->f"])
        token.invalidate()
    }

    @Test("a collection change of the last property reports the whole new value, not the changed elements")
    func collectionChangeOfTheLastProperty() {
        let volume = Volume("v")
        let seen = Recorder<[String]>()
        let token = volume.observe(\.chapter.notes, options: [.new]) { _, change in seen.append(change.newValue!) }
        volume.chapter.$notes.append("x")
        volume.chapter.$notes.append("y")
        volume.chapter.$notes.remove(at: 0)
        volume.chapter.notes = ["z"]
        #expect(seen.values == [["x"], ["x", "y"], ["y"], ["z"]])
        token.invalidate()
    }

    @Test("a prior notification comes before each change of the last property, with the old value")
    func priorNotification() {
        let volume = Volume("v", chapter: "a")
        let seen = Recorder<String>()
        let token = volume.observe(\.chapter.heading, options: [.prior, .old, .new]) { _, change in
            seen.append("\(change.isPrior ? "prior" : "change") \(change.oldValue ?? "-") \(change.newValue ?? "-")")
        }
        volume.chapter.heading = "b"
        #expect(seen.values == ["prior a -", "change a b"])
        token.invalidate()
    }

    @Test("the root going away leaves the last property's changes undelivered, though its object lives on")
    func rootGoneWhileTheLastObjectLives() {
        let chapter = Chapter("a")
        let calls = CallCounter()
        let token: ObservationToken
        do {
            let volume = Volume("v")
            volume.chapter = chapter
            token = volume.observe(\.chapter.heading) { _, _ in calls.increment() }
            chapter.heading = "b"
            #expect(calls.count == 1)
        }
        chapter.heading = "c"
        #expect(calls.count == 1)
        #expect(!token.isActive)
        token.invalidate()
    }

    @Test("a handler ending its own observation from a change of the last property: no further call")
    func handlerEndsItsObservation() {
        let volume = Volume("v")
        let calls = CallCounter()
        let holder = Protected<ObservationToken?>(nil)
        let token = volume.observe(\.chapter.heading) { _, _ in
            calls.increment()
            holder.withLock { $0 }?.invalidate()
        }
        holder.withLock { $0 = token }
        volume.chapter.heading = "b"
        volume.chapter.heading = "c"
        #expect(calls.count == 1)
    }

    /// Changes of the last property (the fast path) on several threads while the middle is replaced by yet another:
    /// each call's old value is the previous call's new value (one chain ticket order for both paths), no value is
    /// reported twice in a row, and the last call reports the path's final value.
    @Test("the last property written on several threads while the middle is replaced: consistent, in order")
    func lastPropertyWritersRacingMiddleReplacements() async {
        let volume = Volume("v", chapter: "start")
        let log = Protected<[ObservedChange<String>]>([])
        let token = volume.observe(\.chapter.heading, options: [.old, .new]) { _, change in
            log.withLock { $0.append(change) }
        }
        let writers = max(StressScale.threads - 1, 1)
        let rounds = 2_000
        await runOnThreads(writers + 1) { index in
            if index == writers {
                for round in 0..<rounds / 4 {
                    volume.chapter = Chapter("chapter \(round)")
                }
                return
            }
            for round in 0..<rounds {
                volume.chapter.heading = "\(index):\(round)"
            }
        }
        volume.chapter.heading = "final"
        let changes = log.withLock { $0 }
        #expect(changes.last?.newValue == "final")
        #expect(changes.first?.oldValue == "start")
        var previous = "start"
        var broken = 0
        for change in changes {
            if change.oldValue != previous || change.newValue == change.oldValue {
                broken += 1
            }
            previous = change.newValue ?? "-"
        }
        #expect(broken == 0, "\(broken) of \(changes.count) calls did not follow the one before")
        token.invalidate()
    }

    /// Threads write the last property while another observes the chain and invalidates it: no handler call may
    /// start after `invalidate()` returned (O7), on the fast path as on the others. Bounded like the stress test.
    @Test("fast-path changes racing invalidate: no call starts after invalidate returns")
    func noCallStartsAfterInvalidate() async {
        let volume = Volume("v")
        let (violations, deliveries) = await invalidateRacingWriters(
            write: { volume.chapter.heading = "\($0)" },
            observe: { called in volume.observe(\.chapter.heading) { _, _ in called() } })
        #expect(violations == 0, "\(violations) handler calls started after invalidate() returned")
        #expect(deliveries > 0)
    }

    @Test("diagnostics name a path of stored properties from its links, before and after its middle is replaced")
    func diagnosticsNameThePath() {
        let volume = Volume("v")
        let token = volume.observe(\.chapter.heading) { _, _ in }
        #expect(ObservationDiagnostics.liveObservations(of: volume).map(\.keyPath) == ["\\Volume.chapter.heading"])
        volume.chapter = Chapter("other")
        volume.chapter.heading = "changed"
        #expect(ObservationDiagnostics.liveObservations(of: volume).map(\.keyPath) == ["\\Volume.chapter.heading"])
        token.invalidate()
        #expect(ObservationDiagnostics.liveObservations(of: volume).isEmpty)
    }

    /// The observation and the objects on the path are freed once the token goes, with leaf links made and dropped by
    /// re-targeting along the way (a leaf link holds its observation strongly).
    @Test("everything is freed after re-targeting and invalidating")
    func everythingFreed() {
        let tracker = LifetimeTracker()
        do {
            let library = tracker.watch(Archive(tracker.watch(Volume("v"))))
            let token = tracker.watch(library.observe(\.volume.chapter.heading) { _, _ in })
            library.volume.chapter.heading = "a"
            library.volume.chapter = tracker.watch(Chapter("b"))
            library.volume = tracker.watch(Volume("w"))
            library.volume.chapter.heading = "c"
            token.invalidate()
        }
        tracker.expectAllFreed()
    }
}

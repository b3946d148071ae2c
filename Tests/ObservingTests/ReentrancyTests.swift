import Observing
import Testing

/// O8: a change made inside a handler is stored at once and notified after that handler returns, in
/// order, never by recursion; a cycle that does not settle is stopped and reported.
@Suite struct ReentrancyTests {
    @Test func writeBackIsStoredAtOnceAndDeliveredAfterTheHandlerReturns() {
        let counter = Counter()
        let log = Recorder<String>()
        let token = counter.observe(\.value, options: [.old, .new]) { counter, change in
            log.append("enter \(change.oldValue!)->\(change.newValue!)")
            if change.newValue! < 3 {
                counter.value = change.newValue! + 1
                log.append("stored \(counter.value)")
            }
            log.append("leave \(change.newValue!)")
        }
        counter.value = 1
        #expect(
            log.values == [
                "enter 0->1", "stored 2", "leave 1",
                "enter 1->2", "stored 3", "leave 2",
                "enter 2->3", "leave 3",
            ])
        #expect(counter.value == 3)
        token.invalidate()
    }

    @Test func everyObserverSeesTheChangesInStoreOrder() {
        let counter = Counter()
        let log = Recorder<String>()
        let writer = counter.observe(\.value) { counter, change in
            log.append("writer \(change.newValue!)")
            if change.newValue! == 1 {
                counter.value = 2
            }
        }
        let reader = counter.observe(\.value) { counter, change in
            log.append("reader \(change.newValue!) stored \(counter.value)")
        }
        counter.value = 1
        #expect(log.values == ["writer 1", "reader 1 stored 2", "writer 2", "reader 2 stored 2"])
        writer.invalidate()
        reader.invalidate()
    }

    @Test func reentrantPriorComesAfterTheStoreWithTheOldValue() {
        let counter = Counter()
        let log = Recorder<String>()
        let writer = counter.observe(\.label) { counter, _ in
            counter.value = 5
            log.append("wrote, value now \(counter.value)")
        }
        let prior = counter.observe(\.value, options: [.prior, .old, .new]) { counter, change in
            log.append("\(change.isPrior ? "prior" : "change") old=\(change.oldValue!) stored=\(counter.value)")
        }
        counter.label = "go"
        #expect(log.values == ["wrote, value now 5", "prior old=0 stored=5", "change old=0 stored=5"])
        writer.invalidate()
        prior.invalidate()
    }

    @Test func writesToOtherObjectsAreQueuedToo() {
        let source = Counter()
        let target = Counter()
        let log = Recorder<String>()
        let forward = source.observe(\.value) { _, change in
            target.value = change.newValue! * 10
            log.append("forwarded \(change.newValue!)")
        }
        let watch = target.observe(\.value) { _, change in log.append("target \(change.newValue!)") }
        source.value = 1
        source.value = 2
        #expect(log.values == ["forwarded 1", "target 10", "forwarded 2", "target 20"])
        forward.invalidate()
        watch.invalidate()
    }

    @Test func cycleThatNeverSettlesIsStoppedAndReported() {
        let counter = Counter()
        let reports = Recorder<ObservationIssue>()
        let id = ObjectIdentifier(counter)
        let issues = ObservationDiagnostics.addIssueHandler { issue in
            if case .unsettledCycle(let source, _) = issue, source.objectIdentifier == id {
                reports.append(issue)
            }
        }
        let calls = CallCounter()
        let token = counter.observe(\.value) { counter, _ in
            calls.increment()
            counter.value += 1
        }
        counter.value = 1
        let rounds = ObservationDiagnostics.maximumRounds
        #expect(calls.count == rounds + 1)
        #expect(counter.value == rounds + 2)
        #expect(reports.values.count == 1)
        if case .unsettledCycle(let source, let reported) = reports.values.first {
            #expect(reported == rounds)
            #expect(source.keyPath == "\\Counter.value")
            #expect(source.description.contains("Counter"))
        }
        // The thread is usable again: the next change is delivered normally.
        token.invalidate()
        let seen = Recorder<Int>()
        let after = counter.observe(\.value) { _, change in seen.append(change.newValue!) }
        counter.value = -1
        #expect(seen.values == [-1])
        after.invalidate()
        issues.invalidate()
    }

    @Test func pingPongBetweenTwoObjectsIsStopped() {
        let left = Counter()
        let right = Counter()
        let reports = CallCounter()
        let ids = [ObjectIdentifier(left), ObjectIdentifier(right)]
        let issues = ObservationDiagnostics.addIssueHandler { issue in
            if case .unsettledCycle(let source, _) = issue, ids.contains(source.objectIdentifier) {
                reports.increment()
            }
        }
        let a = left.observe(\.value) { _, change in right.value = change.newValue! + 1 }
        let b = right.observe(\.value) { _, change in left.value = change.newValue! + 1 }
        left.value = 1
        #expect(reports.count == 1)
        #expect(left.value + right.value > ObservationDiagnostics.maximumRounds)
        a.invalidate()
        b.invalidate()
        issues.invalidate()
    }

    @Test func deepButFiniteChainIsNotStopped() {
        let counter = Counter()
        let calls = CallCounter()
        let limit = ObservationDiagnostics.maximumRounds
        let token = counter.observe(\.value) { counter, change in
            calls.increment()
            if change.newValue! < limit {
                counter.value = change.newValue! + 1
            }
        }
        counter.value = 1
        #expect(counter.value == limit)
        #expect(calls.count == limit)
        token.invalidate()
    }

    @Test func observingInsideAHandlerSendsInitialAtOnce() {
        let counter = Counter()
        let log = Recorder<String>()
        let inner = Recorder<ObservationToken>()
        let outer = counter.observe(\.value) { counter, change in
            log.append("outer \(change.newValue!)")
            inner.append(
                counter.observe(\.label, options: [.initial, .new]) { _, change in
                    log.append("inner \(change.newValue!)")
                })
            log.append("outer done")
        }
        counter.value = 1
        counter.label = "x"
        #expect(log.values == ["outer 1", "inner ", "outer done", "inner x"])
        outer.invalidate()
        for token in inner.values { token.invalidate() }
    }
}

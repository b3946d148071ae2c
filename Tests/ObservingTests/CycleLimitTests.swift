import Foundation
import Observing
import Testing

/// The cycle limit is the one in force where the cycle runs: a limit another thread sets for its own work (a test
/// running in parallel) does not cut this thread's cycle short.
@Suite struct CycleLimitTests {
    @Test func aLimitSetOnAnotherThreadDoesNotStopThisThreadsCycleEarly() {
        let entered = DispatchSemaphore(value: 0)
        let leave = DispatchSemaphore(value: 0)
        // What a test running in parallel did; with a global setting, this thread's cycle stopped at a sum of 9.
        let other = Thread {
            ObservationDiagnostics.withMaximumRounds(3) {
                entered.signal()
                leave.wait()
            }
        }
        other.start()
        entered.wait()
        let left = Counter()
        let right = Counter()
        let a = left.observe(\.value) { _, change in right.value = change.newValue! + 1 }
        let b = right.observe(\.value) { _, change in left.value = change.newValue! + 1 }
        let issues = ObservationDiagnostics.addIssueHandler { _ in }
        left.value = 1
        leave.signal()
        #expect(left.value + right.value > 100, "stopped after \(left.value + right.value)")
        #expect(ObservationDiagnostics.maximumRounds == 100)
        a.invalidate()
        b.invalidate()
        issues.invalidate()
    }

    @Test func aScopedLimitStopsTheCyclesStartedInIt() {
        let counter = Counter()
        let calls = CallCounter()
        let token = counter.observe(\.value) { counter, _ in
            calls.increment()
            counter.value += 1
        }
        let issues = ObservationDiagnostics.addIssueHandler { _ in }
        ObservationDiagnostics.withMaximumRounds(3) { counter.value = 1 }
        #expect(calls.count == 4, "rounds 0 to 3")
        token.invalidate()
        issues.invalidate()
    }
}

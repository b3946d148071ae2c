import Foundation
import Observation
import Observing
import Testing

/// The Swift Observation and async sequence examples of Docs/Observing.md, kept compiling and checked.
@Suite struct ObservationDocsExampleTests {
    final class Take: KeyValueObservable {
        @Observed var title = ""
        @Observed var duration = 0.0
        @ObservedArray var markers: [Double] = []
    }

    /// Swift Observation's `onChange` comes after the key-value handlers of a write made outside any handler, and before
    /// them inside a transaction (whose key-value notifications wait for its end), as Docs/Observing.md says.
    @Test func onChangeOrderAgainstTheKeyValueHandlers() {
        let take = Take()
        let order = Recorder<String>()
        let token = take.observe(\.title) { _, _ in order.append("handler") }
        withObservationTracking {
            _ = take.title
        } onChange: {
            order.append("onChange")
        }
        take.title = "a"
        withObservationTracking {
            _ = take.title
        } onChange: {
            order.append("onChange")
        }
        withObservationTransaction { take.title = "b" }
        #expect(order.values == ["handler", "onChange", "onChange", "handler"])
        token.invalidate()
    }

    @Test func swiftObservationExample() {
        let printed = Recorder<String>()
        let take = Take()
        withObservationTracking {
            printed.append("\(take.title) \(take.markers.count)")
        } onChange: {
            printed.append("re-render")
        }
        take.duration = 12
        #expect(printed.values == [" 0"])
        take.$markers.append(3.5)
        #expect(printed.values == [" 0", "re-render"])
    }

    final class Session: KeyValueObservable {
        @Observed var elapsed = 0
        @Observed var isRecording = false
    }

    /// `showElapsed(of:)` of the page, printing into `printed`.
    func showElapsed(of session: Session, into printed: Recorder<String>) async {
        for await change in session.changes(for: \.elapsed, options: [.initial, .new]) {
            printed.append("elapsed: \(change.newValue!)")
            if change.newValue! >= 3 {
                break
            }
        }
    }

    @Test func asyncSequenceExample() async {
        let printed = Recorder<String>()
        let session = Session()
        for second in 1...4 {
            session.elapsed = second
        }
        // The loop starts after the writes: its initial value is the current one, 4, which ends it.
        await showElapsed(of: session, into: printed)
        #expect(printed.values == ["elapsed: 4"])
        #expect(ObservationDiagnostics.liveObservations(of: session).isEmpty)
    }
}

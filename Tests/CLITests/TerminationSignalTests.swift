import Foundation
import Testing

/// `TerminationSignals` handles a signal sent the moment it is made, before Dispatch listens for it: the tools make it
/// just before their job starts writing, so a signal lost there leaves a tool running to the end of a job it was told
/// to stop (seen as a composition that ran on after SIGTERM).
@Suite("Termination signals: none is lost")
struct TerminationSignalTests {
    @Test func signalSentTheMomentTheHandlingStartsIsHandled() throws {
        let run = try RawProcess(try BuiltBinary("signal-probe").url, [Array("200".utf8)]).wait(killingAfter: 60)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.outputLines == ["signal-probe: 200 of 200 signals handled"])
    }
}

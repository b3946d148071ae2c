import Foundation
import TestSupport
import Testing

/// The runner every CLI test waits on: it must return whatever the process does, so a hung tool fails its test.
@Suite("The tests' subprocess runner")
struct SubprocessRunnerTests {
    @Test("a process that outlives its limit is killed and reported as killed")
    func killsAProcessPastItsLimit() throws {
        let started = ContinuousClock.now
        let result = try runSubprocess(URL(fileURLWithPath: "/bin/sleep"), ["60"], limit: 1)
        #expect(result.status == SIGKILL, "ended by SIGKILL: \(result.status)")
        #expect(ContinuousClock.now - started < .seconds(50), "returned when killed, not when the process would end")
    }

    @Test("output, errors and status come back whole; input reaches the process")
    func returnsWhatTheProcessPrinted() throws {
        let result = try runSubprocess(
            URL(fileURLWithPath: "/bin/sh"), ["-c", "cat; printf 'e%.0s' $(seq 100000) >&2; exit 3"],
            input: Data("in".utf8))
        #expect(result.status == 3)
        #expect(result.outputText == "in")
        #expect(result.errors.count == 100_000, "standard error read whole while standard output was read")
    }
}

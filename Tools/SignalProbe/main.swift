// signal-probe: checks that a termination signal sent the moment `TerminationSignals` is made is not lost.
// A development tool, and the subject of CLITests' signal test: `swift run signal-probe [ROUNDS]`.
// In each round it makes a `TerminationSignals`, sends itself SIGTERM at once (before Dispatch may be listening), and
// waits up to ten seconds for the handler. Exit codes: 0 when every signal was handled, 1 when one was lost, 2 usage.
import CommandLineSupport
import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count <= 1, let rounds = Int(arguments.first ?? "1"), rounds > 0 else {
    Terminal.printError("usage: signal-probe [ROUNDS]")
    exit(2)
}
for round in 1...rounds {
    let handled = DispatchSemaphore(value: 0)
    let signals = TerminationSignals { handled.signal() }
    kill(getpid(), SIGTERM)
    guard handled.wait(timeout: .now() + 10) == .success, signals.exitStatus == 143 else {
        Terminal.printError("signal-probe: round \(round): SIGTERM sent after TerminationSignals was made was lost")
        exit(1)
    }
    signals.stop()
}
Terminal.printLine("signal-probe: \(rounds) of \(rounds) signals handled")

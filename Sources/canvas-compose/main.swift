// canvas-compose: composes takes into one MP4 (Docs/Composition.md). Thin: parse, call Composition, print.
// Exit codes: 0 written, 1 failed (nothing written), 2 usage, 130 or 143 stopped by SIGINT or SIGTERM.
import CommandLineSupport
import Composition
import Foundation
import Locking
import OrderedJSON
import Synchronization

// A file-size limit (`ulimit -f`) makes the output's write fail with EFBIG, a one-line error with the temporary file
// removed, instead of SIGXFSZ ending the process and leaving the temporary file behind.
signal(SIGXFSZ, SIG_IGN)

let options: Options
let plan: CompositionPlan
do {
    options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
    if options.help {
        Terminal.printLine(Options.usage)
        exit(0)
    }
    if options.version {
        Terminal.printLine(ToolVersion.line(for: "canvas-compose"))
        exit(0)
    }
    plan = try options.plan()
} catch {
    Terminal.printError("canvas-compose: \(error.message)")
    Terminal.printError("run 'canvas-compose --help' for usage")
    exit(2)
}

let output = URL(fileURLWithPath: options.output!)
/// The progress line, made at the first report (when the frame count is known).
let line = LockedValue<ProgressLine?>(nil)
/// When the composition began (opening the takes included): what the progress line's rate counts from.
let began = ContinuousClock.now
let done = DispatchSemaphore(value: 0)
let outcome = LockedValue<Result<CompositionResult, CompositionError>?>(nil)
// Ctrl-C and SIGTERM cancel: the composition stops at its next frame, leaves nothing behind, and the tool ends with
// the shell's status for the signal (130, 143). Handled before the composition starts (its temporary file may appear
// at once): a signal that comes before the job exists cancels it as soon as it does.
let job = LockedValue<CompositionJob?>(nil)
let signals = TerminationSignals { job.withLock { $0 }?.cancel() }
let started = Composer().compose(
    plan, to: output,
    progress: { progress in
        line.withLock { line in
            if line == nil { line = ProgressLine(total: progress.frameCount, start: began) }
            line?.update(done: progress.frame, failed: 0)
        }
    },
    completion: { result in
        outcome.withLock { $0 = result }
        done.signal()
    })
job.withLock { $0 = started }
if signals.exitStatus != nil { started.cancel() }
done.wait()
line.withLock { $0?.finish() }
if case .failure = outcome.withLock({ $0 })!, let status = signals.exitStatus {
    Terminal.printError("canvas-compose: cancelled, nothing written")
    exit(status)
}

switch outcome.withLock({ $0 })! {
case .success(let result):
    if options.json {
        var object = JSONLine()
        object.add("output", .string(result.output.path))
        object.add("duration", .double(result.duration))
        object.add("frames", .int(result.frameCount))
        object.add("seconds", .double(result.secondsTaken))
        object.add("error", .null)
        Terminal.printLine(object.description)
    }
    exit(0)
case .failure(let error):
    Terminal.printError("canvas-compose: \(error.description)")
    if options.json {
        var object = JSONLine()
        object.add("output", .string(output.path))
        object.add("error", .string(error.description))
        Terminal.printLine(object.description)
    }
    exit(1)
}

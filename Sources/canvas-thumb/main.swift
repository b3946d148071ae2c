// canvas-thumb: writes one cover per input video (Docs/canvas-thumb.md). Thin: parse, call Thumbnails
// (CoverInputs, CoverBatchPlan, CoverBatch, CoverBatchReporter), print. Exit codes: 0 all written, 1 some
// failed (the others are written), 2 usage.
import CommandLineSupport
import CoverBatch
import Foundation
import Synchronization
import Thumbnails

/// The first argument that makes this process a batch's worker (see Docs/canvas-thumb.md): the
/// rest is the command line of the batch that started it, read for its options only.
let workerFlag = Array("--cover-worker".utf8)

/// The arguments' exact bytes: a file name need not be UTF-8, and `CommandLine.arguments` would
/// replace what is not.
let rawArguments: [[UInt8]] = (0..<Int(CommandLine.argc)).map { index in
    guard let argument = CommandLine.unsafeArgv[index] else { return [] }
    return Array(
        UnsafeBufferPointer(
            start: UnsafeRawPointer(argument).assumingMemoryBound(to: UInt8.self),
            count: strlen(argument)))
}
let isWorker = rawArguments.count > 1 && rawArguments[1] == workerFlag

// A file-size limit (`ulimit -f`) makes write(2) fail with EFBIG, reported as a write error naming the input and the
// output with the temporary file removed, instead of SIGXFSZ ending the process with nothing said. Ignored signals stay
// ignored in the worker processes (forked or started anew).
signal(SIGXFSZ, SIG_IGN)

let options: Options
do {
    options = try Options.parse(bytes: Array(rawArguments.dropFirst(isWorker ? 2 : 1)))
} catch {
    Terminal.printError("canvas-thumb: \(error.message)")
    Terminal.printError("run 'canvas-thumb --help' for usage")
    exit(2)
}
if options.help {
    Terminal.printLine(Options.usage)
    exit(0)
}
if options.version {
    Terminal.printLine(ToolVersion.line(for: "canvas-thumb"))
    exit(0)
}

let format: CoverImageFormat = options.format == .jpeg ? .jpeg(quality: options.quality ?? 85) : .png
var coverOptions = CoverOptions(maximumSize: PixelSize(width: options.maximumWidth, height: options.maximumHeight))
switch options.time {
case .seconds(let seconds): coverOptions.time = .seconds(seconds)
case .percent(let percent): coverOptions.time = .fraction(percent / 100)
}
if options.exact { coverOptions = coverOptions.exact() }
coverOptions.skipsDarkFrames = options.skipDark
coverOptions.allowsPlaylists = options.allowPlaylists

if isWorker {
    do {
        try CoverWorker.serve(options: coverOptions, format: format)
        exit(0)
    } catch {
        Terminal.printError("canvas-thumb: \(error.reason)")
        exit(2)
    }
}

if case .standardOutput = options.output {
    // `-o -`: the cover's bytes on standard output, nothing else there; a failure is one line on standard error.
    do {
        let cover = try CoverGenerator().makeCover(forFileAt: options.inputs[0], options: coverOptions)
        let data = try cover.encoded(as: format)
        guard Terminal.writeAll(data, to: STDOUT_FILENO) else {
            Terminal.printError(
                "canvas-thumb: \(options.inputs[0].escaped): cannot write its cover to standard output: "
                    + String(cString: strerror(errno)))
            exit(1)
        }
        for warning in cover.warnings { Terminal.printError("canvas-thumb: \(options.inputs[0].escaped): \(warning)") }
        exit(0)
    } catch {
        Terminal.printError("canvas-thumb: \(error.reason)")
        exit(1)
    }
}

let outputFolder: FileSystemPath? =
    switch options.output {
    case .directory(let folder): folder
    case .file(let file): file.directory
    case .standardOutput: nil
    }
let expansion = CoverInputs.expand(options.inputs, skippingCoversIn: outputFolder)
let inputs = expansion.files
guard !inputs.isEmpty || !expansion.unreadable.isEmpty else {
    for file in expansion.skipped { Terminal.printError("canvas-thumb: skipped: \(file.reason)") }
    Terminal.printError(
        "canvas-thumb: no video or picture found in \(options.inputs.map(\.escaped).joined(separator: " "))")
    exit(2)
}

let jobs: [CoverJob]
do {
    let destination: CoverDestination =
        switch options.output {
        case .file(let path): .file(path)
        case .directory(let path): .directory(path)
        case .standardOutput: preconditionFailure("handled above")
        }
    jobs = try CoverBatchPlan.jobs(
        for: inputs, arguments: options.inputs, destination: destination, fileExtension: format.pathExtension)
} catch {
    Terminal.printError("canvas-thumb: \(error.message)")
    exit(2)
}

/// SIGINT and SIGTERM end the run at once with 130 or 143, leaving no hidden partial file: the worker processes are
/// killed and waited for, and the temporary file of every cover not finished is removed. Handled from the moment the
/// batch starts: a batch in worker processes forks its first workers before (a fork needs a single thread, and the
/// handling runs on threads of its own).
var signals: TerminationSignals?
@MainActor func handleSignals() {
    signals = TerminationSignals(endingAfter: { _ in
        CoverBatch.abandon()
        Terminal.printError("canvas-thumb: cancelled, the covers not finished were not written")
    })
}

// A batch's work is covers (and so is a worker's, which inherits this or sets it itself): what one cover frees stays
// for the next instead of being mapped, faulted in and zeroed again (Docs/canvas-thumb.md, "Memory between covers").
// A single cover has no next one, and runs with glibc's defaults.
if jobs.count > 1 { CoverMemory.keepFreedMemory() }

// The progress line stays drawn while results are printed: a line for the terminal is written above it, which is
// redrawn at once; a line for a file or a pipe leaves it alone.
let progress = ProgressLine(total: jobs.count)
let reporter = CoverBatchReporter(programName: "canvas-thumb", json: options.json, walked: expansion.walked) { event in
    switch event {
    case .output(let line): progress.printOutput(line)
    case .error(let line): progress.printError(line)
    case .progress(let done, let failed): progress.update(done: done, failed: failed)
    }
}
for entry in expansion.unreadable { reporter.report(unreadable: entry) }
for file in expansion.skipped { reporter.report(skipped: file) }
if let asked = options.jobs, asked > CoverBatch.maximumConcurrency, jobs.count > 1 {
    Terminal.printError(
        "canvas-thumb: warning: --jobs \(asked) is capped at \(CoverBatch.maximumConcurrency) "
            + "(each running input holds a decoder and its frames)")
}
let concurrency = options.jobs ?? ProcessInfo.processInfo.activeProcessorCount
// `--timeout 0` is no limit (and beyond 30 years is none either).
let timeout: Duration? =
    options.timeout.map { $0 > 0 ? .milliseconds(Int64((min($0, 1e9) * 1000).rounded(.up))) : nil }
    ?? CoverBatch.defaultTimeout
// Several inputs run in worker processes, so that a crash inside FFmpeg costs one input, not the
// batch; a single input runs here (no other input to protect, and no second start-up to pay).
// CANVAS_THUMB_ISOLATION=threads runs a batch on threads of this process instead (to measure
// what the isolation costs).
if jobs.count > 1, ProcessInfo.processInfo.environment["CANVAS_THUMB_ISOLATION"] != "threads" {
    // A worker started anew reads its options from this command line; the first ones, forked from this process
    // (which has one thread until the batch starts), are handed them.
    let command = CoverWorkerCommand.currentExecutable(
        arguments: [rawArguments[0], workerFlag] + rawArguments.dropFirst(),
        serving: CoverWorkerCommand.Serving(options: coverOptions, format: format))
    // Signals are handled from the moment the first workers are forked (on this thread, before the batch's threads).
    let started = { MainActor.assumeIsolated { handleSignals() } }
    let report: @Sendable (CoverJobResult) -> Void = { reporter.report($0) }
    CoverBatch.run(jobs, concurrency: concurrency, workers: command, timeout: timeout, started: started, report: report)
} else if jobs.count == 1 {
    // Decoded here, so a crash or a read that never returns would end this process with nothing
    // said: the input's line (JSON or text) is prepared now, and a crash signal prints it and
    // exits 1, as a batch reports an input whose worker crashed; a timeout prints its own line.
    let job = jobs[0]
    func lastLine(_ error: CoverJobError) -> (descriptor: Int32, text: String) {
        // A failure is one line: JSON on standard output, or `canvas-thumb: REASON` on standard error.
        switch reporter.events(for: CoverJobResult(index: 0, job: job, result: .failure(error))).first {
        case .output(let line): (STDOUT_FILENO, line)
        case .error(let line): (STDERR_FILENO, line)
        case .progress, nil: (STDERR_FILENO, "canvas-thumb: \(error.reason)")
        }
    }
    let crashDescriptor = lastLine(.crashed(job.input, signal: SIGSEGV)).descriptor
    LastLine.prepare(LastLine.crashSignals, descriptor: crashDescriptor, status: 1) { signal in
        lastLine(.crashed(job.input, signal: signal)).text
    }
    // The time limit is kept here, on the main thread, while a thread of its own makes the cover:
    // past it the prepared line is written and the process ends at once (`_exit`: no clean-up may
    // run while that thread is still inside FFmpeg). Whichever comes first, the result or the
    // deadline, claims the input's one line.
    let claimed = OneLine()
    let finished = DispatchSemaphore(value: 0)
    handleSignals()
    let singleOptions = coverOptions
    Thread {
        CoverBatch.run(jobs, options: singleOptions, format: format, concurrency: 1) { result in
            LastLine.clear()
            if claimed.claim() { reporter.report(result) }
        }
        finished.signal()
    }.start()
    let deadline: DispatchTime =
        timeout.map { .now() + Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18 }
        ?? .distantFuture
    if finished.wait(timeout: deadline) == .timedOut {
        if let timeout, claimed.claim() {
            let stopped = lastLine(.timedOut(job.input, after: timeout))
            if stopped.descriptor == STDOUT_FILENO {
                Terminal.printLine(stopped.text)
            } else {
                Terminal.printError(stopped.text)
            }
            // The cover's thread is still inside FFmpeg: its temporary file is removed here.
            CoverBatch.abandon()
            _exit(1)
        }
        // The result claimed the line just before the deadline: it is being printed.
        finished.wait()
    }
} else {
    handleSignals()
    CoverBatch.run(jobs, options: coverOptions, format: format, concurrency: concurrency) { reporter.report($0) }
}
signals?.stop()
progress.finish()
exit(reporter.failures == 0 ? 0 : 1)

/// Who prints a single input's one line: its result, or the time limit's report, whichever claims
/// it first.
final class OneLine: Sendable {
    private let taken = Atomic<Bool>(false)

    /// True for the first caller only.
    func claim() -> Bool {
        !taken.exchange(true, ordering: .acquiringAndReleasing)
    }
}

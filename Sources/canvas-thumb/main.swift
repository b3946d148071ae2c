// canvas-thumb: writes one cover per input video (DESIGN section 6). Thin: parse, call Thumbnails'
// CoverBatch, print. Exit codes: 0 all written, 1 some failed (the others are written), 2 usage.
import CommandLineSupport
import Foundation
import Synchronization
import ThreadSanitizerSupport
import Thumbnails

let options: Options
do {
    options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    Terminal.printError("canvas-thumb: \(error.message)")
    Terminal.printError("run 'canvas-thumb --help' for usage")
    exit(2)
}
if options.help {
    Terminal.printLine(Options.usage)
    exit(0)
}

let inputs: [URL]
do {
    inputs = try CoverInputs.expand(options.inputs)
} catch {
    Terminal.printError("canvas-thumb: \(error.reason)")
    exit(2)
}
guard !inputs.isEmpty else {
    Terminal.printError("canvas-thumb: no video files found in \(options.inputs.joined(separator: " "))")
    exit(2)
}

let format: CoverImageFormat = options.format == .jpeg ? .jpeg : .png
let jobs: [CoverJob]
switch options.output {
case .file(let path):
    jobs = [CoverJob(input: inputs[0], output: URL(fileURLWithPath: path))]
case .directory(let path):
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
        Terminal.printError("canvas-thumb: output directory '\(path)' does not exist")
        exit(2)
    }
    var namer = CoverOutputNamer(directory: URL(fileURLWithPath: path, isDirectory: true), fileExtension: format.pathExtension)
    jobs = inputs.map { CoverJob(input: $0, output: namer.outputURL(for: $0)) }
}

var coverOptions = CoverOptions(maximumSize: PixelSize(width: options.maximumWidth, height: options.maximumHeight))
switch options.time {
case .seconds(let seconds): coverOptions.time = .seconds(seconds)
case .percent(let percent): coverOptions.time = .fraction(percent / 100)
}
if options.exact { coverOptions = coverOptions.exact() }
coverOptions.skipsDarkFrames = options.skipDark

/// Prints results in input order as soon as every earlier input has finished, so the output is the
/// same whatever the parallelism, and a long batch still streams.
final class Reporter: Sendable {
    private struct State {
        var pending: [Int: CoverJobResult] = [:]
        var nextToPrint = 0
        var done = 0
        var failed = 0
    }
    private let state = Mutex(State())
    private let json: Bool
    private let progress: ProgressLine

    init(total: Int, json: Bool) {
        self.json = json
        self.progress = ProgressLine(total: total)
    }

    var failures: Int { state.withAnnotatedLock { $0.failed } }

    func report(_ result: CoverJobResult) {
        state.withAnnotatedLock { state in
            state.done += 1
            if case .failure = result.result { state.failed += 1 }
            state.pending[result.index] = result
            while let ready = state.pending.removeValue(forKey: state.nextToPrint) {
                if progress.isVisible { progress.finish() }
                print(ready)
                state.nextToPrint += 1
            }
            progress.update(done: state.done, failed: state.failed)
        }
    }

    func finish() { progress.finish() }

    private func print(_ item: CoverJobResult) {
        let input = item.job.input.relativePath
        if json {
            var line = JSONLine()
            line.add("input", .string(input))
            switch item.result {
            case .success(let cover):
                line.add("output", .string(item.job.output.relativePath))
                line.add("width", .int(cover.width))
                line.add("height", .int(cover.height))
                line.add("actualTime", .double(cover.actualTime))
                line.add("error", .null)
                if !cover.warnings.isEmpty { line.add("warnings", .array(cover.warnings.map { .string($0) })) }
            case .failure(let error):
                line.add("output", .null)
                line.add("width", .null)
                line.add("height", .null)
                line.add("actualTime", .null)
                line.add("error", .string(error.reason))
            }
            Terminal.printLine(line.description)
        } else {
            switch item.result {
            case .success(let cover):
                let time = String(format: "%.3f", cover.actualTime)
                Terminal.printLine("\(input) -> \(item.job.output.relativePath) (\(cover.width)x\(cover.height) at \(time) s)")
                for warning in cover.warnings { Terminal.printError("canvas-thumb: warning: \(warning)") }
            case .failure(let error):
                Terminal.printError("canvas-thumb: \(error.reason)")
            }
        }
    }
}

let reporter = Reporter(total: jobs.count, json: options.json)
CoverBatch.run(jobs, options: coverOptions, format: format, concurrency: options.jobs) { reporter.report($0) }
reporter.finish()
exit(reporter.failures == 0 ? 0 : 1)

// canvas-thumb: writes one cover per input video (Docs/canvas-thumb.md). Thin: parse, call Thumbnails'
// CoverBatch, print. Exit codes: 0 all written, 1 some failed (the others are written), 2 usage.
import CommandLineSupport
import Foundation
import Locking
import Synchronization
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
if options.version {
    Terminal.printLine(ToolVersion.line(for: "canvas-thumb"))
    exit(0)
}

/// Exits with status 2 and `message` when `folder`, where covers are to be written, is missing,
/// not a folder, or not writable: every input would fail the same way, after being decoded.
func requireWritableFolder(_ folder: String) {
    var status = stat()
    let problem: String? =
        if stat(folder, &status) != 0 {
            errno == ENOENT || errno == ENOTDIR ? "does not exist" : String(cString: strerror(errno))
        } else if status.st_mode & S_IFMT != S_IFDIR {
            "is not a directory"
        } else if access(folder, W_OK | X_OK) != 0 {
            "is not writable: \(String(cString: strerror(errno)))"
        } else {
            nil
        }
    guard let problem else { return }
    Terminal.printError("canvas-thumb: output directory '\(folder)' \(problem)")
    exit(2)
}

let expansion = CoverInputs.expand(options.inputs)
let inputs = expansion.files
guard !inputs.isEmpty || !expansion.unlistedDirectories.isEmpty else {
    Terminal.printError("canvas-thumb: no video files found in \(options.inputs.joined(separator: " "))")
    exit(2)
}

let format: CoverImageFormat = options.format == .jpeg ? .jpeg : .png
let jobs: [CoverJob]
switch options.output {
case .file(let path):
    // The one argument may be a directory: it must hold exactly one video.
    guard inputs.count <= 1 else {
        Terminal.printError(
            "canvas-thumb: -o takes a single input, but \(options.inputs[0]) holds \(inputs.count) videos; "
                + "use --output-dir")
        exit(2)
    }
    let output = URL(fileURLWithPath: path)
    let folder = output.deletingLastPathComponent().path
    requireWritableFolder(folder)
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
        Terminal.printError("canvas-thumb: -o '\(path)' is a directory; use --output-dir to write covers into it")
        exit(2)
    }
    if let input = inputs.first,
        output.standardizedFileURL.resolvingSymlinksInPath().path
            == input.standardizedFileURL.resolvingSymlinksInPath().path
    {
        Terminal.printError("canvas-thumb: -o '\(path)' is the input itself; it would be overwritten")
        exit(2)
    }
    jobs = inputs.first.map { [CoverJob(input: $0, output: output)] } ?? []
case .directory(let path):
    requireWritableFolder(path)
    var namer = CoverOutputNamer(
        directory: URL(fileURLWithPath: path, isDirectory: true), fileExtension: format.pathExtension,
        protecting: inputs)
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
            switch item.result {
            case .success(let cover):
                var line = JSONLine()
                line.add("input", .string(input))
                line.add("output", .string(item.job.output.relativePath))
                line.add("width", .int(cover.width))
                line.add("height", .int(cover.height))
                line.add("actualTime", .double(cover.actualTime))
                line.add("error", .null)
                Terminal.printLine(line.description)
            case .failure(let error):
                Terminal.printLine(Self.failureLine(input: input, reason: error.reason))
            }
        } else {
            switch item.result {
            case .success(let cover):
                let time = String(format: "%.3f", cover.actualTime)
                let size = "\(cover.width)x\(cover.height)"
                Terminal.printLine("\(input) -> \(item.job.output.relativePath) (\(size) at \(time) s)")
            case .failure(let error):
                Terminal.printError("canvas-thumb: \(error.reason)")
            }
        }
        // The JSON objects have exactly the documented fields: warnings go to standard error in
        // both modes, naming their input.
        if case .success(let cover) = item.result {
            for warning in cover.warnings { Terminal.printError("canvas-thumb: warning: \(input): \(warning)") }
        }
    }

    /// The JSON object of an input that has no cover: the six fields, all but two null.
    private static func failureLine(input: String, reason: String) -> String {
        var line = JSONLine()
        line.add("input", .string(input))
        for field in ["output", "width", "height", "actualTime"] { line.add(field, .null) }
        line.add("error", .string(reason))
        return line.description
    }

    /// Reports a directory that could not be searched, like a failed input (before any cover).
    func report(unlisted error: ThumbnailError, directory: String) {
        state.withAnnotatedLock { state in
            state.failed += 1
            if json {
                Terminal.printLine(Self.failureLine(input: directory, reason: error.reason))
            } else {
                Terminal.printError("canvas-thumb: \(error.reason)")
            }
        }
    }
}

let reporter = Reporter(total: jobs.count, json: options.json)
for unlisted in expansion.unlistedDirectories {
    reporter.report(unlisted: unlisted.error, directory: unlisted.path)
}
let concurrency = options.jobs ?? ProcessInfo.processInfo.activeProcessorCount
CoverBatch.run(jobs, options: coverOptions, format: format, concurrency: concurrency) { reporter.report($0) }
reporter.finish()
exit(reporter.failures == 0 ? 0 : 1)

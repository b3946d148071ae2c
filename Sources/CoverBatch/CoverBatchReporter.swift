import Foundation
import Locking
import MediaCore
import OrderedJSON
import Thumbnails

/// Turns a batch's results into the lines a command-line tool prints, in input order whatever
/// the parallelism: a result is held until every earlier input has been reported, then printed
/// at once, so the output is the same for any `--jobs` and a long batch still streams.
///
/// Lines (`PROGRAM` is ``programName``; paths are printed `FileSystemPath.escaped` in text, and in JSON exactly when
/// they are valid UTF-8, percent-encoded only when they are not: `FileSystemPath.jsonText`):
/// - a written cover: `INPUT -> OUTPUT (WxH at T s)` on standard output, or with `json` the
///   object `{"input":...,"output":...,"width":...,"height":...,"actualTime":...,"error":null}`;
/// - a failure: `PROGRAM: REASON` on standard error, or with `json` the same object with
///   `output`, `width`, `height` and `actualTime` null and `error` the one-line reason;
/// - each warning of a written cover: `PROGRAM: warning: INPUT: WARNING` on standard error, in both
///   modes (the JSON objects have exactly the six fields);
/// - an input folder or entry that could not be read: as a failure, before any cover.
///
/// Thread-safe: ``report(_:)`` may be called from several threads at once; `emit` is called
/// under a lock, one line at a time, in order.
public final class CoverBatchReporter: Sendable {
    /// What the reporter asks its tool to print.
    public enum Event: Sendable, Hashable {
        /// One line for standard output.
        case output(String)
        /// One line for standard error.
        case error(String)
        /// How far the batch is: `done` results of the total, `failed` of them failures.
        case progress(done: Int, failed: Int)
    }

    private struct State {
        var pending: [Int: CoverJobResult] = [:]
        var nextToPrint = 0
        var done = 0
        var failed = 0
    }
    private let state = LockedValue(State())
    private let json: Bool
    /// The name failure and warning lines start with.
    public let programName: String
    private let emit: @Sendable (Event) -> Void

    /// A reporter printing JSON objects when `json`, else text lines, through `emit`.
    public init(programName: String, json: Bool, emit: @escaping @Sendable (Event) -> Void) {
        self.programName = programName
        self.json = json
        self.emit = emit
    }

    /// How many inputs (and unreadable folders or entries) failed so far.
    public var failures: Int { state.withLock { $0.failed } }

    /// Takes the result of one job: reports progress (counting it), then prints it and any later ones already in,
    /// as soon as every earlier job has been printed. Progress comes first so that a progress line redrawn below a
    /// printed line shows the count that includes it.
    public func report(_ result: CoverJobResult) {
        state.withLock { state in
            state.done += 1
            if case .failure = result.result { state.failed += 1 }
            state.pending[result.index] = result
            emit(.progress(done: state.done, failed: state.failed))
            while let ready = state.pending.removeValue(forKey: state.nextToPrint) {
                for event in events(for: ready) { emit(event) }
                state.nextToPrint += 1
            }
        }
    }

    /// Reports a folder that could not be searched, or an entry that could not be read, like a
    /// failed input (call it before any result).
    public func report(unreadable entry: CoverInputs.UnreadableEntry) {
        state.withLock { state in
            state.failed += 1
            emit(
                json
                    ? .output(Self.failureLine(input: entry.path, reason: entry.error.reason))
                    : .error(
                        "\(programName): \(entry.error.reason)"))
        }
    }

    /// The lines of one result, without reporting it (what a tool prepares to print if a signal
    /// ends it before the result arrives: see `LastLine` in CommandLineSupport).
    package func events(for item: CoverJobResult) -> [Event] {
        let input = item.job.input.escaped
        switch item.result {
        case .success(let cover):
            var events: [Event]
            if json {
                var line = JSONLine()
                line.add("input", .string(item.job.input.jsonText))
                line.add("output", .string(item.job.output.jsonText))
                line.add("width", .int(cover.width))
                line.add("height", .int(cover.height))
                line.add("actualTime", .double(cover.actualTime))
                line.add("error", .null)
                events = [.output(line.description)]
            } else {
                let time = String(format: "%.3f", cover.actualTime)
                events = [
                    .output("\(input) -> \(item.job.output.escaped) (\(cover.width)x\(cover.height) at \(time) s)")
                ]
            }
            events += cover.warnings.map { .error("\(programName): warning: \(input): \($0)") }
            return events
        case .failure(let error):
            return [
                json
                    ? .output(Self.failureLine(input: item.job.input, reason: error.reason))
                    : .error("\(programName): \(error.reason)")
            ]
        }
    }

    /// The JSON object of an input that has no cover: the six fields, all but two null.
    private static func failureLine(input: FileSystemPath, reason: String) -> String {
        var line = JSONLine()
        line.add("input", .string(input.jsonText))
        for field in ["output", "width", "height", "actualTime"] { line.add(field, .null) }
        line.add("error", .string(reason))
        return line.description
    }
}

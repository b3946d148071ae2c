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
/// - a written cover: `INPUT -> OUTPUT (WxH at T s)` on standard output, or with `json` the object
///   `{"input":...,"output":...,"width":...,"height":...,"actualTime":...,"error":null,"errorKind":null}`;
/// - a failure: `PROGRAM: REASON` on standard error, or with `json` the same object with
///   `output`, `width`, `height` and `actualTime` null, `error` the one-line reason and `errorKind` its
///   ``errorKindName(_:)``;
/// - each warning of a written cover: `PROGRAM: warning: INPUT: WARNING` on standard error, in both
///   modes (the JSON objects have exactly the seven fields);
/// - an input folder or entry that could not be read: as a failure, before any cover;
/// - a file a folder walk skipped (``report(skipped:)``), or a walked file whose failure says it holds no video
///   (`.notAMediaFile`, `.noVideoStream`; its job's index is in `walked`): `PROGRAM: skipped: REASON` on standard
///   error in both modes, not counted as a failure.
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
    private let walked: Set<Int>
    /// The name failure and warning lines start with.
    public let programName: String
    private let emit: @Sendable (Event) -> Void

    /// A reporter printing JSON objects when `json`, else text lines, through `emit`; the jobs at the indices in
    /// `walked` were found by walking a folder (`CoverInputs.Expansion.walked`), so a failure of theirs saying they
    /// hold no video is reported as a skip.
    public init(
        programName: String, json: Bool, walked: Set<Int> = [], emit: @escaping @Sendable (Event) -> Void
    ) {
        self.programName = programName
        self.json = json
        self.walked = walked
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
            if case .failure(let error) = result.result, !isSkip(error, index: result.index) { state.failed += 1 }
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
                    ? .output(Self.failureLine(input: entry.path, error: CoverJobError(entry.error)))
                    : .error(
                        "\(programName): \(entry.error.reason)"))
        }
    }

    /// Reports a file a folder walk skipped (call it before any result): one line on standard error in both modes,
    /// `PROGRAM: skipped: REASON`; not a failure.
    public func report(skipped file: CoverInputs.SkippedFile) {
        state.withLock { _ in emit(.error("\(programName): skipped: \(file.reason)")) }
    }

    /// Whether the failure `error` of job `index` is a walked file holding no video.
    private func isSkip(_ error: CoverJobError, index: Int) -> Bool {
        walked.contains(index) && (error.kind == .cover(.notAMediaFile) || error.kind == .cover(.noVideoStream))
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
                line.add("errorKind", .null)
                events = [.output(line.description)]
            } else {
                let time = String(format: "%.3f", cover.actualTime)
                events = [
                    .output("\(input) -> \(item.job.output.escaped) (\(cover.width)x\(cover.height) at \(time) s)")
                ]
            }
            events += cover.warnings.map { .error("\(programName): warning: \(input): \($0)") }
            return events
        case .failure(let error) where isSkip(error, index: item.index):
            return [.error("\(programName): skipped: \(error.reason)")]
        case .failure(let error):
            return [
                json
                    ? .output(Self.failureLine(input: item.job.input, error: error))
                    : .error("\(programName): \(error.reason)")
            ]
        }
    }

    /// The JSON object of an input that has no cover: the seven fields, all but three null.
    private static func failureLine(input: FileSystemPath, error: CoverJobError) -> String {
        var line = JSONLine()
        line.add("input", .string(input.jsonText))
        for field in ["output", "width", "height", "actualTime"] { line.add(field, .null) }
        line.add("error", .string(error.reason))
        line.add("errorKind", .string(errorKindName(error.kind)))
        return line.description
    }

    /// The `errorKind` of a failure in the JSON lines: a name a script can switch on, one of
    ///
    /// | `errorKind` | ``CoverJobError/Kind`` (`.cover` of a `ThumbnailError.Kind`) | what to do |
    /// | --- | --- | --- |
    /// | `missing` | `.fileNotFound` | check the path |
    /// | `unreadable` | `.notReadable` | check permissions, the disk |
    /// | `notVideo` | `.notAMediaFile`, `.noVideoStream` | nothing: not a video or picture |
    /// | `damaged` | `.decodeFailed` | the file is damaged or truncated |
    /// | `unsupported` | `.unsupportedCodec` | a codec this FFmpeg cannot decode |
    /// | `timedOut` | `.timedOut`, `.cancelled` | stopped before it finished: a read or decode that never ends |
    /// | `crashed` | `.crashed` | FFmpeg crashed on the file (a hostile or damaged file) |
    /// | `writeFailed` | `.writeFailed`, `.encodeFailed` | check the output folder, the disk |
    /// | `refused` | `.refused`, `.invalidArgument` | refused as a risk (a playlist) or as an impossible request |
    public static func errorKindName(_ kind: CoverJobError.Kind) -> String {
        switch kind {
        case .timedOut, .cover(.cancelled): "timedOut"
        case .crashed: "crashed"
        case .cover(.fileNotFound): "missing"
        case .cover(.notReadable): "unreadable"
        case .cover(.notAMediaFile), .cover(.noVideoStream): "notVideo"
        case .cover(.decodeFailed): "damaged"
        case .cover(.unsupportedCodec): "unsupported"
        case .cover(.writeFailed), .cover(.encodeFailed): "writeFailed"
        case .cover(.refused), .cover(.invalidArgument): "refused"
        }
    }
}

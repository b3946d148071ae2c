import CanvasComposition
import CanvasCovers
import CanvasKit
import CanvasSimulation
import CommandLineSupport
import Composition
import Foundation
import Locking
import Synchronization
import Thumbnails

// canvas-sim: steps a board through events and prints every step (Docs/canvas-sim.md).
// Parsing and printing only: the board, the screen, the cells and their covers are CanvasKit's `BoardSimulation`
// with Thumbnails' `CoverService` as the cover provider.

/// Exit codes (documented in `--help` and Docs/canvas-sim.md).
enum ExitCode {
    /// The events ran (rejected events are normal).
    static let success: Int32 = 0
    /// The events ran, but the picture (`--render`) could not be written.
    static let outputFailed: Int32 = 1
    /// Usage, a malformed script (with its line and column), or a script file that cannot be read.
    static let usage: Int32 = 2
    /// The draft (`--draft`) cannot be opened, restored or written.
    static let draftFailed: Int32 = 3
}

/// Prints `message` as one line on standard error and exits with `code`. A usage error adds one line pointing to
/// `--help`: the whole usage text is printed only when asked for.
func fail(_ message: String, code: Int32, usage: Bool = false) -> Never {
    Terminal.printError("canvas-sim: \(message)")
    if usage { Terminal.printError("canvas-sim: run 'canvas-sim --help' for the options and the events") }
    exit(code)
}

// A file-size limit (`ulimit -f`) makes `--render`'s write fail with EFBIG, a one-line error, instead of SIGXFSZ
// ending the process with nothing said.
signal(SIGXFSZ, SIG_IGN)

let options: Options
do {
    options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    fail(error.message, code: ExitCode.usage, usage: true)
}
if options.help {
    Terminal.printLine(Options.usage)
    exit(ExitCode.success)
}
if options.version {
    Terminal.printLine(ToolVersion.line(for: "canvas-sim"))
    exit(ExitCode.success)
}
if let table = options.exportTable {
    let exported = TransitionTable()
    Terminal.writeOutput(table == .markdown ? exported.markdown : exported.dot)
    exit(ExitCode.success)
}

/// The bytes of the script file, or exit 2 with the reason it cannot be read: missing, a directory, not readable.
/// Bytes that are not UTF-8 are the parser's error, with the line and column of the first one.
func readScript(at url: URL, path: String) -> Data {
    func refuse(_ reason: String) -> Never {
        fail("cannot read script '\(path)': \(reason)", code: ExitCode.usage)
    }
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { refuse("no such file") }
    if isDirectory.boolValue { refuse("it is a directory") }
    guard FileManager.default.isReadableFile(atPath: path) else { refuse("permission denied") }
    // A file handle reads pipes and other non-regular files too (`--script /dev/stdin`), which `Data(contentsOf:)`
    // refuses on Linux.
    let data: Data
    do {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        data = try handle.readToEnd() ?? Data()
    } catch {
        refuse("it could not be read (\((error as NSError).localizedDescription))")
    }
    return data
}

/// Reads and parses the script before anything is printed, so a malformed one prints only its error.
func loadScript(_ source: Options.Source) -> (script: CanvasScript, name: String)? {
    switch source {
    case .script(let path):
        let url = URL(fileURLWithPath: path)
        // The bytes are parsed and released before any exit: nothing of the file is still held when the process ends
        // (LeakSanitizer runs at exit and cannot see the storage of a `Data` held in a live frame).
        let parsed = Result { () throws(CanvasScript.ParseError) in
            try CanvasScript(parsing: readScript(at: url, path: path), baseDirectory: url.deletingLastPathComponent())
        }
        switch parsed {
        case .success(let script): return (script, path)
        case .failure(let error): fail("\(path): \(error)", code: ExitCode.usage)
        }
    case .events(let text):
        do {
            return (try CanvasScript(parsing: text), "--events")
        } catch {
            fail("--events: \(error)", code: ExitCode.usage)
        }
    case .interactive:
        return nil
    }
}

let loaded = options.source.flatMap(loadScript)

/// `--render`'s file, started before the events run (an output that cannot be written is still reported after them):
/// until the picture is written, SIGINT and SIGTERM remove its temporary file and end the process with 130 or 143, and
/// any exit removes it: nothing half-written is left. The terminal UI, whose own handlers restore the terminal and end
/// the process on those signals, starts it only when it writes the picture.
func startRender(_ path: String) -> Result<CoverFile, ThumbnailError> {
    Result { () throws(ThumbnailError) in try CoverFile(at: FileSystemPath(path)) }
}
let runsTerminalUI = loaded == nil && Terminal.standardInputIsTerminal
let renderFile = runsTerminalUI ? nil : options.render.map(startRender)
let renderSignals = renderFile.map { _ in
    TerminationSignals(endingAfter: { _ in Terminal.printError("canvas-sim: cancelled, nothing written") })
}
let covers = CoverService(maximumConcurrency: 2)
/// A draft error with the draft's path written as the user wrote it.
func draftFailure(_ error: DraftError) -> Never {
    let url = URL(fileURLWithPath: options.draft ?? "")
    fail(
        error.description.replacingOccurrences(of: url.path, with: options.draft ?? ""), code: ExitCode.draftFailed)
}
let simulation: BoardSimulation
do throws(DraftError) {
    simulation = try BoardSimulation(visibleCount: options.visible, coverProvider: covers) {
        clock, lead throws(DraftError) in
        var state = BoardState(canvasCount: options.cells)
        state.maximumTakeLength = options.maxTake
        guard let path = options.draft else { return CanvasBoard(state: state, clock: clock, playbackLead: lead) }
        return try CanvasBoard(
            draftAt: URL(fileURLWithPath: path), newBoard: state,
            options: DraftOptions(compactionThreshold: options.snapshotEvery), clock: clock, playbackLead: lead)
    }
} catch {
    draftFailure(error)
}
let board = simulation.board
var printer = StepPrinter(format: options.format, simulation: simulation)
printer.draftName = options.draft ?? ""
var status = ExitCode.success

if let loaded {
    if loaded.script.steps.isEmpty && options.draft == nil {
        Terminal.printError("canvas-sim: warning: \(loaded.name) has no events")
    }
    printer.begin()
    // Steps going to a file or a pipe while standard error is a terminal: a progress line there, erased at the end.
    let steps = loaded.script.steps
    let progress = ProgressLine(
        total: steps.count,
        visible: Terminal.standardErrorIsTerminal && !Terminal.standardOutputIsTerminal && steps.count > 1)
    for (index, step) in steps.enumerated() {
        let result = simulation.perform(step.command, takeIsSynthetic: step.takeIsSynthetic)
        // The simulated recorder writes into the file its stop will name: a draft notes it, so a restore after a kill
        // names the interrupted take.
        if let draft = board.draft, result.isAccepted, case .event(.record) = step.command,
            let file = steps[(index + 1)...].lazy.compactMap({ next -> URL? in
                if case .event(.stop(let url, _, _)) = next.command { return url }
                return nil
            }).first
        {
            draft.noteRecordingFile(file)
        }
        printer.print(result)
        progress.update(done: index + 1, failed: 0)
    }
    progress.finish()
    printer.end()
} else if Terminal.standardInputIsTerminal {
    var interactive = Interactive(simulation: simulation)
    if !interactive.run() { exit(ExitCode.usage) }
    printer.end()
} else {
    printer.begin()
    if !LineInput.run(simulation, printer: printer) { status = ExitCode.usage }
    printer.end()
}

if let error = printer.endDraft() {
    draftFailure(error)
}

if let path = options.render {
    let canvases = simulation.canvases
    let size = BoardPicture.size(canvasCount: canvases.count)
    guard size.width * size.height <= BoardPicture.maximumPixelCount else {
        fail(
            "cannot write '\(path)': a picture of \(canvases.count) canvases would have \(size.width)x\(size.height) "
                + "pixels, more than \(BoardPicture.maximumPixelCount / 1_000_000) million",
            code: ExitCode.outputFailed)
    }
    let picture = BoardPicture(canvases: canvases)
    do {
        let image = try CoverImage(
            width: picture.width, height: picture.height, bytesPerRow: picture.width * 3, pixelFormat: .rgb,
            pixels: picture.pixels)
        try (renderFile ?? startRender(path)).get().write(image, as: .png)
    } catch let error as CoverImageLayoutError {
        fail("cannot write '\(path)': \(error.reason)", code: ExitCode.outputFailed)
    } catch let error as ThumbnailError {
        fail("cannot write '\(path)': \(error.reason)", code: ExitCode.outputFailed)
    } catch {
        fail("cannot write '\(path)': \(error)", code: ExitCode.outputFailed)
    }
    renderSignals?.stop()
    if options.format == .text { Terminal.printLine("picture: \(path) (\(picture.width)x\(picture.height))") }
}

if let path = options.compose { composeBoard(of: simulation, to: path, printing: options.format) }
exit(status)

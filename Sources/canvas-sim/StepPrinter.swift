import CanvasHost
import CanvasKit
import CanvasSimulation
import CommandLineSupport
import Dispatch
import Locking

/// Prints a run in the chosen format: in text, the initial board, a table per step and a summary; in JSON, one object
/// per step and nothing else.
@MainActor
struct StepPrinter {
    let format: Options.Format
    let simulation: BoardSimulation
    /// The draft's path as the user gave it (`--draft`).
    var draftName = ""

    func begin() {
        if let draft = simulation.board.draft {
            switch format {
            case .text: Terminal.writeOutput(Output.text(draft: draft, named: draftName))
            case .json: Terminal.printLine(Output.json(draft: draft, named: draftName, canvases: simulation.canvases))
            }
        }
        guard format == .text else { return }
        let host = simulation.screen.host
        let statistics = host.statistics
        let screen = Output.screen(
            onScreen: host.isOnScreen, viewport: simulation.screen.viewport, preview: simulation.screen.previewIndex,
            count: host.numberOfItems,
            made: statistics.cellsMade, reused: statistics.cellsReused,
            observations: simulation.summary.liveObservations)
        Terminal.writeOutput(Output.initialBoard(simulation.canvases, screen: screen))
    }

    func print(_ step: SimulationStep) {
        switch format {
        case .text: Terminal.writeOutput(Output.text(step))
        case .json: Terminal.printLine(Output.json(step, durable: simulation.board.draft?.progress.durable))
        }
    }

    func end() {
        guard format == .text else { return }
        Terminal.writeOutput(Output.summary(simulation.summary))
    }

    /// With a draft: waits until every record is durable and says so (`draft: 14 records durable` in text, a
    /// `{"durable":14}` line in JSON). - Returns: the error that kept them from being durable, if any.
    func endDraft() -> DraftError? {
        guard let draft = simulation.board.draft else { return nil }
        let result = LockedResult()
        let done = DispatchSemaphore(value: 0)
        draft.waitUntilDurable { error in
            result.set(error)
            done.signal()
        }
        done.wait()
        if let error = result.get() { return error }
        let durable = draft.progress.durable
        switch format {
        case .text: Terminal.printLine("draft: \(draftName): \(durable) records durable")
        case .json: Terminal.printLine("{\"durable\":\(durable)}")
        }
        return nil
    }
}

/// Events read from standard input, one line at a time, when `--interactive` runs without a terminal.
@MainActor
enum LineInput {
    /// Runs every line as it arrives; a malformed line is reported on standard error with its line and column and
    /// skipped. Returns false when some line was malformed.
    static func run(_ simulation: BoardSimulation, printer: StepPrinter) -> Bool {
        var number = 0
        var allParsed = true
        while let line = readLine(strippingNewline: true) {
            number += 1
            let script: CanvasScript
            do {
                script = try CanvasScript(parsing: line)
            } catch {
                let placed = CanvasScript.ParseError(line: number, column: error.column, reason: error.reason)
                Terminal.printError("canvas-sim: stdin: \(placed)")
                allParsed = false
                continue
            }
            for step in script.steps {
                var command = step.command
                if step.takeIsSynthetic { command = .event(.stop(simulation.nextSimulatedTake())) }
                printer.print(simulation.perform(command, takeIsSynthetic: step.takeIsSynthetic))
            }
        }
        return allParsed
    }
}

/// The error a completion handler hands over to the thread waiting for it.
final class LockedResult: Sendable {
    private let value = LockedValue<DraftError?>(nil)
    func set(_ error: DraftError?) { value.withLock { $0 = error } }
    func get() -> DraftError? { value.withLock { $0 } }
}

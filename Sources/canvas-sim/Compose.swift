import CanvasComposition
import CanvasSimulation
import CommandLineSupport
import Composition
import Foundation
import Locking
import Pixels

/// `--compose OUT.mp4`: the final board's takes (each its segments, back to back) and its music composed into one
/// video, 720x1280, the board's grid.
///
/// Takes the simulation made up (a bare `stop`) are left out. Every other take goes to the composer, which alone
/// decides what it can use: a take without video (an audio-only recording) is mixed in, and a take it cannot read (any
/// of its segments) is left out with a warning naming its canvas and why, as is music it cannot read (the
/// composition is tried again without it). SIGINT and SIGTERM
/// stop the composition, remove its temporary file and end the process with 130 or 143.
@MainActor
func composeBoard(of simulation: BoardSimulation, to path: String, printing format: Options.Format) {
    let canvases = simulation.canvases
    var plan = CompositionPlan(board: simulation.board, size: PixelSize(width: 720, height: 1280))
    plan.takes.removeAll { take in canvases[take.canvasIndex ?? 0].takeIsSimulated }
    let job = LockedValue<CompositionJob?>(nil)
    let signals = TerminationSignals { job.withLock { $0 }?.cancel() }
    defer { withExtendedLifetime(signals) {} }
    while true {
        guard !plan.takes.isEmpty else {
            fail("cannot compose '\(path)': the board has no take to compose", code: ExitCode.outputFailed)
        }
        let finished = DispatchSemaphore(value: 0)
        let outcome = LockedValue<Result<CompositionResult, CompositionError>?>(nil)
        let started = Composer().compose(plan, to: URL(fileURLWithPath: path)) { result in
            outcome.withLock { $0 = result }
            finished.signal()
        }
        job.withLock { $0 = started }
        if signals.exitStatus != nil { started.cancel() }
        finished.wait()
        switch outcome.withLock({ $0 })! {
        case .success(let result):
            if format == .text {
                let takes = plan.takes.count == 1 ? "1 take" : "\(plan.takes.count) takes"
                Terminal.printLine(
                    "video: \(path) (\(plan.size), \(result.frameCount) frames, "
                        + "\(String(format: "%.2f", result.duration)) s, \(takes))")
            }
            return
        case .failure(let error):
            if let status = signals.exitStatus {
                Terminal.printError("canvas-sim: --compose cancelled, nothing written")
                exit(status)
            }
            if case .music = error.kind, plan.soundtrack != nil {
                Terminal.printError("canvas-sim: warning: --compose leaves out \(error)")
                plan.soundtrack = nil
                continue
            }
            guard case .take(let canvas, _) = error.kind,
                let index = plan.takes.firstIndex(where: { $0.canvasIndex == canvas })
            else {
                fail("cannot compose '\(path)': \(error)", code: ExitCode.outputFailed)
            }
            Terminal.printError("canvas-sim: warning: --compose leaves out \(error)")
            plan.takes.remove(at: index)
        }
    }
}

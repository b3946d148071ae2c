import CanvasHost
import CanvasKit
import CanvasSimulation
import Foundation
import Observing

// libFuzzer entry point for canvas-sim's event language, built only by Tools/fuzz-sim.sh
// (`MULTICANVAS_FUZZ=1 swift build --sanitize fuzzer -Xswiftc -sanitize=fuzzer,address`).
//
// Any text either parses, or fails with a `ParseError` whose line and column lie inside the text. A parsed script
// prints (`description`) as text that parses back to the same commands; it then runs on the pure board (invariants
// I1-I3 after every event) and on a `BoardSimulation` (a board on a headless screen with real cell view-models):
// every step's visible cells show what their models imply, nothing is reloaded, and once the simulation is gone no
// observation is left alive.

/// The most steps run per input (parsing sees the whole input).
private let stepLimit = 64

/// libFuzzer calls this once per input: the bytes, decoded as UTF-8 (invalid sequences replaced), are parsed and
/// run; returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func scriptFuzzerTestOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: bytes, count: bytes == nil ? 0 : count), as: UTF8.self)
    let script: CanvasScript
    do {
        script = try CanvasScript(parsing: text)
    } catch {
        checkPlace(of: error, in: text)
        return 0
    }
    checkRoundTrip(script)
    let canvasCount = 1 + count % 12
    runPureBoard(script, canvasCount: canvasCount)
    MainActor.assumeIsolated { runSimulation(script, canvasCount: canvasCount) }
    precondition(
        ObservationDiagnostics.liveObservations().isEmpty,
        "observations left alive: \(ObservationDiagnostics.liveObservations().count)")
    return 0
}

/// The error's line is a line of the text, and its column is in that line or just after its end.
private func checkPlace(of error: CanvasScript.ParseError, in text: String) {
    let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
    precondition(error.line >= 1 && error.line <= lines.count, "line \(error.line) of \(lines.count): \(error)")
    let length = lines[error.line - 1].count
    precondition(error.column >= 1 && error.column <= length + 1, "column \(error.column) of \(length): \(error)")
    precondition(!error.description.contains("\n") || text.contains("\n"), "a message spans lines: \(error)")
}

/// The printed script parses back to the same commands.
private func checkRoundTrip(_ script: CanvasScript) {
    let printed = script.description
    do {
        let reparsed = try CanvasScript(parsing: printed)
        precondition(reparsed.commands == script.commands, "round trip changed the commands:\n\(printed)")
    } catch {
        preconditionFailure("the printed script does not parse (\(error)):\n\(printed)")
    }
}

/// Runs the board events on the pure transition function, checking I1-I3 after each.
private func runPureBoard(_ script: CanvasScript, canvasCount: Int) {
    var state = BoardState(canvasCount: canvasCount)
    for step in script.steps.prefix(stepLimit) {
        guard case .event(let event) = step.command else { continue }
        let before = state
        let reaction = state.handle(event)
        let recording = state.indices.filter { state[$0].status == .recording }
        let selected = state.indices.filter { state[$0].isSelected }
        precondition(selected.count <= 1 && recording.count <= 1, "I1/I2 broken after \(event)")
        for index in state.indices where state[index].status != .noPreview {
            precondition(state[index].isSelected, "I1: canvas \(index) previews without being selected")
        }
        if !reaction.isAccepted { precondition(state == before, "a rejected \(event) changed the board") }
        if before.indices.contains(where: { before[$0].status == .recording }), case .tap = event {
            precondition(!reaction.isAccepted, "I2: a tap was accepted while recording")
        }
        // I3: a take disappears only with an effect that reports it.
        // (Takes compare as files: `a/../t.mov` and `t.mov` are one take.)
        let lostTakes = Set(before.indices.compactMap { before[$0].videoURL?.standardizedFileURL.path })
            .subtracting(state.indices.compactMap { state[$0].videoURL?.standardizedFileURL.path })
        for take in lostTakes {
            precondition(
                reaction.effects.contains { effect in
                    switch effect {
                    case .takeReplaced, .takeRemoved, .segmentRemoved:
                        effect.givenUpFiles.contains { $0.standardizedFileURL.path == take }
                    case .canvasesRemoved: true
                    default: false
                    }
                }, "I3: \(take) lost by \(event) without an effect")
        }
    }
}

/// Runs the script on a headless screen: no stale cell, no reload, no registration violation.
@MainActor
private func runSimulation(_ script: CanvasScript, canvasCount: Int) {
    let simulation = BoardSimulation(canvasCount: canvasCount, visibleCount: 1 + canvasCount % 5)
    for step in script.steps.prefix(stepLimit) {
        _ = simulation.perform(step.command, takeIsSynthetic: step.takeIsSynthetic)
    }
    let summary = simulation.summary
    precondition(summary.staleCells == 0, "stale cells: \(summary.staleCells)")
    precondition(summary.reloads == 0, "reloads: \(summary.reloads)")
    precondition(summary.registrationViolations == 0, "registration violations: \(summary.registrationViolations)")
}

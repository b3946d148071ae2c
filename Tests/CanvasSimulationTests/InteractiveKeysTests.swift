import CanvasKit
import CanvasSimulation
import Foundation
import Testing

/// The letter keys of `canvas-sim --interactive`: each sends its event, and every key the help names does something.
@MainActor
@Suite("canvas-sim's interactive keys")
struct InteractiveKeysTests {
    /// Presses `keys` with the cursor on `cursor`; returns each step's event and whether it was accepted.
    func press(_ keys: String, cursor: Int = 0, on simulation: BoardSimulation) -> [(String, Bool)] {
        keys.compactMap { key in
            guard let sent = InteractiveKeys.command(for: key, cursor: cursor, on: simulation) else { return nil }
            let step = simulation.perform(sent.command, takeIsSynthetic: sent.takeIsSynthetic)
            return (step.event, step.isAccepted)
        }
    }

    @Test("record, stop, resume, stop, undo twice: a take of two segments loses its last")
    func segmentsAndUndo() {
        let simulation = BoardSimulation(canvasCount: 2)
        _ = simulation.perform(.event(.tap(0)))
        let steps = press("rsesuu", on: simulation)
        #expect(steps.map(\.0) == ["record", "stop take-1.mov", "resume", "stop take-2.mov", "undo 0", "undo 0"])
        let rejected = steps.filter { !$0.1 }.map(\.0)
        #expect(rejected.isEmpty, "\(rejected)")
        #expect(simulation.board.state.segments(at: 0).map(\.url.lastPathComponent) == ["take-1.mov"])
        #expect(simulation.board.state.armedUndo == nil)
    }

    @Test("m and i switch the soundtrack and the microphone on and off; w waits a second")
    func musicMicrophoneAndWait() {
        let simulation = BoardSimulation(canvasCount: 1)
        let steps = press("mmiiw", on: simulation)
        #expect(steps.map(\.0) == ["music music.m4a", "music off", "mic off", "mic on", "wait 1"])
        let rejected = steps.filter { !$0.1 }.map(\.0)
        #expect(rejected.isEmpty, "\(rejected)")
        _ = press("mi", on: simulation)
        #expect(simulation.board.state.soundtrack == Soundtrack(url: InteractiveKeys.music))
        #expect(simulation.board.state.recordsSound == false)
    }

    @Test("the help names every key that sends something, and each line fits 80 columns")
    func helpMatchesTheKeys() {
        let simulation = BoardSimulation(canvasCount: 1)
        let sending = (UnicodeScalar("a").value...UnicodeScalar("z").value).compactMap { value -> Character? in
            let key = Character(UnicodeScalar(value)!)
            return InteractiveKeys.command(for: key, cursor: 0, on: simulation) != nil ? key : nil
        }
        #expect(String(sending) == "acdeimrsuwx")
        let help = InteractiveKeys.help.joined(separator: ", ")
        for key in sending { #expect(help.contains(", \(key) ") || help.hasPrefix("\(key) "), "\(key)") }
        #expect(InteractiveKeys.help.allSatisfy { $0.count <= 80 })
    }
}

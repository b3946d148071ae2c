import CanvasKit
import Foundation

/// The letter keys of `canvas-sim --interactive` and the command each one sends, for the canvas under the cursor and
/// the board as it is (the arrows, Enter and `q` are the terminal UI's own). The terminal UI reads the keys; this type
/// says what they mean, so the keys and their help lines are the same thing and are tested without a terminal.
package enum InteractiveKeys {
    /// The keys, two lines for the top of the screen (each at most 80 columns).
    package static let help = [
        "arrows move, Enter taps, r record, e resume, s stop, c cancel, u undo, q quit",
        "d delete, a add, x remove, m music on/off, i mic on/off, w wait 1 s",
    ]

    /// The soundtrack `m` sets: `music.m4a` in the current directory, as a script's `music music.m4a`.
    package static let music = URL(fileURLWithPath: "music.m4a", isDirectory: false)

    /// The command `key` sends with the cursor on canvas `cursor` of `simulation`, and whether its take is one the
    /// simulation makes up (`s`: the next `take-n.mov`); nil for a key that sends nothing.
    ///
    /// `r` record, `e` resume, `s` stop, `c` cancel, `u` undo (the canvas under the cursor: a first press arms it, a
    /// second deletes its last segment), `d` delete, `a` add, `x` remove, `m` the soundtrack on or off (on:
    /// ``music``), `i` the microphone off or on, `w` one second passes (what reaches a maximum take length).
    @MainActor
    package static func command(for key: Character, cursor: Int, on simulation: BoardSimulation)
        -> (command: CanvasScript.Command, takeIsSynthetic: Bool)?
    {
        let state = simulation.board.state
        let command: CanvasScript.Command
        switch key {
        case "r": command = .event(.record)
        case "e": command = .event(.resume)
        case "s": return (.event(.stop(simulation.nextSimulatedTake())), true)
        case "c": command = .event(.cancel)
        case "u": command = .event(.undo(cursor))
        case "d": command = .event(.delete(cursor))
        case "a": command = .event(.add)
        case "x": command = .event(.remove(cursor))
        case "m": command = .event(.setSoundtrack(state.soundtrack == nil ? Soundtrack(url: music) : nil))
        case "i": command = .event(.setMicrophone(!state.recordsSound))
        case "w": command = .wait(1)
        default: return nil
        }
        return (command, false)
    }
}

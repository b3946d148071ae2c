import CanvasHost
import CanvasKit
import CanvasSimulation
import CommandLineSupport
import Foundation
import Locking

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The terminal settings to put back on exit, also read by the signal handler.
private let savedTerminal = LockedValue<termios?>(nil)

/// Shows the cursor and leaves the alternate screen (bytes ready before any signal can arrive).
private let leaveScreen: [UInt8] = Array("\u{1B}[?25h\u{1B}[?1049l".utf8)

/// Leaves the alternate screen, shows the cursor and restores the terminal settings saved by raw mode. Runs once
/// (later calls find nothing saved); safe from any thread. From a signal handler it only tries the lock, so it can
/// never deadlock on a lock the interrupted thread holds, and it writes with `write(2)` and `tcsetattr(3)`, which
/// are async-signal-safe.
private func restoreTerminal() {
    let saved = savedTerminal.withLockIfAvailable { saved -> termios? in
        defer { saved = nil }
        return saved
    }
    guard var settings = saved ?? nil else { return }
    leaveScreen.withUnsafeBufferPointer { bytes in
        _ = write(STDOUT_FILENO, bytes.baseAddress, bytes.count)
    }
    tcsetattr(STDIN_FILENO, TCSAFLUSH, &settings)
}

/// SIGINT (Ctrl-C) and SIGTERM: put the terminal back, then end with the conventional status 128 + the signal.
private func installSignalHandlers() {
    for number in [SIGINT, SIGTERM] {
        signal(number) { received in
            restoreTerminal()
            _exit(128 + received)
        }
    }
}

/// The terminal UI of `--interactive`: a grid of canvases redrawn after every key. Arrows move the cursor, Enter taps
/// the canvas under it, `r` records, `s` stops (a simulated take), `c` cancels, `d` deletes the take under the cursor,
/// `a` adds a canvas, `x` removes the one under the cursor, `q` (or Ctrl-D) quits. Moving the cursor onto a canvas
/// outside the viewport scrolls the screen to it (a `scroll N` step).
///
/// The terminal is put in non-canonical mode without echo (signals stay on), and restored on quit, on end of input,
/// and on SIGINT or SIGTERM (exit status 130 or 143).
@MainActor
struct Interactive {
    let simulation: BoardSimulation
    private var cursor = 0
    private var lastStep: SimulationStep?

    init(simulation: BoardSimulation) {
        self.simulation = simulation
    }

    mutating func run() {
        var settings = termios()
        guard tcgetattr(STDIN_FILENO, &settings) == 0 else { return }
        savedTerminal.withLock { $0 = settings }
        var raw = settings
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &raw.c_cc) { bytes in
            bytes[Int(VMIN)] = 1
            bytes[Int(VTIME)] = 0
        }
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw)
        installSignalHandlers()
        Terminal.writeOutput("\u{1B}[?1049h\u{1B}[?25l")
        draw()
        while let key = readKey() {
            if key == .quit { break }
            handle(key)
            draw()
        }
        restoreTerminal()
    }

    // MARK: Keys

    enum Key: Equatable {
        case left, right, up, down, enter
        case character(Character)
        case quit
    }

    private func readByte() -> UInt8? {
        var byte: UInt8 = 0
        while true {
            let count = read(STDIN_FILENO, &byte, 1)
            if count == 1 { return byte }
            if count < 0 && errno == EINTR { continue }
            return nil
        }
    }

    private func readKey() -> Key? {
        while let byte = readByte() {
            switch byte {
            case 0x1B:
                guard readByte() == UInt8(ascii: "[") else { continue }
                switch readByte() {
                case UInt8(ascii: "A"): return .up
                case UInt8(ascii: "B"): return .down
                case UInt8(ascii: "C"): return .right
                case UInt8(ascii: "D"): return .left
                default: continue
                }
            case 0x0A, 0x0D: return .enter
            case 0x04, UInt8(ascii: "q"): return .quit
            default: return .character(Character(UnicodeScalar(byte)))
            }
        }
        return nil
    }

    private var columns: Int {
        let count = simulation.board.canvases.count
        var columns = 1
        while columns * columns < count { columns += 1 }
        return columns
    }

    private mutating func handle(_ key: Key) {
        switch key {
        case .left: moveCursor(to: cursor - 1)
        case .right: moveCursor(to: cursor + 1)
        case .up: moveCursor(to: cursor - columns)
        case .down: moveCursor(to: cursor + columns)
        case .enter: perform(.event(.tap(cursor)))
        case .character("r"): perform(.event(.record))
        case .character("s"): perform(.event(.stop(simulation.nextSimulatedTake())), takeIsSynthetic: true)
        case .character("c"): perform(.event(.cancel))
        case .character("d"): perform(.event(.delete(cursor)))
        case .character("a"): perform(.event(.add))
        case .character("x"): perform(.event(.remove(cursor)))
        case .character, .quit: break
        }
        cursor = min(cursor, simulation.board.canvases.count - 1)
    }

    private mutating func moveCursor(to index: Int) {
        let count = simulation.board.canvases.count
        guard (0..<count).contains(index) else { return }
        cursor = index
        if !simulation.screen.host.visibleRange.contains(index) { perform(.scroll(index)) }
    }

    private mutating func perform(_ command: CanvasScript.Command, takeIsSynthetic: Bool = false) {
        lastStep = simulation.perform(command, takeIsSynthetic: takeIsSynthetic)
    }

    // MARK: Drawing

    private func draw() {
        let canvases = simulation.canvases
        var text = "\u{1B}[H\u{1B}[2J"
        text +=
            "canvas-sim: arrows move, Enter taps, r record, s stop, c cancel, d delete, a add, x remove, q quit\r\n\r\n"
        let width = 16
        for rowStart in stride(from: 0, to: canvases.count, by: columns) {
            let row = canvases[rowStart..<min(rowStart + columns, canvases.count)]
            var lines = ["", "", "", ""]
            for canvas in row {
                let border: Character = canvas.isSelected ? "#" : "-"
                let side = canvas.isSelected ? "#" : "|"
                let mark = canvas.index == cursor ? ">" : " "
                let title = "\(mark)\(canvas.index) \(label(canvas.shows))"
                let detail = canvas.videoURL.map(TakeName.describe) ?? (canvas.isVisible ? "" : "(offscreen)")
                lines[0] += "+" + String(repeating: border, count: width) + "+ "
                lines[1] += side + pad(title, width) + side + " "
                lines[2] += side + pad(" " + detail, width) + side + " "
                lines[3] += "+" + String(repeating: border, count: width) + "+ "
            }
            text += lines.map { $0 + "\r\n" }.joined()
        }
        text += "\r\n"
        if let step = lastStep {
            text += "step \(step.number): \(step.event): " + (step.reason.map { "rejected: \($0)" } ?? "accepted")
            text +=
                "\r\n  effects: "
                + (step.effects.isEmpty ? "none" : step.effects.map(\.description).joined(separator: ", "))
            text += "\r\n"
        }
        let summary = simulation.summary
        text += "accepted \(summary.accepted), rejected \(summary.rejected), live observations "
        text += "\(summary.liveObservations), reloads \(summary.reloads)\r\n"
        Terminal.writeOutput(text)
    }

    private func label(_ display: CanvasDisplay) -> String {
        switch display {
        case .livePreview: "PREVIEW"
        case .recording: "REC *"
        case .cover: "cover"
        case .playback: "playing"
        case .addButton: "+ add"
        }
    }

    private func pad(_ text: String, _ width: Int) -> String {
        let clipped = String(text.prefix(width))
        return clipped + String(repeating: " ", count: width - clipped.count)
    }
}

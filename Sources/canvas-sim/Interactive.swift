import CanvasHost
import CanvasKit
import CanvasSimulation
import CommandLineSupport
import Foundation
import Locking
import Synchronization

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

/// Set by SIGWINCH (the terminal was resized), read and cleared by the key loop. An atomic store is
/// async-signal-safe.
private let terminalResized = Atomic<Bool>(false)

/// SIGINT (Ctrl-C) and SIGTERM: put the terminal back, then end with the conventional status 128 + the signal.
/// SIGWINCH: flag the resize; installed without `SA_RESTART`, so the blocked `read` returns `EINTR` and the board is
/// redrawn at once.
private func installSignalHandlers() {
    for number in [SIGINT, SIGTERM] {
        signal(number) { received in
            restoreTerminal()
            _exit(128 + received)
        }
    }
    var action = sigaction()
    #if os(Linux)
        action.__sigaction_handler.sa_handler = { _ in terminalResized.store(true, ordering: .relaxed) }
    #else
        action.__sigaction_u.__sa_handler = { _ in terminalResized.store(true, ordering: .relaxed) }
    #endif
    sigemptyset(&action.sa_mask)
    action.sa_flags = 0
    sigaction(SIGWINCH, &action, nil)
}

/// The terminal's size in columns and rows (80x24 when standard output is not a terminal that says).
private func terminalSize() -> (columns: Int, rows: Int) {
    var size = winsize()
    guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return (80, 24) }
    return (Int(size.ws_col), Int(size.ws_row))
}

/// The terminal UI of `--interactive`: a grid of canvases redrawn after every key. Arrows move the cursor, Enter taps
/// the canvas under it, the letters send what ``InteractiveKeys`` says (record, resume, stop, cancel, undo, delete,
/// add, remove, music, mic, wait), `q` (or Ctrl-D) quits. Moving the cursor onto a canvas outside the viewport
/// scrolls the screen to it (a `scroll N` step).
///
/// The grid fits the terminal (``TerminalGridLayout``): its rows scroll with the cursor, it is redrawn when the
/// terminal is resized, and below the minimum size a one-line notice replaces it until the terminal grows (a
/// terminal already too small at the start is refused before anything is drawn).
///
/// The terminal is put in non-canonical mode without echo (signals stay on), and restored on quit, on end of input,
/// and on SIGINT or SIGTERM (exit status 130 or 143).
@MainActor
struct Interactive {
    let simulation: BoardSimulation
    private var cursor = 0
    private var lastStep: SimulationStep?
    /// The first grid row on screen (kept between draws, so the grid scrolls only when the cursor leaves it).
    private var firstRow = 0
    /// Canvases per grid row in the last draw (what up and down move by).
    private var columns = 1

    init(simulation: BoardSimulation) {
        self.simulation = simulation
    }

    /// Runs the terminal UI; returns false, having drawn nothing, when the terminal is smaller than
    /// ``TerminalGridLayout/minimumSize``.
    mutating func run() -> Bool {
        let size = terminalSize()
        guard size.columns >= TerminalGridLayout.minimumSize.columns, size.rows >= TerminalGridLayout.minimumSize.rows
        else {
            Terminal.printError(TerminalGridLayout.tooSmallMessage(columns: size.columns, rows: size.rows))
            return false
        }
        var settings = termios()
        guard tcgetattr(STDIN_FILENO, &settings) == 0 else { return true }
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
        return true
    }

    // MARK: Keys

    enum Key: Equatable {
        case left, right, up, down, enter, resize
        case character(Character)
        case quit
    }

    /// One byte of input; nil at the end of input, or when a resize interrupted the read (then `resized` is set).
    private func readByte(resized: inout Bool) -> UInt8? {
        var byte: UInt8 = 0
        while true {
            let count = read(STDIN_FILENO, &byte, 1)
            if count == 1 { return byte }
            if count < 0 && errno == EINTR {
                if terminalResized.exchange(false, ordering: .relaxed) {
                    resized = true
                    return nil
                }
                continue
            }
            return nil
        }
    }

    private func readKey() -> Key? {
        var resized = false
        while let byte = readByte(resized: &resized) {
            switch byte {
            case 0x1B:
                guard readByte(resized: &resized) == UInt8(ascii: "[") else { continue }
                switch readByte(resized: &resized) {
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
        return resized ? .resize : nil
    }

    private mutating func handle(_ key: Key) {
        switch key {
        case .left: moveCursor(to: cursor - 1)
        case .right: moveCursor(to: cursor + 1)
        case .up: moveCursor(to: cursor - columns)
        case .down: moveCursor(to: cursor + columns)
        case .enter: perform(.event(.tap(cursor)))
        case .character(let key):
            if let sent = InteractiveKeys.command(for: key, cursor: cursor, on: simulation) {
                perform(sent.command, takeIsSynthetic: sent.takeIsSynthetic)
            }
        case .quit, .resize: break
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

    private mutating func draw() {
        let size = terminalSize()
        let canvases = simulation.canvases
        guard
            let layout = TerminalGridLayout(
                canvasCount: canvases.count, cursor: cursor, firstRow: firstRow, terminalColumns: size.columns,
                terminalRows: size.rows)
        else {
            let notice = TerminalGridLayout.tooSmallMessage(columns: size.columns, rows: size.rows)
            return Terminal.writeOutput("\u{1B}[H\u{1B}[2J" + notice)
        }
        firstRow = layout.rows.lowerBound
        columns = layout.columns
        // Every line is cut to the terminal's width, so nothing wraps and the screen never scrolls by itself.
        var lines = InteractiveKeys.help
        let width = TerminalGridLayout.cellWidth - 3
        let shown = layout.canvases(of: canvases.count)
        for rowStart in stride(from: shown.lowerBound, to: shown.upperBound, by: layout.columns) {
            let row = canvases[rowStart..<min(rowStart + layout.columns, shown.upperBound)]
            var box = ["", "", "", ""]
            for canvas in row {
                let border: Character = canvas.isSelected ? "#" : "-"
                let side = canvas.isSelected ? "#" : "|"
                let mark = canvas.index == cursor ? ">" : " "
                let title = "\(mark)\(canvas.index) \(label(canvas.shows))"
                let detail = detail(canvas)
                box[0] += "+" + String(repeating: border, count: width) + "+ "
                box[1] += side + pad(title, width) + side + " "
                box[2] += side + pad(" " + detail, width) + side + " "
                box[3] += "+" + String(repeating: border, count: width) + "+ "
            }
            lines += box
        }
        lines.append("")
        if let step = lastStep {
            lines.append(
                "step \(step.number): \(step.event): " + (step.reason.map { "rejected: \($0)" } ?? "accepted"))
            lines.append(
                "  effects: "
                    + (step.effects.isEmpty ? "none" : step.effects.map(\.description).joined(separator: ", ")))
        }
        let summary = simulation.summary
        var status = "accepted \(summary.accepted), rejected \(summary.rejected), live observations "
        status += "\(summary.liveObservations), reloads \(summary.reloads)"
        if layout.rows.count * layout.columns < canvases.count {
            status += ", rows \(layout.rows.lowerBound + 1)-\(layout.rows.upperBound) of "
            status += "\((canvases.count + layout.columns - 1) / layout.columns)"
        }
        lines.append(status)
        let text = lines.map { String($0.prefix(size.columns)) }.joined(separator: "\r\n")
        Terminal.writeOutput("\u{1B}[H\u{1B}[2J" + text + "\r\n")
    }

    /// The picture's label, then `delete?` when the canvas's undo is armed.
    private func label(_ display: CanvasDisplay) -> String {
        let picture =
            switch display.picture {
            case .livePreview: "PREVIEW"
            case .recording: "REC *"
            case .cover: "cover"
            case .playback: "playing"
            case .addButton: "+ add"
            case .missing: "MISSING"
            }
        return display.take?.isUndoArmed == true ? picture + " delete?" : picture
    }

    /// The take's first file, with its segment count and length when it has several segments (`a.mov 2x 3.5s`).
    private func detail(_ canvas: SimulationCanvas) -> String {
        guard let videoURL = canvas.videoURL else { return canvas.isVisible ? "" : "(offscreen)" }
        let name = TakeName.describe(videoURL)
        guard let take = canvas.shows.take, take.segmentCount > 1 else { return name }
        return "\(name) \(take.segmentCount)x \(TakeLength.describe(take.length))"
    }

    private func pad(_ text: String, _ width: Int) -> String {
        let clipped = String(text.prefix(width))
        return clipped + String(repeating: " ", count: width - clipped.count)
    }
}

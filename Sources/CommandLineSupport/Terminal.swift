#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Standard output and error for the command-line tools: line writes, terminal detection and a
/// progress line that is only drawn on a terminal.
public enum Terminal {
    /// Whether standard error is a terminal (progress is drawn only then).
    public static var standardErrorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// Whether standard input is a terminal.
    public static var standardInputIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    /// Whether standard output is a terminal.
    public static var standardOutputIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }

    /// Writes `line` and a line break to standard output, unbuffered, so lines from several tools
    /// or threads never interleave mid-line.
    public static func printLine(_ line: String) {
        write(line + "\n", to: STDOUT_FILENO)
    }

    /// Writes `line` and a line break to standard error.
    public static func printError(_ line: String) {
        write(line + "\n", to: STDERR_FILENO)
    }

    /// Writes `text` as it is to standard error (for progress lines that redraw with `\r`).
    public static func writeError(_ text: String) {
        write(text, to: STDERR_FILENO)
    }

    /// Writes `text` as it is to standard output.
    public static func writeOutput(_ text: String) {
        write(text, to: STDOUT_FILENO)
    }

    private static func write(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer in
                #if canImport(Darwin)
                    Darwin.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                #else
                    Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                #endif
            }
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                return
            }
        }
    }
}

/// A one-line progress bar on standard error, redrawn in place; inert when standard error is not a
/// terminal, so logs and pipes never see it.
public struct ProgressLine: Sendable {
    /// How many steps make the whole.
    public let total: Int
    /// Whether anything is drawn.
    public let isVisible: Bool
    private let width = 30

    /// A progress line for `total` steps, drawn only when `visible` (by default: standard error is a
    /// terminal and there is more than one step).
    public init(total: Int, visible: Bool? = nil) {
        self.total = total
        self.isVisible = visible ?? (Terminal.standardErrorIsTerminal && total > 1)
    }

    /// The text drawn after `done` steps, `failed` of them failed (without the leading carriage return).
    public func text(done: Int, failed: Int) -> String {
        let fraction = total > 0 ? Double(done) / Double(total) : 1
        let filled = Int((fraction * Double(width)).rounded(.down))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let percent = Int((fraction * 100).rounded(.down))
        return "[\(bar)] \(done)/\(total) \(percent)%" + (failed > 0 ? " (\(failed) failed)" : "")
    }

    /// Redraws the line after `done` steps.
    public func update(done: Int, failed: Int) {
        guard isVisible else { return }
        Terminal.writeError("\r" + text(done: done, failed: failed))
    }

    /// Clears the line, leaving the cursor at the start of an empty line.
    public func finish() {
        guard isVisible else { return }
        Terminal.writeError("\r\u{1B}[2K")
    }
}

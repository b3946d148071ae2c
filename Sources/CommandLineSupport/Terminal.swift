import Synchronization

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

    /// Writes `bytes` in full to `descriptor` (standard output for `-o -`); false, with `errno` set, when a write
    /// failed (a closed pipe: `SIGPIPE` is not ignored, so only when the caller ignores it).
    public static func writeAll(_ bytes: some Collection<UInt8>, to descriptor: Int32) -> Bool {
        var bytes = Array(bytes)
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
                if written == 0 { errno = EIO }
                return false
            }
        }
        return true
    }

    private static func write(_ text: String, to descriptor: Int32) {
        _ = writeAll(text.utf8, to: descriptor)
    }
}

/// A one-line progress bar on standard error, redrawn in place, with the count, the rate and the time left; inert
/// when standard error is not a terminal, so logs and pipes never see it. Redrawn at most ten times a second (the last
/// step always), so a run of millions of quick steps costs no more than a slow one.
///
/// Lines printed while it is drawn go through ``printOutput(_:)`` and ``printError(_:)``: a line bound for the
/// terminal is written over the bar, which is drawn again below it at once (the line is never left blank); a line
/// bound for a file or a pipe leaves the bar alone and carries nothing of it.
public struct ProgressLine: Sendable {
    /// How many steps make the whole.
    public let total: Int
    /// Whether anything is drawn.
    public let isVisible: Bool
    private let width = 30
    private let start: ContinuousClock.Instant
    private let lastDrawn = LastDrawn()

    /// Nanoseconds after `start` of the last redraw (`Int64.min`: none yet), and the counts last reported (`done` in
    /// the high 32 bits, `failed` in the low ones; -1: none yet), shared by the copies of one line.
    private final class LastDrawn: Sendable {
        let nanoseconds = Atomic<Int64>(.min)
        let counts = Atomic<Int64>(-1)
    }

    /// A progress line for `total` steps, drawn only when `visible` (by default: standard error is a
    /// terminal and there is more than one step). The rate is measured from `start`: the moment the work began,
    /// which a tool that learns the total only from the first report passes, so that its first rate is not one
    /// step over the instant since the report (a composition's first frame shown as thousands a second).
    public init(total: Int, visible: Bool? = nil, start: ContinuousClock.Instant = .now) {
        self.total = total
        self.isVisible = visible ?? (Terminal.standardErrorIsTerminal && total > 1)
        self.start = start
    }

    /// The text ``update(done:failed:)`` draws now after `done` steps, `failed` of them failed.
    public func text(done: Int, failed: Int) -> String {
        text(done: done, failed: failed, elapsed: ContinuousClock.now - start)
    }

    /// The text drawn after `done` steps, `failed` of them failed, `elapsed` after the start (without the leading
    /// carriage return): the bar, `done/total`, the percentage, then, once a step is done, the rate in steps per
    /// second and the time left at that rate (`m:ss left`, or `h:mm:ss left` past an hour).
    public func text(done: Int, failed: Int, elapsed: Duration) -> String {
        let fraction = total > 0 ? Double(min(done, total)) / Double(total) : 1
        let filled = Int((fraction * Double(width)).rounded(.down))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let percent = Int((fraction * 100).rounded(.down))
        var text = "[\(bar)] \(done)/\(total) \(percent)%"
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        if done > 0, seconds > 0 {
            let rate = Double(done) / seconds
            text += " " + Self.rate(rate)
            if done < total {
                text += " " + Self.clock(Double(total - done) / rate) + " left"
            }
        }
        return text + (failed > 0 ? " (\(failed) failed)" : "")
    }

    /// Redraws the line after `done` steps, unless it was redrawn less than a tenth of a second ago and steps remain.
    public func update(done: Int, failed: Int) {
        guard isVisible else { return }
        let clamp = { (count: Int) in Int64(min(max(count, 0), Int(UInt32.max))) }
        lastDrawn.counts.store(clamp(done) << 32 | clamp(failed), ordering: .relaxed)
        let elapsed = ContinuousClock.now - start
        let now = elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
        let last = lastDrawn.nanoseconds.load(ordering: .relaxed)
        guard done >= total || last == .min || now - last >= 100_000_000 else { return }
        lastDrawn.nanoseconds.store(now, ordering: .relaxed)
        Terminal.writeError("\r\u{1B}[2K" + text(done: done, failed: failed, elapsed: elapsed))
    }

    /// Writes `line` and a line break to standard output. When the bar is drawn and standard output is a terminal
    /// (the same screen), the bar is cleared first and drawn again below the line at once; otherwise the bar is left
    /// as it is, and standard output gets the line alone.
    public func printOutput(_ line: String) {
        guard isVisible, Terminal.standardOutputIsTerminal, let drawn = currentText() else {
            Terminal.printLine(line)
            return
        }
        Terminal.writeError("\r\u{1B}[2K")
        Terminal.printLine(line)
        Terminal.writeError(drawn)
    }

    /// Writes `line` and a line break to standard error; when the bar is drawn, in one write that clears it, writes
    /// the line and draws the bar again below it.
    public func printError(_ line: String) {
        guard isVisible, let drawn = currentText() else {
            Terminal.printError(line)
            return
        }
        Terminal.writeError("\r\u{1B}[2K" + line + "\n" + drawn)
    }

    /// The bar as last reported, for now; nil before the first ``update(done:failed:)``.
    private func currentText() -> String? {
        let counts = lastDrawn.counts.load(ordering: .relaxed)
        guard counts >= 0 else { return nil }
        return text(done: Int(counts >> 32), failed: Int(counts & 0xFFFF_FFFF), elapsed: ContinuousClock.now - start)
    }

    /// Clears the line, leaving the cursor at the start of an empty line.
    public func finish() {
        guard isVisible else { return }
        Terminal.writeError("\r\u{1B}[2K")
    }

    /// `12.3/s` below 100 steps a second, `1234/s` from there.
    private static func rate(_ perSecond: Double) -> String {
        if perSecond >= 100 { return "\(Int(perSecond.rounded()))/s" }
        let tenths = Int((perSecond * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)/s"
    }

    /// `m:ss`, or `h:mm:ss` from an hour on; rounded up to the next whole second.
    private static func clock(_ seconds: Double) -> String {
        let whole = seconds.isFinite ? Int(min(seconds, 359_999).rounded(.up)) : 359_999
        let (hours, minutes, rest) = (whole / 3600, whole / 60 % 60, whole % 60)
        let twoDigits = { (value: Int) in value < 10 ? "0\(value)" : "\(value)" }
        return hours > 0 ? "\(hours):\(twoDigits(minutes)):\(twoDigits(rest))" : "\(minutes):\(twoDigits(rest))"
    }
}

internal import CLastLine

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The line a command-line tool prints when a signal ends it in the middle of one piece of work
/// (a crash inside a C library, a time limit), so that the work is still reported, in the
/// tool's own format, and the process ends with the tool's own status instead of dying by the
/// signal with nothing said.
///
/// The line is prepared before the work starts: the handler (C, async-signal-safe) only writes
/// those bytes and calls `_exit`. It does not resume anything, so it cannot meet the corrupt state
/// a crash leaves behind; it cannot clean up either (no `atexit`, no Swift code runs).
public enum LastLine {
    /// The signals a crash raises: `SIGSEGV`, `SIGBUS`, `SIGILL` (and Swift's traps), `SIGFPE`,
    /// `SIGABRT` (`abort()`, a failed C assertion), `SIGTRAP`, `SIGSYS`.
    public static let crashSignals: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS]

    /// The signal ``arm(seconds:)`` raises when its time is up.
    public static let timerSignal: Int32 = SIGALRM

    /// Until ``clear()``, each of `signals` writes `line(signal)` and a line break to
    /// `descriptor` and ends the process with `status`. Replaces the handlers those signals had
    /// (Swift's own backtracer among them). When two arrive at once (two threads crashing), only
    /// the first line is written.
    public static func prepare(
        _ signals: [Int32],
        descriptor: Int32,
        status: Int32,
        line: (Int32) -> String
    ) {
        for signal in signals {
            let bytes = Array((line(signal) + "\n").utf8)
            _ = bytes.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { chars in
                    last_line_prepare(signal, chars.baseAddress!, chars.count, descriptor, status)
                }
            }
        }
    }

    /// Raises ``timerSignal`` once `seconds` of wall time from now (`setitimer(ITIMER_REAL)`); a
    /// later call replaces the time, and 0 or less disarms it.
    public static func arm(seconds: Double) {
        let whole = seconds > 0 ? Int(seconds) : 0
        let micro = seconds > 0 ? Int((seconds - Double(whole)) * 1_000_000) : 0
        var timer = itimerval()
        timer.it_value.tv_sec = .init(whole)
        timer.it_value.tv_usec = .init(seconds > 0 && whole == 0 && micro == 0 ? 1 : micro)
        #if os(Linux)
            _ = setitimer(__itimer_which_t(ITIMER_REAL.rawValue), &timer, nil)
        #else
            _ = setitimer(ITIMER_REAL, &timer, nil)
        #endif
    }

    /// Disarms the timer and gives every prepared signal its default action back: the work is
    /// done (and reported by the tool itself).
    public static func clear() {
        arm(seconds: 0)
        last_line_clear()
    }
}

internal import CLastLine

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The line a command-line tool prints when a signal ends it in the middle of one piece of work
/// (a crash inside a C library), so that the work is still reported, in the
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

    /// Gives every prepared signal its default action back: the work is done (and reported by
    /// the tool itself).
    public static func clear() {
        last_line_clear()
    }
}

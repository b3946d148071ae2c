import Foundation

/// How hard the stress tests push: CI's size by default; `Tools/sanitize.sh --stress` (or anyone) sets
/// `MULTICANVAS_STRESS_SECONDS` and `MULTICANVAS_STRESS_THREADS` for longer runs on more threads.
enum StressScale {
    /// Seconds a deadline-bound stress loop runs (default 0: bound by event counts only; with a value, loops also run until it passes).
    static var seconds: Double {
        ProcessInfo.processInfo.environment["MULTICANVAS_STRESS_SECONDS"].flatMap(Double.init).map { max(0, $0) } ?? 0
    }

    /// Threads a stress test starts (default 4; at least 2).
    static var threads: Int {
        ProcessInfo.processInfo.environment["MULTICANVAS_STRESS_THREADS"].flatMap { Int($0) }.map { max(2, $0) } ?? 4
    }
}

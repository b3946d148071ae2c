import Foundation

/// How hard the stress tests push: CI's size by default (1 s, 4 threads); `Tools/sanitize.sh --stress` (or anyone)
/// sets `MULTICANVAS_STRESS_SECONDS` and `MULTICANVAS_STRESS_THREADS` for longer runs on more threads.
package enum StressScale {
    /// Seconds a deadline-bound stress loop runs at least (default 1; at least 0.1). Loops bound by event counts also
    /// keep going until it passes.
    package static var seconds: Double {
        ProcessInfo.processInfo.environment["MULTICANVAS_STRESS_SECONDS"].flatMap(Double.init).map { max(0.1, $0) } ?? 1
    }

    /// Threads a stress test starts (default 4; at least 2).
    package static var threads: Int {
        ProcessInfo.processInfo.environment["MULTICANVAS_STRESS_THREADS"].flatMap { Int($0) }.map { max(2, $0) } ?? 4
    }
}

import Dispatch
import MediaCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// SIGINT (Ctrl-C) and SIGTERM turned into ordinary code, so that a tool that writes an output leaves nothing
/// half-written and ends with the shell's status for the signal, 128 + its number (130 for SIGINT, 143 for SIGTERM).
///
/// Two ways: ``init(cancel:)`` asks the job to stop (it removes its temporary file on the way out) and the tool ends
/// with ``exitStatus`` once the job returned; ``init(endingAfter:)`` ends the process at once, for a job that cannot
/// be asked (a read that never returns), after removing the temporary file of every output still in progress.
///
/// The signals are delivered to dispatch sources, never to a C handler, so the cancellation runs as ordinary code.
/// Make it on the main thread before the job starts threads of its own: from then on, on Linux, a signal is never
/// lost, even one that comes before Dispatch listens for it (it starts listening on a thread of its own, a moment
/// after the sources are made). The two signals are blocked in the calling thread, and so in every thread it starts
/// (Dispatch's threads block them anyway): one that comes early stays pending, and Dispatch takes it when it listens;
/// so does one that came while the process was started with them blocked.
/// Deliberately not `Sendable`: the tool's main code keeps it as long as the job runs (the sources live until
/// ``stop()``).
public final class TerminationSignals {
    /// The first termination signal received, 0 before any.
    private let received = Received()
    private var sources: [any DispatchSourceSignal] = []
    /// Signalled once by each source when Dispatch no longer listens for it (its cancel handler).
    private let stopped = DispatchSemaphore(value: 0)
    /// Whether a signal ends the process (``init(endingAfter:)``).
    private var ends = false

    /// From now on, SIGINT and SIGTERM call `cancel` (on a dispatch queue) instead of ending the process; the first
    /// one is remembered for ``exitStatus``.
    public convenience init(cancel: @escaping @Sendable () -> Void) {
        self.init { _ in cancel() }
    }

    /// From now on, SIGINT and SIGTERM end the process (on a dispatch queue, whatever its other threads are doing):
    /// the temporary file of every output of the process still in progress is removed, `cleanUp` runs with the exit
    /// status (to stop worker processes, print a line), and the process exits at once with 128 + the signal's number.
    public convenience init(endingAfter cleanUp: @escaping @Sendable (_ status: Int32) -> Void) {
        self.init { status in
            AtomicOutput.removeInProgress()
            cleanUp(status)
            _exit(status)
        }
        ends = true
    }

    private init(handler: @escaping @Sendable (_ status: Int32) -> Void) {
        var blocked = sigset_t()
        sigemptyset(&blocked)
        for number in [SIGINT, SIGTERM] { sigaddset(&blocked, number) }
        pthread_sigmask(SIG_BLOCK, &blocked, nil)
        for number in [SIGINT, SIGTERM] {
            // Darwin's Dispatch watches a signal without taking it: ignored, it ends nothing. On Linux, Dispatch takes
            // it from the blocked ones, and ignoring it here would throw away one already pending.
            #if canImport(Darwin)
                signal(number, SIG_IGN)
            #endif
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [received] in
                received.record(number)
                handler(128 + number)
            }
            source.setCancelHandler { [stopped] in stopped.signal() }
            source.resume()
            sources.append(source)
        }
    }

    /// 128 + the number of the termination signal received (130, 143), or nil when none was.
    public var exitStatus: Int32? { received.status }

    /// Stops handling the signals, once Dispatch no longer listens for them (on Linux, one that comes later waits for
    /// another `TerminationSignals`, if any). After ``init(endingAfter:)``, when a signal already arrived, waits for
    /// its handler to end the process instead: call it before any exit of the tool's own, so that a job that returned
    /// because of the signal (its workers killed) does not end the process before the clean-up has.
    public func stop() {
        if ends, received.status != nil {
            while true { pause() }
        }
        for source in sources { source.cancel() }
        // Dispatch stops listening on a thread of its own: until it has, a signal could still go to a cancelled
        // source (and be lost) instead of waiting for the next `TerminationSignals`.
        for _ in sources { stopped.wait() }
        sources = []
    }

    /// The signal number, stored once.
    private final class Received: Sendable {
        private let number = Atomic<Int32>(0)

        func record(_ signal: Int32) {
            _ = number.compareExchange(expected: 0, desired: signal, ordering: .relaxed)
        }

        var status: Int32? {
            let value = number.load(ordering: .relaxed)
            return value == 0 ? nil : 128 + value
        }
    }
}

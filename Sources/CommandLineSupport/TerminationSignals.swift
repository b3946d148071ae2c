import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// SIGINT (Ctrl-C) and SIGTERM turned into a cancellation: a tool that writes an output asks its job to stop (the job
/// removes its temporary file on the way out), then ends with the shell's status for the signal, 128 + its number
/// (130 for SIGINT, 143 for SIGTERM), through ``exitStatus``.
///
/// The signals are delivered to dispatch sources, never to a C handler, so the cancellation runs as ordinary code.
/// Deliberately not `Sendable`: the tool's main code keeps it as long as the job runs (the sources live as long as
/// it does).
public final class TerminationSignals {
    /// The first termination signal received, 0 before any.
    private let received = Received()
    private var sources: [any DispatchSourceSignal] = []

    /// From now on, SIGINT and SIGTERM call `cancel` (on a dispatch queue) instead of ending the process; the first
    /// one is remembered for ``exitStatus``.
    public init(cancel: @escaping @Sendable () -> Void) {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [received] in
                received.record(number)
                cancel()
            }
            source.resume()
            sources.append(source)
        }
    }

    /// 128 + the number of the termination signal received (130, 143), or nil when none was.
    public var exitStatus: Int32? { received.status }

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

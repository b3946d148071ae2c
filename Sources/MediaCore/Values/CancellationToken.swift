import Synchronization

/// A flag one side sets to stop a job (a cover, a composition), which the job reads between steps and FFmpeg's
/// interrupt callback reads during blocking reads (``Interruption``). Setting it is final.
package final class CancellationToken: Sendable {
    private let flag = Atomic<Bool>(false)

    package init() {}

    /// Whether ``cancel()`` was called.
    package var isCancelled: Bool { flag.load(ordering: .acquiring) }

    /// Asks the job to stop; it stops at its next check.
    package func cancel() {
        flag.store(true, ordering: .releasing)
    }
}

import Synchronization

/// A flag one side sets to stop a cover job, which the job reads between packets.
package final class CancellationToken: Sendable {
    private let flag = Atomic<Bool>(false)

    package var isCancelled: Bool { flag.load(ordering: .acquiring) }

    package func cancel() {
        flag.store(true, ordering: .releasing)
    }
}

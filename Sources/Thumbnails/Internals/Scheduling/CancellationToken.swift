import Synchronization

/// A flag one side sets to stop a cover job, which the job reads between packets.
final class CancellationToken: Sendable {
    private let flag = Atomic<Bool>(false)

    var isCancelled: Bool { flag.load(ordering: .acquiring) }

    func cancel() {
        flag.store(true, ordering: .releasing)
    }
}

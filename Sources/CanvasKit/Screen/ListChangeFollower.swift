import Foundation
import Locking
import Observing

/// Follows a board's canvas list: the changes are queued on the thread that made them, in the board's order, and
/// applied on the main actor (at once when already there), through ``apply``. Not generic, so that the observation
/// handler, which runs on any thread, captures no type of the adapter.
@MainActor
final class ListChangeFollower {
    /// Applies one change; set by the adapter.
    var apply: ((ObservedChange<[CanvasModel]>) -> Void)?
    /// The observation of the board's canvas list.
    private(set) var canvasesToken: ObservationToken?
    /// The board's list changes not applied yet, in the board's order.
    private let pendingListChanges = ListChangeQueue()
    private var isApplyingListChanges = false

    init(board: CanvasBoard) {
        // Delivered on the mutating thread, which may be any thread: the change is queued there, in the board's
        // order, and the queue is applied on the main actor (at once when already there). A change is never applied
        // off the main actor, and never out of order (a change made on the main actor while earlier ones wait for
        // their hop applies those first).
        let pending = pendingListChanges
        canvasesToken = board.observe(\.canvases, options: [.new]) { [weak self] _, change in
            pending.append(change)
            guard let self else { return }
            if isOnMainActor {
                MainActor.assumeIsolated { self.applyPendingListChanges() }
            } else {
                Task { @MainActor in self.applyPendingListChanges() }
            }
        }
    }

    func applyPendingListChanges() {
        // A change made while one is being applied (by a collection view callback) is picked up by the loop already
        // running.
        guard !isApplyingListChanges else { return }
        isApplyingListChanges = true
        defer { isApplyingListChanges = false }
        while let change = pendingListChanges.next() { apply?(change) }
    }
}

/// The board's list changes, handed from the thread that made them to the main actor, in order.
private final class ListChangeQueue: Sendable {
    private let changes = LockedValue<[ObservedChange<[CanvasModel]>]>([])

    func append(_ change: ObservedChange<[CanvasModel]>) {
        changes.withLock { $0.append(change) }
    }

    /// The oldest waiting change, removed from the queue.
    func next() -> ObservedChange<[CanvasModel]>? {
        changes.withLock { $0.isEmpty ? nil : $0.removeFirst() }
    }
}

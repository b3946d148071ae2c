import Foundation
import Locking
import MediaCore
import Synchronization

/// The one place covers are admitted and started: every public API (blocking, async,
/// completion handler, the sequences, ``CoverService``, `CoverBatch` in-process or in worker
/// processes) hands its work to a scheduler, which owns
/// - the concurrency limit: at most ``limit`` items run at once, whoever submitted them;
/// - the admission order: items wait in ``Group``s, each with its own limit and order (oldest
///   first unless the group says newest first); when a slot frees, the groups with waiting
///   items take turns (the one that has waited longest since it was last admitted an item, or
///   since its first item arrived, goes first), and within a group its oldest (or newest) item
///   is taken. Items submitted without a group share one, so single calls start in the order
///   they were made;
/// - cancellation: a waiting item withdrawn (by its token, its group, or ``cancelAll()``) is
///   dropped without ever starting, its `dropped` closure called instead of its work; a running
///   item sees the same request through its ``Cancellation`` at its next packet;
/// - where work runs: a submitted item on a thread the scheduler starts (a thread that finishes
///   an item takes the next admitted one, so a busy group keeps its threads), a ``run(name:token:group:_:)``
///   item on its caller's thread once admitted.
///
/// Each submitted item gets exactly one of its two closures called: `work` (admitted) or
/// `dropped` (withdrawn or cancelled before it was admitted). What `work` returns to run
/// afterwards (a completion handler, a batch's report: code of the caller's) runs once the
/// item's slot is free, so it may itself wait for a cover of the same scheduler without
/// deadlocking it.
package final class DecodeScheduler: Sendable {
    /// What an item's work hands back to run once its slot is free.
    package typealias FollowUp = @Sendable () -> Void

    /// Which waiting item of a group is admitted first.
    package enum Order: Sendable {
        /// In the order they were submitted (the default: batches, sequences, single calls).
        case oldestFirst
        /// The last submitted first (a grid's cells: those just scrolled into view).
        case newestFirst
    }

    /// A caller's share of the scheduler: at most `limit` of its items run at once (and never
    /// more than the scheduler's own limit), admitted in `order`. Withdrawing a group cancels
    /// every item it has, waiting or running, for good.
    package final class Group: Sendable {
        package let limit: Int
        package let order: Order
        fileprivate let token = CancellationToken()

        package init(limit: Int = .max, order: Order = .oldestFirst) {
            self.limit = max(1, limit)
            self.order = order
        }
    }

    /// What a running item asks between packets and in FFmpeg's interrupt callback: whether its
    /// token, its group or the scheduler's ``cancelAll()`` (since it was submitted), or the
    /// current task, asked it to stop.
    package struct Cancellation: Sendable {
        fileprivate let token: CancellationToken?
        fileprivate let group: Group
        fileprivate let epoch: Int
        fileprivate let scheduler: DecodeScheduler

        package var isRequested: Bool {
            isWithdrawn || Task.isCancelled
        }

        /// Cancelled by the token, the group or `cancelAll()` (not by a task).
        fileprivate var isWithdrawn: Bool {
            token?.isCancelled == true || group.token.isCancelled
                || scheduler.epoch.load(ordering: .relaxed) != epoch
        }
    }

    /// The most items running at once.
    package let limit: Int
    /// Advanced by ``cancelAll()``; an item stops when the epoch it was submitted in has passed.
    private let epoch = Atomic<Int>(0)
    private let state = LockedValue(State())
    /// The group of items submitted without one.
    private let ungrouped = Group()

    /// A scheduler running at most `limit` items at once (`.max`: no limit of its own).
    package init(limit: Int = .max) {
        self.limit = max(1, limit)
    }

    // MARK: Submitting

    /// Queues `work` to run on a thread of the scheduler once admitted; `dropped` is called
    /// instead (on the withdrawing thread, or this one) when the item is cancelled first.
    package func submit(
        group: Group? = nil,
        token: CancellationToken? = nil,
        work: @escaping @Sendable (Cancellation) -> FollowUp?,
        dropped: @escaping @Sendable () -> Void
    ) {
        enqueue(group: group, token: token, start: .thread(work), dropped: dropped)
    }

    /// Runs `body` on the calling thread once admitted (at once when a slot is free and nothing
    /// waits before it), holding its slot until `body` returns.
    ///
    /// - Throws: `.cancelled` ("NAME: cancelled") when the item was withdrawn or cancelled before
    ///   its turn; otherwise what `body` throws.
    package func run<Value>(
        name: String,
        token: CancellationToken? = nil,
        group: Group? = nil,
        _ body: (Cancellation) throws(ThumbnailError) -> Value
    ) throws(ThumbnailError) -> Value {
        let gate = CallerGate()
        let entry = enqueue(group: group, token: token, start: .caller(gate), dropped: { gate.open(admitted: false) })
        guard gate.wait() else {
            throw ThumbnailError(.cancelled, reason: "\(name): cancelled")
        }
        defer { perform(state.withLock { state in state.finish(entry, limit: limit) }) }
        return try body(entry.cancellation)
    }

    // MARK: Cancelling

    /// Withdraws the waiting items submitted with `token` (their `dropped` is called now); one
    /// already running stops at its next check when the token is cancelled (the caller cancels it).
    package func withdraw(_ token: CancellationToken) {
        perform(state.withLock { state in state.remove(where: { $0.token === token }) })
    }

    /// Cancels `group` for good: its waiting items are dropped now, its running ones stop at
    /// their next check, and items submitted to it later are dropped at once.
    package func withdraw(_ group: Group) {
        group.token.cancel()
        perform(state.withLock { state in state.remove(where: { $0.group === group }) })
    }

    /// Stops everything submitted so far: waiting items are dropped, running ones stop at their
    /// next check. Items submitted afterwards run normally.
    package func cancelAll() {
        epoch.add(1, ordering: .sequentiallyConsistent)
        perform(state.withLock { state in state.remove(where: { _ in true }) })
    }

    #if THUMBNAILS_TEST_HOOKS
        /// The most items that ran at once so far, and how many were admitted (tests check the
        /// limit and that a dropped item never started).
        package var peakRunning: Int { state.withLock { $0.peakRunning } }
        package var admittedCount: Int { state.withLock { $0.admitted } }
    #endif

    // MARK: Inside

    /// How an admitted item starts.
    private enum Start: Sendable {
        /// On a scheduler thread.
        case thread(@Sendable (Cancellation) -> FollowUp?)
        /// On the thread waiting in ``run(name:token:group:_:)``.
        case caller(CallerGate)
    }

    private struct Entry: Sendable {
        let id: Int
        let group: Group
        let token: CancellationToken?
        let cancellation: Cancellation
        let start: Start
        let dropped: @Sendable () -> Void
    }

    /// A group's waiting items (in submission order), how many of its items run, and its turn.
    private struct Queue: Sendable {
        let group: Group
        /// When the group was last admitted an item (or its first item arrived): the group with
        /// the smallest turn goes first. Ticks of ``State/nextID``.
        var turn: Int
        var waiting: [Entry] = []
        var head = 0
        var running = 0

        var hasWaiting: Bool { head < waiting.count }

        mutating func take() -> Entry {
            let entry: Entry
            if group.order == .oldestFirst {
                entry = waiting[head]
                head += 1
            } else {
                entry = waiting.removeLast()
            }
            if head == waiting.count {
                waiting.removeAll(keepingCapacity: true)
                head = 0
            }
            return entry
        }
    }

    /// What to do once the lock is released: items to start and items to drop.
    private struct Actions: Sendable {
        var start: [Entry] = []
        var drop: [Entry] = []
    }

    private struct State: Sendable {
        var queues: [ObjectIdentifier: Queue] = [:]
        var running = 0
        var nextID = 0
        #if THUMBNAILS_TEST_HOOKS
            var peakRunning = 0
            var admitted = 0
        #endif

        /// Admits waiting items while slots are free: the groups take turns (the smallest turn
        /// first). An item cancelled meanwhile is dropped rather than started.
        mutating func admit(limit: Int) -> Actions {
            var actions = Actions()
            while running < limit {
                var chosen: ObjectIdentifier?
                var earliest = Int.max
                for (key, queue) in queues
                where queue.hasWaiting && queue.running < queue.group.limit && queue.turn < earliest {
                    chosen = key
                    earliest = queue.turn
                }
                guard let key = chosen, let entry = queues[key]?.take() else { break }
                nextID += 1
                queues[key]?.turn = nextID
                if entry.cancellation.isWithdrawn {
                    actions.drop.append(entry)
                    forgetIfIdle(key)
                    continue
                }
                queues[key]?.running += 1
                running += 1
                #if THUMBNAILS_TEST_HOOKS
                    peakRunning = max(peakRunning, running)
                    admitted += 1
                #endif
                actions.start.append(entry)
            }
            return actions
        }

        /// Frees `entry`'s slot and admits what can run next.
        mutating func finish(_ entry: Entry, limit: Int) -> Actions {
            let key = ObjectIdentifier(entry.group)
            running -= 1
            queues[key]?.running -= 1
            forgetIfIdle(key)
            return admit(limit: limit)
        }

        /// Takes the waiting items `matches` accepts off their queues.
        mutating func remove(where matches: (Entry) -> Bool) -> Actions {
            var actions = Actions()
            for key in Array(queues.keys) {
                guard var queue = queues[key] else { continue }
                let waiting = queue.waiting[queue.head...]
                actions.drop.append(contentsOf: waiting.filter(matches))
                queue.waiting = waiting.filter { !matches($0) }
                queue.head = 0
                queues[key] = queue
                forgetIfIdle(key)
            }
            actions.drop.sort { $0.id < $1.id }
            return actions
        }

        private mutating func forgetIfIdle(_ key: ObjectIdentifier) {
            if let queue = queues[key], !queue.hasWaiting, queue.running == 0 {
                queues[key] = nil
            }
        }
    }

    @discardableResult
    private func enqueue(
        group: Group?,
        token: CancellationToken?,
        start: Start,
        dropped: @escaping @Sendable () -> Void
    ) -> Entry {
        let group = group ?? ungrouped
        let cancellation = Cancellation(
            token: token, group: group, epoch: epoch.load(ordering: .sequentiallyConsistent), scheduler: self)
        let (entry, actions) = state.withLock { state -> (Entry, Actions) in
            state.nextID += 1
            let entry = Entry(
                id: state.nextID, group: group, token: token, cancellation: cancellation, start: start,
                dropped: dropped)
            // Checked under the lock that `withdraw` takes: a token cancelled before this point is
            // seen here, one cancelled after finds the item queued.
            if cancellation.isWithdrawn { return (entry, Actions(drop: [entry])) }
            let key = ObjectIdentifier(group)
            state.queues[key, default: Queue(group: group, turn: entry.id)].waiting.append(entry)
            return (entry, state.admit(limit: limit))
        }
        perform(actions)
        return entry
    }

    /// Drops and starts items, outside the lock.
    private func perform(_ actions: Actions) {
        for entry in actions.drop { entry.dropped() }
        for entry in actions.start { launch(entry) }
    }

    /// Starts an admitted item: the one place work begins.
    private func launch(_ entry: Entry) {
        switch entry.start {
        case .caller(let gate):
            gate.open(admitted: true)
        case .thread:
            // A thread of its own rather than a dispatch queue, whose pool is sized by the cores:
            // a group allowed more items than cores (inputs on a slow disk or a network share)
            // would silently run no more at once than there are cores.
            Thread { self.runOnThisThread(entry) }.start()
        }
    }

    /// Runs `first`, then an item admitted when one finishes here that also runs on a scheduler
    /// thread (the others are launched). When an item hands back a follow-up, its slot is freed
    /// and everything admitted is launched on threads of its own before the follow-up runs here,
    /// so a follow-up that waits for another item of this scheduler finds the slot free.
    private func runOnThisThread(_ first: Entry) {
        var next: Entry? = first
        while let entry = next {
            guard case .thread(let work) = entry.start else { return }
            let followUp = work(entry.cancellation)
            var actions = state.withLock { state in state.finish(entry, limit: limit) }
            next = nil
            if followUp == nil,
                let index = actions.start.firstIndex(where: { if case .thread = $0.start { true } else { false } })
            {
                next = actions.start.remove(at: index)
            }
            perform(actions)
            followUp?()
        }
    }
}

/// Where a ``DecodeScheduler/run(name:token:group:_:)`` caller waits for its turn.
private final class CallerGate: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let admitted = Atomic<Bool>(false)

    /// Lets the caller go on: to run (`admitted`) or to throw `.cancelled`.
    func open(admitted: Bool) {
        self.admitted.store(admitted, ordering: .releasing)
        semaphore.signal()
    }

    /// Waits for ``open(admitted:)``; true when admitted.
    func wait() -> Bool {
        semaphore.wait()
        return admitted.load(ordering: .acquiring)
    }
}

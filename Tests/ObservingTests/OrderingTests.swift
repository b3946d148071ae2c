import Dispatch
import Foundation
import Observing
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An observable object that runs `onDeinit` when it goes away.
final class Scratch: KeyValueObservable {
    @Observed var mark = 0
    private let onDeinit: () -> Void

    init(onDeinit: @escaping () -> Void) {
        self.onDeinit = onDeinit
    }

    deinit {
        onDeinit()
    }
}

/// A model with a computed property whose getter reads a temporary observable object; the temporary's
/// deinit writes `level` once (the first time), so that a write lands while `observe` registers.
///
/// Why `@unchecked Sendable` is safe: `level` is `@Observed` (behind its storage's lock) and `armed` is atomic.
final class Gauge: KeyValueObservable, @unchecked Sendable {
    @Observed var level = 0
    let armed = Atomic<Bool>(false)

    var levelWithTemporary: Int {
        let temporary = Scratch { [self] in
            if armed.exchange(false, ordering: .relaxed) {
                level = 42
            }
        }
        return level + temporary.mark
    }
}

/// One observation's calls, as (old, new) pairs; the initial call has no old value.
final class ChangeLog: Sendable {
    private let entries = Protected<[(old: Int?, new: Int?)]>([])

    func append(_ change: ObservedChange<Int>) {
        entries.withLock { $0.append((change.oldValue, change.newValue)) }
    }

    var all: [(old: Int?, new: Int?)] {
        entries.withLock { $0 }
    }

    var count: Int {
        entries.withLock { $0.count }
    }

    /// The ways the log breaks O11: a call before the initial one, or a change whose old value is not the
    /// previous call's new value (a change overtook another or was lost).
    func violations(initial: Bool) -> [String] {
        let entries = all
        var problems: [String] = []
        for (index, entry) in entries.enumerated() {
            if index == 0 && initial {
                if entry.old != nil {
                    problems.append("call 0 is a change \(entry), not the initial call")
                }
                continue
            }
            if entry.old == nil {
                problems.append("call \(index) is an initial call after other calls")
            } else if index > 0, entry.old != entries[index - 1].new {
                problems.append("call \(index): old \(entry.old!) is not the previous new \(entries[index - 1].new!)")
            }
        }
        return problems
    }
}

/// O11: the initial call first, with the value current when it runs; then every change once, in store order,
/// in every delivery mode and with any number of writing threads.
@Suite struct OrderingTests {
    /// A write made between the subscription and the initial call (by a deinit run when `observe` releases what
    /// it read) is delivered after the initial call, which carries the value stored before it.
    @Test func changeMadeDuringRegistrationComesAfterTheInitialCall() {
        let gauge = Gauge()
        gauge.armed.store(true, ordering: .relaxed)
        let log = ChangeLog()
        let token = gauge.observe(\.levelWithTemporary, options: [.initial, .old, .new]) { _, change in
            log.append(change)
        }
        #expect(gauge.level == 42, "the temporary's deinit did not write")
        let entries = log.all
        #expect(entries.count == 2)
        #expect(entries.first?.old == nil && entries.first?.new == 0, "the initial call did not come first")
        #expect(entries.last?.old == 0 && entries.last?.new == 42)
        #expect(log.violations(initial: true) == [])
        token.invalidate()
    }

    /// The same with queue delivery: the two calls are put on the queue in that order too.
    @Test func changeMadeDuringRegistrationIsQueuedAfterTheInitialCall() async {
        let gauge = Gauge()
        gauge.armed.store(true, ordering: .relaxed)
        let queue = DispatchQueue(label: "observing.ordering")
        let log = ChangeLog()
        let token = gauge.observe(\.levelWithTemporary, options: [.initial, .old, .new], delivery: .queue(queue)) {
            _, change in
            log.append(change)
        }
        await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
        let entries = log.all
        #expect(entries.count == 2)
        #expect(entries.first?.old == nil && entries.first?.new == 0, "the initial call did not come first")
        #expect(log.violations(initial: true) == [])
        token.invalidate()
    }

    /// One thread writes in a loop while another registers with `.initial` and queue delivery, over and over:
    /// each observation's first call is the initial one, and its changes follow it in store order.
    @Test func initialCallComesFirstWhileAnotherThreadWrites() async {
        let counter = Counter()
        let stop = Flag()
        let writer = StartedThread {
            var value = 0
            while !stop.isSet {
                value += 1
                counter.value = value
            }
        }
        let queue = DispatchQueue(label: "observing.ordering.initial")
        let deadline = Deadline(seconds: StressScale.seconds)
        var logs: [ChangeLog] = []
        var rounds = 0
        while !deadline.hasPassed || rounds < 200 {
            rounds += 1
            let log = ChangeLog()
            let token = counter.observe(\.value, options: [.initial, .old, .new], delivery: .queue(queue)) {
                _, change in
                log.append(change)
            }
            // Let a few changes through, then end it.
            for _ in 0..<50 { sched_yield() }
            token.invalidate()
            logs.append(log)
        }
        stop.set()
        await writer.finished()
        await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
        let problems = logs.flatMap { $0.violations(initial: true) }
        #expect(problems.isEmpty, "\(problems.count) violations, first: \(problems.prefix(3))")
    }

    /// Several threads write one property, each its own distinct values, while observations with each
    /// delivery mode record what they get: each change's old value is the previous change's new value, none
    /// is lost (one call per write: every write changes the value), and the last one is the stored value.
    @Test(arguments: ["thread", "queue", "mainActor"])
    func changesFromSeveralWritersArriveInStoreOrder(mode: String) async {
        let counter = Counter()
        let log = ChangeLog()
        let queue = DispatchQueue(label: "observing.ordering.writers")
        let delivery: ObservationDelivery =
            switch mode {
            case "thread": .mutatingThread
            case "queue": .queue(queue)
            default: .mainActor
            }
        let token = counter.observe(\.value, options: [.old, .new], delivery: delivery) { _, change in
            log.append(change)
        }
        let writers = StressScale.threads
        let writesPerThread = 20_000
        await runOnThreads(writers) { index in
            for step in 1...writesPerThread {
                counter.value = step * writers + index
            }
        }
        let total = writers * writesPerThread
        switch mode {
        case "queue":
            await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
        case "mainActor":
            while log.count < total {
                await MainActor.run {}
                await Task.yield()
            }
        default:
            break
        }
        let problems = log.violations(initial: false)
        #expect(problems.isEmpty, "\(problems.count) violations, first: \(problems.prefix(3))")
        #expect(log.count == total, "changes were lost or duplicated")
        #expect(log.all.last?.new == counter.value, "the last change is not the stored value")
        token.invalidate()
    }

    /// The same through a chained key path (ordered by the observation itself, not by one storage). A chain reads
    /// its path again when a link changes, so a value overwritten before that read is not reported on its own
    /// (the next change covers it): fewer calls than writes, but never a stale or out-of-order one.
    @Test func chainedChangesFromSeveralWritersArriveInStoreOrder() async {
        let library = SharedLibrary()
        let log = ChangeLog()
        let token = library.observe(\.shelf.count, options: [.old, .new]) { _, change in log.append(change) }
        let writers = StressScale.threads
        let writesPerThread = 5_000
        await runOnThreads(writers) { index in
            for step in 1...writesPerThread {
                library.shelf.count = step * writers + index
            }
        }
        let problems = log.violations(initial: false)
        #expect(problems.isEmpty, "\(problems.count) violations, first: \(problems.prefix(3))")
        #expect(log.count <= writers * writesPerThread, "changes were duplicated")
        #expect(log.all.last?.new == library.shelf.count, "the last change is not the stored value")
        token.invalidate()
    }

    /// Main-actor delivery: a change made on the main actor while an earlier change waits on the main queue
    /// is not delivered at once (it would overtake the earlier one): it is queued behind it.
    @MainActor
    @Test func mainActorChangeDoesNotOvertakeOneWaitingOnTheMainQueue() async {
        let counter = Counter()
        let log = ChangeLog()
        let token = counter.observe(\.value, options: [.old, .new], delivery: .mainActor) { _, change in
            log.append(change)
        }
        // Written on another thread while the main actor is busy here: its call waits on the main queue.
        DispatchQueue.global().sync { counter.value = 1 }
        counter.value = 2
        while log.count < 2 {
            await Task.yield()
        }
        #expect(log.all.map(\.new) == [1, 2])
        #expect(log.violations(initial: false) == [])
        token.invalidate()
    }
}

/// Why `@unchecked Sendable` is safe: every stored property is `@Observed` (behind its storage's lock).
final class SharedShelf: KeyValueObservable, @unchecked Sendable {
    @Observed var count = 0
}

/// Why `@unchecked Sendable` is safe: every stored property is `@Observed` (behind its storage's lock).
final class SharedLibrary: KeyValueObservable, @unchecked Sendable {
    @Observed var shelf = SharedShelf()
}

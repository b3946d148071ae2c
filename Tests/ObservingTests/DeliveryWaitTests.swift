import Dispatch
import Foundation
import Observing
import Synchronization
import Testing

// Deliveries that must never wait forever: calls handed to a queue whose handlers write, an issue handler that writes,
// a deinit that writes while a drain releases its queue. Each scenario runs on threads it starts and waits with a
// timeout, so a deadlock fails the test instead of hanging the run; on a deadlock the tokens are leaked on purpose
// (ending them would wait on the stuck threads too).

/// Why `@unchecked Sendable` is safe: every stored property is `@Observed` (its value behind the storage's lock) or a
/// `let`, and the wrappers' own storage fields are written only by the initializer.
private final class WaitChild: KeyValueObservable, @unchecked Sendable {
    @Observed var name = ""
}

/// Why `@unchecked Sendable` is safe: every stored property is `@Observed` (its value behind the storage's lock) or a
/// `let`, and the wrappers' own storage fields are written only by the initializer.
private final class WaitModel: KeyValueObservable, @unchecked Sendable {
    let child = WaitChild()
    @Observed var a = 0
    @Observed var b = 0
}

private final class Tenant {
    weak var room: Room?
    init(room: Room) { self.room = room }
    deinit { room?.tenant = nil }
}

/// Why `@unchecked Sendable` is safe: every stored property is `@Observed` (its value behind the storage's lock) or a
/// `let`, and the wrappers' own storage fields are written only by the initializer.
private final class Room: KeyValueObservable, @unchecked Sendable {
    @Observed var tenant: Tenant?
    @Observed var count = 0
}

private final class FirstTime: Sendable {
    private let value = Atomic<Bool>(true)
    func takeFirst() -> Bool { value.exchange(false, ordering: .relaxed) }
}

private final class TokenBox: Sendable {
    let token = Mutex<ObservationToken?>(nil)
}

/// The objects of a deadlocked scenario, kept alive so that nothing ends them (that would wait on the stuck threads).
///
/// Why `@unchecked Sendable` is safe: `objects` is only touched under `lock`.
private final class Leaked: @unchecked Sendable {
    let lock = NSLock()
    var objects: [AnyObject] = []
}

private let leaked = Leaked()

private func leak(_ objects: AnyObject...) {
    leaked.lock.lock()
    leaked.objects.append(contentsOf: objects)
    leaked.lock.unlock()
}

private func onThread(_ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        body()
        done.signal()
    }
    thread.start()
    return done
}

private func finishes(_ semaphore: DispatchSemaphore) -> Bool {
    semaphore.wait(timeout: .now() + 5) == .success
}

@Suite("Deliveries never wait forever: queued calls, issue handlers and deinits that write")
struct DeliveryWaitTests {
    /// a queue-delivered chain whose handler writes a property; a transaction on another thread writes the chain's
    /// link, then that property. The queue thread drains its queued write holding the chain's call lock and waits for
    /// the transaction's turn; the transaction's drain waits for the chain's call lock. (The handler's wait only
    /// forces the interleaving; it has returned when the two threads deadlock.)
    @Test func queueChainHandlerWriteAgainstTransaction() {
        let model = WaitModel()
        let queue = DispatchQueue(label: "waits.a")
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let first = FirstTime()
        let direct = model.observe(\.b) { _, _ in }
        let chain = model.observe(\.child.name, options: [.initial, .new], delivery: .queue(queue)) { model, _ in
            if first.takeFirst() {
                entered.signal()
                proceed.wait()
                model.b = 2
            }
        }
        entered.wait()
        let writer = onThread {
            withObservationTransaction {
                model.child.name = "x"
                model.b = 1
                proceed.signal()
            }
        }
        let writerFinished = finishes(writer)
        let queueIdle = DispatchSemaphore(value: 0)
        queue.async { queueIdle.signal() }
        let queueFinished = finishes(queueIdle)
        #expect(writerFinished)
        #expect(queueFinished)
        if writerFinished && queueFinished {
            direct.invalidate()
            chain.invalidate()
        } else {
            leak(direct, chain, model)
        }
    }

    /// a queue-delivered chain whose handler writes the chain's own link: the queue thread drains that write
    /// while it holds the chain's call lock, and the drain takes the same lock again.
    @Test func queueChainHandlerWritesItsOwnLink() {
        let model = WaitModel()
        let queue = DispatchQueue(label: "waits.b")
        let chain = model.observe(\.child.name, options: [.new], delivery: .queue(queue)) { model, change in
            if change.newValue == "a" { model.child.name = "b" }
        }
        model.child.name = "a"
        let queueIdle = DispatchSemaphore(value: 0)
        queue.async { queueIdle.signal() }
        let queueFinished = finishes(queueIdle)
        #expect(queueFinished)
        if queueFinished { chain.invalidate() } else { leak(chain, model) }
    }

    /// an issue handler that writes an observed property: called in the drain at depth 0, its write is delivered
    /// at once and waits for the turn of the notification being skipped, which this same thread holds.
    @Test func issueHandlerWriteDuringCycleStop() {
        let model = WaitModel()
        let token = model.observe(\.a, options: [.new]) { model, change in
            if change.newValue! > 0 { model.a = change.newValue! + 1 }
        }
        let issues = ObservationDiagnostics.addIssueHandler { _ in model.a = 0 }
        let writer = onThread { ObservationDiagnostics.withMaximumRounds(3) { model.a = 1 } }
        let writerFinished = finishes(writer)
        issues.invalidate()
        #expect(writerFinished)
        if writerFinished { token.invalidate() } else { leak(token, model) }
    }

    /// a handler invalidates a queue-delivered observation whose call (on the queue) is draining a write of the
    /// property the first handler observes: end() waits for the call lock, the drain waits for the handler's turn.
    @Test func invalidateAgainstQueueCallDraining() {
        let model = WaitModel()
        let queue = DispatchQueue(label: "waits.d")
        let inHandler = DispatchSemaphore(value: 0)
        let queueWrote = DispatchSemaphore(value: 0)
        let box = TokenBox()
        let onQueue = model.observe(\.a, options: [.new], delivery: .queue(queue)) { model, _ in
            inHandler.wait()
            model.b = 2
            queueWrote.signal()
        }
        box.token.withLock { $0 = onQueue }
        let onWriter = model.observe(\.b, options: [.new]) { _, change in
            if change.newValue == 1 {
                inHandler.signal()
                queueWrote.wait()
                box.token.withLock { $0 }?.invalidate()
            }
        }
        model.a = 1
        let writer = onThread { model.b = 1 }
        let writerFinished = finishes(writer)
        #expect(writerFinished)
        if writerFinished { onWriter.invalidate() } else { leak(onWriter, onQueue, model, box) }
    }

    /// a value released when the drain clears its queue has a deinit that writes an observed property whose
    /// handler writes again: the write is queued while the queue is being cleared.
    @Test func deinitWriteWhileTheDrainClearsItsQueue() {
        let room = Room()
        let onTenant = room.observe(\.tenant, options: [.new]) { room, _ in room.count += 1 }
        let onCount = room.observe(\.count) { _, _ in }
        room.tenant = Tenant(room: room)
        let writer = onThread { withObservationTransaction { room.tenant = nil } }
        let writerFinished = finishes(writer)
        #expect(writerFinished)
        let late = onThread { room.count = 100 }
        let lateFinished = finishes(late)
        #expect(lateFinished)
        if writerFinished && lateFinished {
            onTenant.invalidate()
            onCount.invalidate()
        } else {
            leak(onTenant, onCount, room)
        }
    }
}

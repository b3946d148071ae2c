import Dispatch
import Locking
import Synchronization

/// A bounded queue between two threads (a take's feed and the thread that composes and encodes; the feed's free
/// slots the other way): the producer waits while `capacity` items are queued, the consumer while none is. Waiting
/// is on semaphores, never a spin.
///
/// The consumer may stop: ``close()`` wakes a producer waiting for room, whose push then returns false.
final class FrameQueue<Element: Sendable>: Sendable {
    // `LockedValue`, not a bare `Mutex`: its sections are announced to ThreadSanitizer, which does not see
    // `Synchronization.Mutex` on Linux (and so reported the producer's and the consumer's sections as a race).
    private let items = LockedValue<[Element]>([])
    private let room: DispatchSemaphore
    private let available = DispatchSemaphore(value: 0)
    private let closed = Atomic<Bool>(false)
    private let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        // The room is made by signalling, not given as the semaphore's initial value: libdispatch stops the process
        // when a semaphore is freed with a value below its initial one, which a queue dropped with items still in it
        // (a composition that stopped while a take's feed was ahead) would be.
        room = DispatchSemaphore(value: 0)
        for _ in 0..<capacity { room.signal() }
    }

    /// Queues `element`, waiting for room; false (and nothing queued) once the consumer has closed the queue.
    @discardableResult
    func push(_ element: Element) -> Bool {
        room.wait()
        guard !closed.load(ordering: .acquiring) else {
            room.signal()
            return false
        }
        items.withLock { $0.append(element) }
        available.signal()
        return true
    }

    /// The next element, waiting for one.
    func pop() -> Element {
        available.wait()
        let element = items.withLock { $0.removeFirst() }
        room.signal()
        return element
    }

    /// The consumer stops taking elements: a producer waiting for room, or pushing later, gets false.
    func close() {
        closed.store(true, ordering: .releasing)
        room.signal()
    }
}

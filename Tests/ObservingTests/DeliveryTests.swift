import Dispatch
import Foundation
import Observing
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A model confined to the main actor: `Sendable` because it is isolated, so it can be observed with
/// main-actor handlers that update main-actor view-models directly. Its observed property is `nonisolated` (its value
/// lives behind the storage's lock), so that its key path is `Sendable`.
@MainActor
final class MainActorCanvas: KeyValueObservable {
    private let _isSelected = Observed(wrappedValue: false)

    nonisolated var isSelected: Bool {
        get { _isSelected[self, \.isSelected] }
        set { _isSelected[self, \.isSelected] = newValue }
    }
}

@MainActor
final class CanvasViewModel {
    private(set) var highlighted = false
    private var token: ObservationToken?

    func bind(_ canvas: MainActorCanvas) {
        token = canvas.observeOnMainActor(\.isSelected, options: [.initial, .new]) { [weak self] _, change in
            self?.highlighted = change.newValue!
        }
    }

    func unbind() {
        token?.invalidate()
        token = nil
    }
}

/// O9: delivery on the mutating thread by default, or on a queue or the main actor per observation.
@Suite struct DeliveryTests {
    @Test func defaultDeliveryIsOnTheMutatingThreadBeforeTheSetterReturns() async {
        let counter = Counter()
        let log = Recorder<String>()
        let token = counter.observe(\.value) { _, _ in log.append("handler on \(currentThreadID())") }
        let writer = StartedThread {
            let id = currentThreadID()
            counter.value = 1
            log.append("set returned on \(id)")
        }
        await writer.finished()
        let values = log.values
        #expect(values.count == 2)
        #expect(
            values.first?.replacingOccurrences(of: "handler on ", with: "")
                == values.last?.replacingOccurrences(of: "set returned on ", with: ""))
        #expect(values.first?.hasPrefix("handler") == true)
        token.invalidate()
    }

    @Test func queueDeliveryRunsOnTheQueueInOrder() async {
        let counter = Counter()
        let queue = DispatchQueue(label: "observing.delivery")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 7)
        let seen = Recorder<String>()
        let token = counter.observe(\.value, options: [.initial, .new], delivery: .queue(queue)) { _, change in
            seen.append("\(change.newValue!) on queue: \(DispatchQueue.getSpecific(key: key) == 7)")
        }
        for value in 1...5 {
            counter.value = value
        }
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume() }
        }
        #expect(seen.values == (0...5).map { "\($0) on queue: true" })
        token.invalidate()
    }

    @Test func queueDeliveryAfterInvalidateIsDropped() async {
        let counter = Counter()
        let queue = DispatchQueue(label: "observing.delivery.drop")
        let calls = CallCounter()
        let blocker = DispatchSemaphore(value: 0)
        queue.async { blocker.wait() }
        let token = counter.observe(\.value, delivery: .queue(queue)) { _, _ in calls.increment() }
        counter.value = 1
        token.invalidate()
        blocker.signal()
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume() }
        }
        #expect(calls.count == 0)
    }

    @MainActor
    @Test func mainActorDeliveryFromAnotherThreadHopsToTheMainThread() async {
        let counter = Counter()
        let seen = Recorder<Bool>()
        let done = Flag()
        let token = counter.observe(\.value, delivery: .mainActor) { _, _ in
            seen.append(runsOnMainQueue())
            done.set()
        }
        await Task.detached { counter.value = 1 }.value
        while !done.isSet {
            await Task.yield()
        }
        #expect(seen.values == [true])
        token.invalidate()
    }

    @MainActor
    @Test func mainActorHandlerUpdatesAMainActorViewModelSynchronously() {
        let canvas = MainActorCanvas()
        let viewModel = CanvasViewModel()
        viewModel.bind(canvas)
        #expect(!viewModel.highlighted)
        canvas.isSelected = true
        #expect(viewModel.highlighted)
        viewModel.unbind()
        canvas.isSelected = false
        #expect(viewModel.highlighted)
    }

    @MainActor
    @Test func mainActorModelWorksWithTheObserver() {
        let canvas = MainActorCanvas()
        let observer = KeyValueObserver()
        let seen = Recorder<Bool>()
        observer.observe(canvas, \.isSelected, delivery: .mainActor) { _, change in
            seen.append(change.newValue!)
        }
        canvas.isSelected = true
        #expect(seen.values == [true])
    }
}

/// Whether the caller runs on the main thread or the main queue (the main actor's executor, which on
/// Linux may run on another thread).
private func runsOnMainQueue() -> Bool {
    Thread.isMainThread || DispatchQueue.getSpecific(key: testMainQueueKey) == true
}

private let testMainQueueKey: DispatchSpecificKey<Bool> = {
    let key = DispatchSpecificKey<Bool>()
    DispatchQueue.main.setSpecific(key: key, value: true)
    return key
}()

/// An identifier of the calling thread.
private func currentThreadID() -> String {
    String(describing: pthread_self())
}

import Synchronization

/// Collects values from handlers on any thread.
final class Recorder<Value: Sendable>: Sendable {
    private let storage = Protected<[Value]>([])

    func append(_ value: Value) {
        storage.withLock { $0.append(value) }
    }

    var values: [Value] {
        storage.withLock { $0 }
    }
}

/// A handler-side flag readable from any thread.
final class Flag: Sendable {
    private let state = Atomic<Bool>(false)

    var isSet: Bool { state.load(ordering: .acquiring) }

    func set() { state.store(true, ordering: .releasing) }
}

/// Counts handler calls from any thread.
final class CallCounter: Sendable {
    private let state = Atomic<Int>(0)

    var count: Int { state.load(ordering: .acquiring) }

    func increment() { state.add(1, ordering: .relaxed) }
}

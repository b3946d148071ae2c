// Observing against its peers, side by side in one run: Swift Observation (`@Observable`, `withObservationTracking`),
// NotificationCenter with a block observer, and a Mutex plus an array of closures (the floor). Each figure is the
// median of ROUNDS rounds of N operations; the CPU model is printed with them. Run in release:
//   swift run -c release ObservingBenchmark [ROUNDS] [N]
import Foundation
import Observation
import Observing
import Synchronization

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let rounds = arguments.first ?? 15
let iterations = arguments.dropFirst().first ?? 200_000

@inline(never) func blackHole<T>(_ value: T) {}

/// Nanoseconds per operation: the median of `rounds` rounds of `count` calls of `body`.
func measure(_ count: Int = iterations, _ body: (Int) -> Void) -> Double {
    var samples: [Double] = []
    for _ in 0..<rounds {
        let start = ContinuousClock.now
        for index in 0..<count { body(index) }
        let elapsed = ContinuousClock.now - start
        samples.append(
            Double(elapsed.components.attoseconds) / 1e9 / Double(count)
                + Double(elapsed.components.seconds) * 1e9 / Double(count))
    }
    return samples.sorted()[samples.count / 2]
}

func cpuModel() -> String {
    guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return "unknown CPU" }
    let line = text.split(separator: "\n").first { $0.hasPrefix("model name") }
    return line.map { String($0.split(separator: ":", maxSplits: 1)[1]).trimmingCharacters(in: .whitespaces) }
        ?? "unknown CPU"
}

// MARK: The models

final class Model: KeyValueObservable {
    @Observed var value = 0
}

@Observable final class SwiftModel {
    var value = 0
}

/// The floor: a value and its observers' closures behind one Mutex, called after it.
final class Floor: Sendable {
    private let state = Mutex<(value: Int, observers: [@Sendable (Int) -> Void])>((0, []))

    func add(_ observer: @escaping @Sendable (Int) -> Void) {
        state.withLock { $0.observers.append(observer) }
    }

    func set(_ value: Int) {
        let observers = state.withLock { state in
            state.value = value
            return state.observers
        }
        for observer in observers { observer(value) }
    }
}

let received = Atomic<Int>(0)

// MARK: Observing

let unobserved = Model()
let observingUnobservedWrite = measure { unobserved.value = $0 }

let observed = Model()
let token = observed.observe(\.value, options: [.new]) { _, change in
    received.add(change.newValue!, ordering: .relaxed)
}
let observingDelivered = measure { observed.value = $0 }
token.invalidate()

let registering = Model()
let observingObserveInvalidate = measure(iterations / 4) { _ in
    registering.observe(\.value, options: [.new]) { _, _ in }.invalidate()
}

// MARK: Swift Observation

let swiftModel = SwiftModel()
let swiftUntrackedWrite = measure { swiftModel.value = $0 }
let swiftTrackFire = measure(iterations / 4) { index in
    withObservationTracking {
        blackHole(swiftModel.value)
    } onChange: {
        received.add(1, ordering: .relaxed)
    }
    swiftModel.value = index
}

// MARK: NotificationCenter

let center = NotificationCenter()
let name = Notification.Name("ObservingBenchmark.value")
let sender = NSObject()
let notificationAddRemove = measure(iterations / 4) { _ in
    let observer = center.addObserver(forName: name, object: sender, queue: nil) { _ in }
    center.removeObserver(observer)
}
let posted = center.addObserver(forName: name, object: sender, queue: nil) { _ in
    received.add(1, ordering: .relaxed)
}
let notificationPost = measure { _ in center.post(name: name, object: sender) }
center.removeObserver(posted)

// MARK: Floor

let floor = Floor()
floor.add { received.add($0, ordering: .relaxed) }
let floorDelivered = measure { floor.set($0) }

// MARK: Report

func row(_ name: String, _ nanoseconds: Double, _ ratio: String = "") {
    print("| \(name) | \(String(format: "%.1f", nanoseconds)) | \(ratio) |")
}

func ratio(_ value: Double, _ peer: Double, _ peerName: String, target: Double) -> String {
    let times = value / peer
    return String(
        format: "%.2fx %@ (target <= %.1fx: %@)", times, peerName, target, times <= target ? "met" : "NOT met")
}

print("CPU: \(cpuModel()), \(ProcessInfo.processInfo.activeProcessorCount) cores; median of \(rounds) rounds")
print()
print("| measurement | ns | ratio |")
print("| --- | ---: | --- |")
row(
    "Observing: delivered change, 1 observer", observingDelivered,
    ratio(observingDelivered, notificationPost, "NotificationCenter post", target: 0.5) + "; "
        + ratio(observingDelivered, swiftUntrackedWrite, "@Observable untracked write", target: 1.0))
row(
    "Observing: observe + invalidate", observingObserveInvalidate,
    ratio(observingObserveInvalidate, notificationAddRemove, "NotificationCenter add + remove", target: 0.5) + "; "
        + ratio(observingObserveInvalidate, swiftTrackFire, "withObservationTracking register + fire", target: 0.5))
row(
    "Observing: write nobody observes", observingUnobservedWrite,
    ratio(observingUnobservedWrite, swiftUntrackedWrite, "@Observable untracked write", target: 1.5))
row("Swift Observation: @Observable untracked write", swiftUntrackedWrite)
row("Swift Observation: withObservationTracking register + fire", swiftTrackFire)
row("NotificationCenter: block observer add + remove", notificationAddRemove)
row("NotificationCenter: post to one observer", notificationPost)
row("floor: Mutex + closure array, 1 observer", floorDelivered)
blackHole(received.load(ordering: .relaxed))

// Observing against its peers, side by side in one run: Swift Observation (`@Observable`, `withObservationTracking`),
// NotificationCenter with a block observer, and a Mutex plus an array of closures (the floor). Each figure is the
// median of ROUNDS rounds of N operations (the thread's CPU time), the rounds of all the workloads interleaved; the CPU model is printed with
// them. Run in release:
//   swift run -c release ObservingBenchmark [ROUNDS] [N]
import Foundation
import Observation
import Observing
import Synchronization

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let rounds = arguments.first ?? 15
let iterations = arguments.dropFirst().first ?? 200_000

@inline(never) func blackHole<T>(_ value: T) {}

/// A workload: `count` calls of `body` make one round.
struct Workload {
    let count: Int
    let body: (Int) -> Void
}

/// The calling thread's CPU time in nanoseconds: the time the work itself took, whatever else the shared machine runs
/// meanwhile (every workload runs on this thread: handlers on the writing thread, posts delivered synchronously).
func threadCPUNanoseconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return Double(now.tv_sec) * 1e9 + Double(now.tv_nsec)
}

/// Nanoseconds of CPU time per operation of each workload: the median of `rounds` rounds of `count` calls. The rounds of all the
/// workloads are interleaved (round 1 of each, then round 2 of each, ...), so that on a shared machine a change of load
/// falls on Observing and its peers alike, and their ratios stay meaningful.
func measure(_ workloads: [Workload]) -> [Double] {
    var samples = Array(repeating: [Double](), count: workloads.count)
    for _ in 0..<rounds {
        for (index, workload) in workloads.enumerated() {
            let start = threadCPUNanoseconds()
            for call in 0..<workload.count { workload.body(call) }
            samples[index].append((threadCPUNanoseconds() - start) / Double(workload.count))
        }
    }
    return samples.map { $0.sorted()[$0.count / 2] }
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
let observed = Model()
let token = observed.observe(\.value, options: [.new]) { _, change in
    received.add(change.newValue!, ordering: .relaxed)
}
let registering = Model()

// MARK: Swift Observation

let swiftModel = SwiftModel()
let trackedModel = SwiftModel()

// MARK: NotificationCenter

let center = NotificationCenter()
let postCenter = NotificationCenter()
let name = Notification.Name("ObservingBenchmark.value")
let sender = NSObject()
let posted = postCenter.addObserver(forName: name, object: sender, queue: nil) { _ in
    received.add(1, ordering: .relaxed)
}

// MARK: Floor

let floor = Floor()
floor.add { received.add($0, ordering: .relaxed) }

// MARK: The run

let workloads = [
    Workload(count: iterations) { unobserved.value = $0 },
    Workload(count: iterations) { observed.value = $0 },
    Workload(count: iterations / 4) { _ in
        registering.observe(\.value, options: [.new]) { _, _ in }.invalidate()
    },
    Workload(count: iterations) { swiftModel.value = $0 },
    Workload(count: iterations / 4) { index in
        withObservationTracking {
            blackHole(trackedModel.value)
        } onChange: {
            received.add(1, ordering: .relaxed)
        }
        trackedModel.value = index
    },
    Workload(count: iterations / 4) { _ in
        let observer = center.addObserver(forName: name, object: sender, queue: nil) { _ in }
        center.removeObserver(observer)
    },
    Workload(count: iterations) { _ in postCenter.post(name: name, object: sender) },
    Workload(count: iterations) { floor.set($0) },
]
// `PROFILE_WORKLOAD=K` (an index into `workloads`): only that workload's rounds, for a profiler.
if let only = ProcessInfo.processInfo.environment["PROFILE_WORKLOAD"].flatMap(Int.init) {
    _ = measure([workloads[only]])
    exit(0)
}
let figures = measure(workloads)
token.invalidate()
postCenter.removeObserver(posted)
let observingUnobservedWrite = figures[0]
let observingDelivered = figures[1]
let observingObserveInvalidate = figures[2]
let swiftUntrackedWrite = figures[3]
let swiftTrackFire = figures[4]
let notificationAddRemove = figures[5]
let notificationPost = figures[6]
let floorDelivered = figures[7]

// MARK: Report

func row(_ name: String, _ nanoseconds: Double, _ ratio: String = "") {
    print("| \(name) | \(String(format: "%.1f", nanoseconds)) | \(ratio) |")
}

func ratio(_ value: Double, _ peer: Double, _ peerName: String, target: Double) -> String {
    let times = value / peer
    return String(
        format: "%.2fx %@ (target <= %.1fx: %@)", times, peerName, target, times <= target ? "met" : "NOT met")
}

print(
    "CPU: \(cpuModel()), \(ProcessInfo.processInfo.activeProcessorCount) cores; thread CPU time, median of \(rounds) interleaved rounds"
)
print()
print("| measurement | ns | ratio |")
print("| --- | ---: | --- |")
row(
    "Observing: delivered change, 1 observer", observingDelivered,
    ratio(observingDelivered, notificationPost, "NotificationCenter post", target: 1.0))
row(
    "Observing: observe + invalidate", observingObserveInvalidate,
    ratio(observingObserveInvalidate, notificationAddRemove, "NotificationCenter add + remove", target: 1.0) + "; "
        + ratio(observingObserveInvalidate, swiftTrackFire, "withObservationTracking register + fire", target: 1.0))
row(
    "Observing: write nobody observes", observingUnobservedWrite,
    ratio(observingUnobservedWrite, swiftUntrackedWrite, "@Observable untracked write", target: 1.5))
row("Swift Observation: @Observable untracked write", swiftUntrackedWrite)
row("Swift Observation: withObservationTracking register + fire", swiftTrackFire)
row("NotificationCenter: block observer add + remove", notificationAddRemove)
row("NotificationCenter: post to one observer", notificationPost)
row("floor: Mutex + closure array, 1 observer", floorDelivered)
blackHole(received.load(ordering: .relaxed))

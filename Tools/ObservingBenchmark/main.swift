// Observing benchmark: nanoseconds per delivered change, against baselines measured in the same run.
//
//   swift run -c release ObservingBenchmark [--quick]
//
// Prints a Markdown table (the one in Docs/Observing.md). Each figure is the fastest of several rounds;
// every handler and baseline closure hands its value to the same opaque `blackHole`. The load average is
// printed before and after, since the machine may be shared.
import Dispatch
import Foundation
import Observation
import Observing
import Synchronization

/// Keeps the optimizer from removing work whose result is unused.
@inline(never)
@_optimize(none)
func blackHole<T>(_ value: T) {}

/// Where the observe + invalidate rows keep their token, as an app keeps one in a property (a view-model's, a cell's):
/// a token that never leaves the loop's scope may be allocated on the stack by the optimizer, which an app's never is.
final class TokenSlot {
    var token: ObservationToken?
}

let tokenSlot = TokenSlot()

/// One observe + invalidate, the token kept in `tokenSlot` (the one before is released there).
@MainActor
func observeAndInvalidate(_ model: Model) {
    tokenSlot.token = model.observe(\.value) { _, change in blackHole(change) }
    tokenSlot.token?.invalidate()
}

let quick = CommandLine.arguments.contains("--quick")
let iterations = quick ? 20_000 : 200_000
let rounds = quick ? 3 : 9

/// Nanoseconds per operation of `body(count)`, which performs `count` operations: the fastest of
/// `rounds` rounds (the machine is shared, so the minimum is the figure least disturbed by others).
func measure(operations count: Int = iterations, _ body: (Int) -> Void) -> Double {
    body(count / 10)  // warm up
    var samples: [Double] = []
    for _ in 0..<rounds {
        let start = DispatchTime.now().uptimeNanoseconds
        body(count)
        let end = DispatchTime.now().uptimeNanoseconds
        samples.append(Double(end - start) / Double(count))
    }
    return samples.min() ?? 0
}

// MARK: Models

final class Model: KeyValueObservable {
    @Observed var value = 0
    @Observed var other = 0
}

/// Why `@unchecked Sendable` is safe: the benchmark uses it from the main thread only; the annotation
/// just lets the `@Sendable` `onChange` closure of `withObservationTracking` refer to it.
@Observable
final class TrackedModel: @unchecked Sendable {
    var value = 0
}

/// The baseline "closure behind an uncontended lock": store under a `Mutex`, then call the observer.
final class LockedProperty: Sendable {
    private let storage = Mutex(0)
    private let observer: @Sendable (Int) -> Void

    init(observer: @escaping @Sendable (Int) -> Void) {
        self.observer = observer
    }

    @inline(never)
    func set(_ value: Int) {
        storage.withLock { $0 = value }
        observer(value)
    }
}

/// The baseline "plain closure call".
final class PlainProperty {
    private var storage = 0
    private let observer: (Int) -> Void

    init(observer: @escaping (Int) -> Void) {
        self.observer = observer
    }

    @inline(never)
    func set(_ value: Int) {
        storage = value
        observer(value)
    }
}

/// Observes `model.value` the way every "set, N observers" row and the bystander row do: one function, so all of
/// them run the same specialized delivery code and differ only in what the row measures.
@inline(never)
func observeValue(of model: Model) -> ObservationToken {
    model.observe(\.value, options: [.new]) { _, change in blackHole(change.newValue) }
}

// MARK: Measurements

struct Row {
    let name: String
    let nanoseconds: Double
    let note: String
}

var rows: [Row] = []

/// The 1-minute load average, as `/proc/loadavg` gives it (Linux), or "?".
func loadAverage() -> String {
    let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?"
    return String(text.split(separator: " ").first ?? "?")
}

/// The CPU model, as `/proc/cpuinfo` names it (Linux), or "?": ratios measured elsewhere do not carry over.
func cpuModel() -> String {
    let text = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
    let line = text.split(separator: "\n").first { $0.hasPrefix("model name") }
    return line.flatMap { $0.split(separator: ":", maxSplits: 1).last }.map { $0.trimmingCharacters(in: .whitespaces) }
        ?? "?"
}

let startLoad = loadAverage()

/// The iterations of a `--profile-...` loop: `PROFILE_ITERATIONS` if set (callgrind runs two counts and subtracts),
/// else `fallback`.
func profileIterations(default fallback: Int) -> Int {
    Int(ProcessInfo.processInfo.environment["PROFILE_ITERATIONS"] ?? "") ?? fallback
}

// `--profile-delivery`: only loop over one observed property, for a profiler.
if CommandLine.arguments.contains("--profile-delivery") {
    let model = Model()
    let token = observeValue(of: model)
    let count = profileIterations(default: 20_000_000)
    for index in 0..<count { model.value = index }
    token.invalidate()
    exit(0)
}
// `--profile-bystanders`: the same, with 2,000 observations of other properties and objects around.
if CommandLine.arguments.contains("--profile-bystanders") {
    let model = Model()
    let token = observeValue(of: model)
    let bystanders = (0..<1_000).map { _ in model.observe(\.other) { _, change in blackHole(change) } }
    let others = (0..<1_000).map { _ in Model() }
    let otherTokens = others.map { $0.observe(\.value) { _, change in blackHole(change) } }
    let count = profileIterations(default: 20_000_000)
    for index in 0..<count { model.value = index }
    token.invalidate()
    withExtendedLifetime((bystanders, otherTokens)) {}
    exit(0)
}
// `--profile-set` and `--profile-get`: only write or read a property nobody observes.
if CommandLine.arguments.contains("--profile-set") {
    let model = Model()
    let count = profileIterations(default: 20_000_000)
    for index in 0..<count { model.value = index }
    exit(0)
}
if CommandLine.arguments.contains("--profile-get") {
    let model = Model()
    let count = profileIterations(default: 20_000_000)
    for _ in 0..<count { blackHole(model.value) }
    exit(0)
}
// `--profile-set-read`: the same, for a property read once before (it has a Swift Observation registrar).
if CommandLine.arguments.contains("--profile-set-read") {
    let model = Model()
    blackHole(model.value)
    let count = profileIterations(default: 20_000_000)
    for index in 0..<count { model.value = index }
    exit(0)
}
// `--profile-delivery-read`: `--profile-delivery` for a property read once before (it has a Swift Observation
// registrar, which no tracking holds).
if CommandLine.arguments.contains("--profile-delivery-read") {
    let model = Model()
    blackHole(model.value)
    let token = observeValue(of: model)
    let count = profileIterations(default: 20_000_000)
    for index in 0..<count { model.value = index }
    token.invalidate()
    exit(0)
}
// `--profile-tracked`: `withObservationTracking` re-armed before each write.
if CommandLine.arguments.contains("--profile-tracked") {
    let model = Model()
    let count = profileIterations(default: 1_000_000)
    for index in 0..<count {
        withObservationTracking {
            blackHole(model.value)
        } onChange: {
            blackHole(1)
        }
        model.value = index
    }
    exit(0)
}
// `--profile-baseline`: only the closure-behind-a-Mutex baseline.
if CommandLine.arguments.contains("--profile-baseline") {
    let property = LockedProperty { blackHole($0) }
    let count = profileIterations(default: 20_000_000)
    for index in 0..<count { property.set(index) }
    exit(0)
}
// `--profile-chain`: only changes of a chained key path's end property.
if CommandLine.arguments.contains("--profile-chain") {
    let folder = Folder()
    folder.document = Document()
    let token = folder.observe(\.document.title, options: [.new]) { _, change in blackHole(change.newValue) }
    let count = profileIterations(default: 1_000_000)
    for index in 0..<count { folder.document.title = index }
    token.invalidate()
    exit(0)
}
// `--profile-chain-write`: the same, through a reference to the document read once.
if CommandLine.arguments.contains("--profile-chain-write") {
    let folder = Folder()
    folder.document = Document()
    let document = folder.document
    let token = folder.observe(\.document.title, options: [.new]) { _, change in blackHole(change.newValue) }
    let count = profileIterations(default: 1_000_000)
    for index in 0..<count { document.title = index }
    token.invalidate()
    exit(0)
}
if CommandLine.arguments.contains("--profile-observe") {
    let model = Model()
    let count = profileIterations(default: 1_000_000)
    for _ in 0..<count {
        observeAndInvalidate(model)
    }
    exit(0)
}

// `--profile-observer`: only `KeyValueObserver` observe + unobserve of one pair.
if CommandLine.arguments.contains("--profile-observer") {
    let observer = KeyValueObserver()
    let model = Model()
    let count = profileIterations(default: 1_000_000)
    for _ in 0..<count {
        observer.observe(model, \.value) { _, change in blackHole(change) }
        observer.unobserve(model, \.value)
    }
    exit(0)
}

let plain = PlainProperty { blackHole($0) }
let closureCall = measure { count in
    for index in 0..<count { plain.set(index) }
}
rows.append(Row(name: "plain closure call (store + call)", nanoseconds: closureCall, note: "baseline"))

let locked = LockedProperty { blackHole($0) }
let closureAndLock = measure { count in
    for index in 0..<count { locked.set(index) }
}
rows.append(
    Row(name: "closure behind an uncontended Mutex", nanoseconds: closureAndLock, note: "baseline for the target"))

// One atomic read-modify-write (a `lock xadd` on x86-64), uncontended: registration runs a few dozen of them (reference
// counts, lock sections, flags), so its time follows their count (Tools/count-atomics.py counts them).
let counter = Atomic<Int>(0)
let atomicAdd = measure { count in
    for _ in 0..<count { counter.add(1, ordering: .relaxed) }
}
blackHole(counter.load(ordering: .relaxed))
rows.append(Row(name: "one uncontended atomic add", nanoseconds: atomicAdd, note: "baseline"))

let tracked = TrackedModel()
func arm() {
    withObservationTracking {
        blackHole(tracked.value)
    } onChange: {
        blackHole(1)
    }
}
let observationTracking = measure { count in
    for index in 0..<count {
        arm()
        tracked.value = index
    }
}
rows.append(
    Row(name: "withObservationTracking, re-armed per change", nanoseconds: observationTracking, note: "baseline"))

let center = NotificationCenter()
let name = Notification.Name("ObservingBenchmark.changed")
let centerToken = center.addObserver(forName: name, object: nil, queue: nil) { note in blackHole(note) }
let notificationCenter = measure { count in
    for _ in 0..<count { center.post(name: name, object: nil) }
}
center.removeObserver(centerToken)
rows.append(Row(name: "NotificationCenter post, 1 observer", nanoseconds: notificationCenter, note: "baseline"))

let idle = Model()
let setWithoutObservers = measure { count in
    for index in 0..<count { idle.value = index }
}
rows.append(Row(name: "Observing: set, no observer", nanoseconds: setWithoutObservers, note: "cost of the property"))

let getCost = measure { count in
    for _ in 0..<count { blackHole(idle.value) }
}
rows.append(Row(name: "Observing: get", nanoseconds: getCost, note: ""))

var perDelivery: [Int: Double] = [:]
for observers in [1, 10, 100] {
    let model = Model()
    let tokens = (0..<observers).map { _ in observeValue(of: model) }
    let operations = max(iterations / observers, 2_000)
    let perSet = measure(operations: operations) { count in
        for index in 0..<count { model.value = index }
    }
    for token in tokens { token.invalidate() }
    perDelivery[observers] = perSet / Double(observers)
    rows.append(
        Row(
            name: "Observing: set, \(observers) observer\(observers == 1 ? "" : "s")",
            nanoseconds: perSet,
            note: String(format: "%.1f ns per delivered change", perSet / Double(observers))))
}

// Observers of other properties and other objects must cost nothing.
let isolated = Model()
let isolatedToken = observeValue(of: isolated)
let bystanders = (0..<1_000).map { _ in isolated.observe(\.other) { _, change in blackHole(change) } }
let otherModels = (0..<1_000).map { _ in Model() }
let otherTokens = otherModels.map { $0.observe(\.value) { _, change in blackHole(change) } }
let withBystanders = measure { count in
    for index in 0..<count { isolated.value = index }
}
isolatedToken.invalidate()
for token in bystanders { token.invalidate() }
for token in otherTokens { token.invalidate() }
rows.append(
    Row(
        name: "Observing: set, 1 observer + 2,000 on other properties/objects",
        nanoseconds: withBystanders,
        note: String(format: "%.2fx the 1-observer figure", withBystanders / perDelivery[1]!)))

let chained = Folder()
chained.document = Document()
let chainToken = chained.observe(\.document.title, options: [.new]) { _, change in blackHole(change.newValue) }
let chainCost = measure { count in
    for index in 0..<count { chained.document.title = index }
}
// The same changes written through a reference to the document read once: the row above also reads
// `chained.document` on every write (an `@Observed` read: a lock section and a retain and a release of the document),
// which the direct row's writer does not.
let chainedDocument = chained.document
let chainCostWriteOnly = measure { count in
    for index in 0..<count { chainedDocument.title = index }
}
chainToken.invalidate()
rows.append(
    Row(
        name: "Observing: chained key path, 1 observer", nanoseconds: chainCost,
        note: "the last property of a stored path"))
rows.append(
    Row(
        name: "Observing: chained key path, 1 observer, middle read once", nanoseconds: chainCostWriteOnly,
        note: "the writer as the direct row's: one property write"))

let churnModel = Model()
let observeInvalidate = measure { count in
    for _ in 0..<count {
        observeAndInvalidate(churnModel)
    }
}
rows.append(Row(name: "Observing: observe + invalidate", nanoseconds: observeInvalidate, note: ""))

let observer = KeyValueObserver()
let observerModel = Model()
let observerCost = measure(operations: iterations / 4) { count in
    for _ in 0..<count {
        observer.observe(observerModel, \.value) { _, change in blackHole(change) }
        observer.unobserve(observerModel, \.value)
    }
}
rows.append(Row(name: "KeyValueObserver: observe + unobserve", nanoseconds: observerCost, note: ""))

// MARK: Swift Observation (O12)
// A property read through its getter has a Swift Observation registrar from then on (see
// Docs/Observing.md, "Swift Observation and SwiftUI"); these rows show what its writes cost.

let armed = Model()
blackHole(armed.value)
let setArmed = measure { count in
    for index in 0..<count { armed.value = index }
}
rows.append(
    Row(
        name: "Observing: set, no observer, read before (registrar, no tracking)", nanoseconds: setArmed,
        note: String(format: "%.2fx the unread figure", setArmed / setWithoutObservers)))

let armedObserved = Model()
blackHole(armedObserved.value)
let armedToken = observeValue(of: armedObserved)
let setArmedObserved = measure { count in
    for index in 0..<count { armedObserved.value = index }
}
armedToken.invalidate()
rows.append(
    Row(
        name: "Observing: set, 1 observer, read before (registrar, no tracking)", nanoseconds: setArmedObserved,
        note: String(format: "%.2fx the unread figure", setArmedObserved / perDelivery[1]!)))

/// The `withObservationTracking` baseline's loop, on an `Observing` model.
func measureObservingTracking() -> Double {
    let model = Model()
    return measure { count in
        for index in 0..<count {
            withObservationTracking {
                blackHole(model.value)
            } onChange: {
                blackHole(1)
            }
            model.value = index
        }
    }
}
let observingTracking = measureObservingTracking()
rows.append(
    Row(
        name: "Observing: withObservationTracking, re-armed per change", nanoseconds: observingTracking,
        note: String(format: "%.2fx the @Observable figure", observingTracking / observationTracking)))

// MARK: Report

print("CPU: \(cpuModel()), \(ProcessInfo.processInfo.activeProcessorCount) cores")
print("load average before: \(startLoad), after: \(loadAverage())")
print()
print("| measurement | ns | note |")
print("| --- | ---: | --- |")
for row in rows {
    print("| \(row.name) | \(String(format: "%.1f", row.nanoseconds)) | \(row.note) |")
}
print()
print(String(format: "1 observer vs closure + lock: %.2fx (target <= 2x)", perDelivery[1]! / closureAndLock))
print(String(format: "1 observer vs plain closure: %.2fx", perDelivery[1]! / closureCall))
print(
    String(
        format: "per delivered change: 1 -> %.1f ns, 10 -> %.1f ns, 100 -> %.1f ns", perDelivery[1]!, perDelivery[10]!,
        perDelivery[100]!))
print(String(format: "withObservationTracking vs Observing (1 observer): %.2fx", observationTracking / perDelivery[1]!))
print(String(format: "NotificationCenter vs Observing (1 observer): %.2fx", notificationCenter / perDelivery[1]!))

final class Document: KeyValueObservable {
    @Observed var title = 0
}

final class Folder: KeyValueObservable {
    @Observed var document = Document()
}

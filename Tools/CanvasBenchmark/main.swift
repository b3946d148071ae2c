import BenchmarkScripts
import CanvasKit
import Foundation
import Locking
import Observing
import Synchronization

// CanvasBenchmark: events per second through the pure transition function and the in-place form, on boards of 9 and
// 1,000 canvases, side by side with a naive baseline measured in the same run.
// Run: swift run -c release CanvasBenchmark [FILTER | --cpu [CANVASES [ROUNDS [in-place | pure]]]]

/// Best-of-nine throughput (the machine is shared: the best run is the least disturbed one) of `body`, which performs `operations` events per call.
func eventsPerSecond(operations: Int, _ body: () -> Void) -> Double {
    body()  // warm up
    var best = Duration.seconds(1_000)
    let clock = ContinuousClock()
    for _ in 0..<9 {
        var calls = 0
        let start = clock.now
        var elapsed = Duration.zero
        repeat {
            body()
            calls += 1
            elapsed = clock.now - start
        } while elapsed < .milliseconds(40)
        best = min(best, elapsed / calls)
    }
    let seconds = Double(best.components.seconds) + Double(best.components.attoseconds) * 1e-18
    return Double(operations) / seconds
}

/// The baseline: the representation of the original product, a flag per canvas and a scan per event, value-copied
/// like the pure function.
struct NaiveBoard {
    var status: [CanvasStatus]
    var isSelected: [Bool]
    var videoURL: [URL?]

    init(count: Int) {
        status = Array(repeating: .noPreview, count: count)
        isSelected = Array(repeating: false, count: count)
        videoURL = Array(repeating: nil, count: count)
    }

    /// Returns whether the event was accepted.
    mutating func handle(_ event: CanvasEvent) -> Bool {
        let selected = isSelected.firstIndex(of: true)
        let recording = status.firstIndex(of: .recording)
        switch event {
        case .tap(let index):
            guard status.indices.contains(index), recording == nil else { return false }
            if let selected {
                isSelected[selected] = false
                status[selected] = .noPreview
                if selected == index { return true }
            }
            isSelected[index] = true
            status[index] = .inPreview
            return true
        case .record:
            guard let selected, recording == nil else { return false }
            status[selected] = .recording
            return true
        case .stop(let url, _, _):
            guard let recording else { return false }
            videoURL[recording] = url
            status[recording] = .inPreview
            return true
        case .cancel, .recordingFailed, .recordingCutShort(_, nil, _, _):
            guard let recording else { return false }
            status[recording] = .inPreview
            return true
        case .recordingCutShort(_, let url?, _, _):
            guard let recording else { return false }
            videoURL[recording] = url
            status[recording] = .inPreview
            return true
        case .recordingStarted:
            return recording != nil
        case .delete(let index):
            guard status.indices.contains(index), recording == nil, videoURL[index] != nil else { return false }
            videoURL[index] = nil
            return true
        case .add, .remove, .tapCanvas, .resume, .undo, .disarmUndo, .setSoundtrack, .setMicrophone, .markMissing,
            .relink:
            return false
        }
    }
}

struct Row {
    var name: String
    var figures: [Int: Double]
}

func format(_ value: Double) -> String {
    if value >= 1e6 { return String(format: "%.1f M", value / 1e6) }
    if value >= 1e3 { return String(format: "%.0f k", value / 1e3) }
    return String(format: "%.0f", value)
}

let sizes = [9, 1_000]
var rows: [Row] = []

/// Optional filter: `CanvasBenchmark board` runs only the workloads whose name contains "board" (case-insensitive).
let filter = CommandLine.arguments.dropFirst().first?.lowercased()

/// The CPU model, as `/proc/cpuinfo` names it (Linux), or "?": figures measured elsewhere do not carry over.
func cpuModel() -> String {
    let text = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
    let line = text.split(separator: "\n").first { $0.hasPrefix("model name") }
    return line.flatMap { $0.split(separator: ":", maxSplits: 1).last }.map { $0.trimmingCharacters(in: .whitespaces) }
        ?? "?"
}

/// Plays `events` from `empty` through the pure `transition`, keeping the state before each one (as an undo would).
func playPure(_ events: [CanvasEvent], from empty: BoardState, size: Int) {
    var board = empty
    var previous = board
    for event in events {
        guard case .accepted(let next, _, _) = BoardState.transition(from: board, on: event) else {
            preconditionFailure("\(event) rejected")
        }
        previous = board
        board = next
    }
    precondition(previous.count == size)
}

/// Which forms `--cpu` replays: both, or one alone (what a run under callgrind or memcheck counts).
enum SessionForm: String, CaseIterable {
    case inPlace = "in-place"
    case pure
}

/// `CanvasBenchmark --cpu [N [R [FORM]]]` (N canvases, default 9; R rounds, default 2,000; FORM `in-place` or `pure`,
/// default both): the process's CPU time per event of the session script replayed R times in place, then R times in
/// the pure form. CPU time leaves out the time other processes hold the cores, so on a shared machine it moves less
/// than the events per second above. Under `valgrind --tool=callgrind` (or memcheck) one form alone counts the
/// instructions (or heap allocations) of the loop: the difference between two round counts, divided by the events
/// between them, is the cost per event without the start-up.
func sessionCPUTime(canvases size: Int, rounds: Int, forms: [SessionForm]) {
    func cpuSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
    }
    let events = sessionScript(count: size, cycles: 125)
    let empty = BoardState(canvasCount: size)
    var figures: [String] = []
    for form in forms {
        let start = cpuSeconds()
        for _ in 0..<rounds {
            switch form {
            case .inPlace:
                var board = empty
                for event in events { precondition(board.handle(event).isAccepted) }
            case .pure:
                playPure(events, from: empty, size: size)
            }
        }
        let nanoseconds = (cpuSeconds() - start) / Double(rounds * events.count) * 1e9
        figures.append(String(format: "%@ %.0f ns", form == .inPlace ? "in place" : "pure", nanoseconds))
    }
    print("CPU: \(cpuModel())")
    print(
        "session, \(size) canvases, \(rounds) rounds of \(events.count) events, CPU time per event: "
            + figures.joined(separator: ", "))
}

if CommandLine.arguments.dropFirst().first == "--cpu" {
    let arguments = Array(CommandLine.arguments.dropFirst(2))
    let numbers = arguments.prefix(2).compactMap { Int($0) }.filter { $0 >= 1 }
    let form = arguments.count == 3 ? SessionForm(rawValue: arguments[2]) : nil
    guard arguments.count <= 3, numbers.count == min(arguments.count, 2), arguments.count < 3 || form != nil else {
        let got = arguments.joined(separator: " ")
        FileHandle.standardError.write(
            Data(
                ("CanvasBenchmark: --cpu wants a number of canvases and of rounds (1 or more), then `in-place` or "
                    + "`pure`, got '\(got)'\n").utf8))
        exit(2)
    }
    sessionCPUTime(
        canvases: numbers.first ?? 9, rounds: numbers.count > 1 ? numbers[1] : 2_000,
        forms: form.map { [$0] } ?? SessionForm.allCases)
    exit(0)
}

@MainActor
func measure(_ name: String, _ body: (Int) -> Double) {
    if let filter, !name.lowercased().contains(filter) { return }
    var row = Row(name: name, figures: [:])
    for size in sizes { row.figures[size] = body(size) }
    rows.append(row)
}

measure("taps, in place (`handle`)") { size in
    let events = tapScript(count: size, length: 1_000)
    let empty = BoardState(canvasCount: size)  // copies share storage: creating it is not measured
    return eventsPerSecond(operations: events.count) {
        var board = empty
        for event in events { _ = board.handle(event) }
        precondition(board.selection != nil)
    }
}
measure("taps, pure (`transition`), old state kept") { size in
    let events = tapScript(count: size, length: 1_000)
    let empty = BoardState(canvasCount: size)  // copies share storage: creating it is not measured
    return eventsPerSecond(operations: events.count) {
        var board = empty
        var history: [BoardState] = []
        history.reserveCapacity(1)
        for event in events {
            if case .accepted(let next, _, _) = BoardState.transition(from: board, on: event) {
                history = [board]
                board = next
            }
        }
        precondition(history.count == 1)
    }
}
measure("taps, naive baseline (flags + scan)") { size in
    let events = tapScript(count: size, length: 1_000)
    let empty = NaiveBoard(count: size)
    return eventsPerSecond(operations: events.count) {
        var board = empty
        for event in events { _ = board.handle(event) }
    }
}
measure("session, in place (`handle`)") { size in
    let events = sessionScript(count: size, cycles: 125)
    let empty = BoardState(canvasCount: size)  // copies share storage: creating it is not measured
    return eventsPerSecond(operations: events.count) {
        var board = empty
        for event in events { precondition(board.handle(event).isAccepted) }
    }
}
measure("session, pure (`transition`), old state kept") { size in
    let events = sessionScript(count: size, cycles: 125)
    let empty = BoardState(canvasCount: size)  // copies share storage: creating it is not measured
    return eventsPerSecond(operations: events.count) {
        playPure(events, from: empty, size: size)
    }
}
measure("session, naive baseline (flags + scan)") { size in
    let events = sessionScript(count: size, cycles: 125)
    let empty = NaiveBoard(count: size)
    return eventsPerSecond(operations: events.count) {
        var board = empty
        for event in events { precondition(board.handle(event)) }
    }
}

measure("stop + delete, every canvas has a take, in place") { size in
    let base = URL(fileURLWithPath: "/bench/", isDirectory: true)
    let full = try! BoardState(
        takes: (0..<size).map { URL(fileURLWithPath: "t\($0).mov", relativeTo: base) },
        selection: .init(index: size - 1, phase: .inPreview))
    let takes = (0..<200).map { URL(fileURLWithPath: "new-\($0).mov", relativeTo: base) }
    var events: [CanvasEvent] = []
    for take in takes { events += [.record, .stop(take), .delete(size - 1)] }
    return eventsPerSecond(operations: events.count) {
        var board = full
        for event in events { precondition(board.handle(event).isAccepted) }
    }
}

/// Observes status, isSelected and videoURL of the models in `range` (the "visible cells") and counts notifications.
final class NotificationCounter: Sendable {
    let count = Atomic<Int>(0)
    private let tokens = LockedValue<[ObservationToken]>([])

    func observe(_ models: some Sequence<CanvasModel>) {
        var new: [ObservationToken] = []
        for model in models {
            new.append(
                model.observe(\.status, options: []) { [weak self] _, _ in self?.count.add(1, ordering: .relaxed) })
            new.append(
                model.observe(\.isSelected, options: []) { [weak self] _, _ in self?.count.add(1, ordering: .relaxed) })
            new.append(
                model.observe(\.videoURL, options: []) { [weak self] _, _ in self?.count.add(1, ordering: .relaxed) })
        }
        tokens.withLock { $0 += new }
    }
}

measure("taps through `CanvasBoard`, 12 models observed, taps among them") { size in
    let events = tapScript(count: min(size, 12), length: 1_000)
    let board = CanvasBoard(canvasCount: size)
    let counter = NotificationCounter()
    counter.observe(board.canvases.prefix(12))
    return eventsPerSecond(operations: events.count) {
        for event in events { _ = board.send(event) }
    }
}
measure("taps through `CanvasBoard`, no observer") { size in
    let events = tapScript(count: size, length: 1_000)
    let board = CanvasBoard(canvasCount: size)
    return eventsPerSecond(operations: events.count) {
        for event in events { _ = board.send(event) }
    }
}

/// The floor under a tap through the board: the same four `@Observed` writes (two properties on each of two
/// objects), each notifying one observer, without the board. Not `Sendable`: one thread writes it.
final class FloorModel: KeyValueObservable {
    @Observed var status: CanvasStatus = .noPreview
    @Observed var isSelected = false
}

measure("floor: 4 bare `@Observed` writes, 1 observer each (per tap)") { _ in
    let models = [FloorModel(), FloorModel()]
    let counter = NotificationCounter()
    var tokens: [ObservationToken] = []
    for model in models {
        tokens.append(
            model.observe(\.status, options: []) { [weak counter] _, _ in counter?.count.add(1, ordering: .relaxed) })
        tokens.append(
            model.observe(\.isSelected, options: []) { [weak counter] _, _ in counter?.count.add(1, ordering: .relaxed)
            })
    }
    var selected = 0
    let result = eventsPerSecond(operations: 1_000) {
        for _ in 0..<1_000 {
            let old = models[selected]
            selected = 1 - selected
            let new = models[selected]
            old.status = .noPreview
            old.isSelected = false
            new.isSelected = true
            new.status = .inPreview
        }
    }
    withExtendedLifetime(tokens) {}
    return result
}
measure("session through `CanvasBoard`, 12 models observed, events among them") { size in
    let events = sessionScript(count: min(size, 12), cycles: 125)
    let board = CanvasBoard(canvasCount: size)
    let counter = NotificationCounter()
    counter.observe(board.canvases.prefix(12))
    return eventsPerSecond(operations: events.count) {
        for event in events { precondition(board.send(event).isAccepted) }
    }
}

print("CPU: \(cpuModel())")
print("| workload | events/s, 9 canvases | events/s, 1,000 canvases | 1,000 vs 9 |")
print("| --- | ---: | ---: | ---: |")
for row in rows where !row.figures.isEmpty {
    let small = row.figures[9]!
    let large = row.figures[1_000]!
    print("| \(row.name) | \(format(small)) | \(format(large)) | \(String(format: "%.2fx", large / small)) |")
}

// The sizes of the values every event moves: an event, an effect, and what the in-place form returns.
print("")
print(
    "value sizes: CanvasEvent \(MemoryLayout<CanvasEvent>.size) B, CanvasEffect \(MemoryLayout<CanvasEffect>.size) B, "
        + "BoardChange \(MemoryLayout<BoardChange>.size) B, a step of `handle` \(MemoryLayout<BoardState.Step>.size) B, "
        + "BoardState \(MemoryLayout<BoardState>.size) B")

// Notifications per tap, with every property of every model observed (so a write to an uninvolved canvas would be
// counted): must not depend on the board size.
@MainActor
func figure(_ prefix: String, _ size: Int) -> Double? {
    rows.first { $0.name.hasPrefix(prefix) }?.figures[size]
}
print("")
for size in sizes {
    if let ours = figure("taps, in place", size), let naive = figure("taps, naive", size) {
        print("taps in place vs naive baseline, \(size) canvases: \(String(format: "%.1fx", ours / naive))")
    }
    if let pure = figure("session, pure", size), let inPlace = figure("session, in place", size) {
        print("session pure vs in place, \(size) canvases: \(String(format: "%.2fx", pure / inPlace))")
    }
    if let board = figure("taps through `CanvasBoard`, 12", size), let floor = figure("floor", size) {
        print(
            "tap through CanvasBoard vs its floor of 4 bare @Observed writes, \(size) canvases: \(String(format: "%.2fx", board / floor)) the throughput"
        )
    }
}
if filter != nil { exit(0) }
print("")
print("| board | taps | notifications | per tap | canvases notified per tap (max) |")
print("| --- | ---: | ---: | ---: | ---: |")
var perTap: [Int: Double] = [:]
for size in sizes {
    let board = CanvasBoard(canvasCount: size)
    let counter = NotificationCounter()
    counter.observe(board.canvases)
    let events = tapScript(count: size, length: 1_000)
    var maxCanvases = 0
    for event in events {
        let before = board.canvases.map(\.snapshot)
        _ = board.send(event)
        let changed = zip(before, board.canvases).filter { $0.0 != $0.1.snapshot }.count
        maxCanvases = max(maxCanvases, changed)
    }
    let total = counter.count.load(ordering: .relaxed)
    perTap[size] = Double(total) / Double(events.count)
    print(
        "| \(size) canvases | \(events.count) | \(total) | \(String(format: "%.3f", perTap[size]!)) | \(maxCanvases) |")
}
print("")
print(
    "notifications per tap, 1,000 vs 9 canvases: \(String(format: "%.3f", perTap[1_000]! / perTap[9]!))x (must be 1.000x)"
)

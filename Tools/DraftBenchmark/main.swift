import BenchmarkScripts
import CanvasKit
import Foundation
import Locking
import Observing
import Synchronization

// DraftBenchmark: what a draft costs, side by side with the same board in memory, in one run.
// - the calling thread's cost per event (taps and recording sessions, boards of 9 and 1,000 canvases);
// - models notified per tap on 1,000 canvases, with and without a draft;
// - restoring 1,000 canvases from a snapshot plus 100,000 journaled events, against replaying them on a new board;
// - how long an event waits before its record is written (what a kill can lose) and synced (what a power loss can).
// Run: swift run -c release DraftBenchmark

func cpuModel() -> String {
    let text = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
    let line = text.split(separator: "\n").first { $0.hasPrefix("model name") }
    return line.flatMap { $0.split(separator: ":", maxSplits: 1).last }.map { $0.trimmingCharacters(in: .whitespaces) }
        ?? "?"
}

let clock = ContinuousClock()
func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
}

let folder = FileManager.default.temporaryDirectory.appending(path: "DraftBenchmark-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
func newDraftURL() -> URL {
    folder.appending(path: "board-\(UUID().uuidString).draft")
}
/// The takes are names: a restore keeps them.
let options = DraftOptions(compactionThreshold: 1_000_000, takeExists: { _ in true })

/// Blocks until everything `board` journaled is durable.
func waitUntilDurable(_ board: CanvasBoard) {
    let done = DispatchSemaphore(value: 0)
    board.draft!.waitUntilDurable { _ in done.signal() }
    done.wait()
}

/// Closes the board's draft (durable, lock released), so the next opener of the same file may open it.
func close(_ board: CanvasBoard) {
    let done = DispatchSemaphore(value: 0)
    let draft = board.draft!
    Task.detached {
        try? await draft.close()
        done.signal()
    }
    done.wait()
}

/// Nanoseconds per event on the calling thread, best of five runs of `events` on a board from `makeBoard`.
func nanosecondsPerEvent(_ events: [CanvasEvent], _ makeBoard: () throws -> CanvasBoard) throws -> Double {
    var best = Double.infinity
    for _ in 0..<5 {
        let board = try makeBoard()
        if board.draft != nil { waitUntilDurable(board) }
        let start = clock.now
        for event in events { board.send(event) }
        best = min(best, seconds(clock.now - start) / Double(events.count) * 1e9)
        if board.draft != nil { waitUntilDurable(board) }
    }
    return best
}

if CommandLine.arguments.contains("--profile-restore") {
    let events = sessionScript(count: 1_000, cycles: 12_500, folder: "/bench/takes/")
    let url = newDraftURL()
    do {
        let board = try CanvasBoard(draftAt: url, newBoard: BoardState(canvasCount: 1_000), options: options)
        waitUntilDurable(board)
        for event in events { board.send(event) }
        close(board)
    }
    for _ in 0..<5 { close(try CanvasBoard(draftAt: url, newBoard: BoardState(canvasCount: 1), options: options)) }
    exit(0)
}
print("DraftBenchmark")
print("CPU: \(cpuModel()), \(ProcessInfo.processInfo.activeProcessorCount) cores")
print("")
print("| events | board | in memory | with a draft | difference | ratio |")
print("| --- | --- | --- | --- | --- | --- |")
for size in [9, 1_000] {
    for (name, events) in [
        ("taps", tapScript(count: size, length: 20_000)),
        ("sessions", sessionScript(count: size, cycles: 2_500, folder: "/bench/takes/")),
    ] {
        let memory = try nanosecondsPerEvent(events) { CanvasBoard(canvasCount: size) }
        let drafted = try nanosecondsPerEvent(events) {
            try CanvasBoard(draftAt: newDraftURL(), newBoard: BoardState(canvasCount: size), options: options)
        }
        print(
            "| \(name) | \(size) | \(String(format: "%.0f", memory)) ns | \(String(format: "%.0f", drafted)) ns | "
                + "\(String(format: "%+.2f", (drafted - memory) / 1_000)) us | \(String(format: "%.2f", drafted / memory))x |"
        )
    }
}

// Models notified per tap: every model of 1,000 observed.
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
print("")
print("| board | taps | notifications per tap, in memory | with a draft |")
print("| --- | --- | --- | --- |")
do {
    let taps = tapScript(count: 1_000, length: 10_000)
    var perTap: [Double] = []
    for board in [
        CanvasBoard(canvasCount: 1_000),
        try CanvasBoard(draftAt: newDraftURL(), newBoard: BoardState(canvasCount: 1_000), options: options),
    ] {
        let counter = NotificationCounter()
        counter.observe(board.canvases)
        for event in taps { board.send(event) }
        perTap.append(Double(counter.count.load(ordering: .relaxed)) / Double(taps.count))
    }
    print("| 1,000 | \(taps.count) | \(String(format: "%.3f", perTap[0])) | \(String(format: "%.3f", perTap[1])) |")
}

// Restore: a snapshot of 1,000 canvases and 100,000 journaled events after it.
print("")
do {
    let events = sessionScript(count: 1_000, cycles: 12_500, folder: "/bench/takes/")
    let url = newDraftURL()
    do {
        let board = try CanvasBoard(draftAt: url, newBoard: BoardState(canvasCount: 1_000), options: options)
        // The snapshot of the new board first, so that every event goes to the journal.
        waitUntilDurable(board)
        for event in events { board.send(event) }
        close(board)
    }
    let bytes = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
    var restoreBest = Double.infinity
    var replayBest = Double.infinity
    var restoredState: BoardState?
    var replayedState: BoardState?
    for _ in 0..<5 {
        var start = clock.now
        let restored = try CanvasBoard(draftAt: url, newBoard: BoardState(canvasCount: 1), options: options)
        restoreBest = min(restoreBest, seconds(clock.now - start))
        precondition(restored.draft!.restore.replayedRecords == events.count)
        close(restored)
        restoredState = restored.state
        start = clock.now
        let replayed = CanvasBoard(canvasCount: 1_000)
        for event in events { replayed.send(event) }
        replayBest = min(replayBest, seconds(clock.now - start))
        replayedState = replayed.state
    }
    precondition(restoredState == replayedState, "the restored board is not the replayed one")
    print(
        "restore of 1,000 canvases from a snapshot + \(events.count) events (\(bytes / 1024) KiB journal): "
            + "\(String(format: "%.1f", restoreBest * 1_000)) ms; replaying them on a new board in memory: "
            + "\(String(format: "%.1f", replayBest * 1_000)) ms; ratio \(String(format: "%.2f", restoreBest / replayBest))x "
            + "(best of 5)")
}

// What a kill and a power loss can lose: events sent one every 200 us for 3 s; for each, the time until the draft
// reported it written (a kill can no longer lose it) and synced (a power loss cannot).
print("")
do {
    let board = try CanvasBoard(draftAt: newDraftURL(), newBoard: BoardState(canvasCount: 9), options: options)
    waitUntilDurable(board)
    let events = tapScript(count: 9, length: 15_000)
    var sentAt: [ContinuousClock.Instant] = []
    var writtenAfter: [Double] = []
    var durableAfter: [Double] = []
    let base = board.draft!.progress.appended
    sentAt.reserveCapacity(events.count)
    for event in events {
        board.send(event)
        let now = clock.now
        sentAt.append(now)
        let progress = board.draft!.progress
        while writtenAfter.count < Int(progress.written - base) {
            writtenAfter.append(seconds(now - sentAt[writtenAfter.count]))
        }
        while durableAfter.count < Int(progress.durable - base) {
            durableAfter.append(seconds(now - sentAt[durableAfter.count]))
        }
        Thread.sleep(forTimeInterval: 0.000_2)
    }
    func describe(_ values: [Double]) -> String {
        let sorted = values.sorted()
        let median = sorted[sorted.count / 2] * 1_000
        let p99 = sorted[sorted.count * 99 / 100] * 1_000
        return String(format: "median %.2f ms, 99th percentile %.2f ms, max %.2f ms", median, p99, sorted.last! * 1_000)
    }
    print("events sent every 200 us for \(events.count) events (measured to the next event, about 0.25 ms):")
    print("  until written (what a kill can lose): \(describe(writtenAfter))")
    print("  until synced (what a power loss can lose): \(describe(durableAfter))")
}

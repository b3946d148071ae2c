import CanvasHost
import CanvasKit
import Foundation
import Locking
import Observing

// LifecycleBenchmark: the canvas screen on a board of 1,000 canvases with 12 visible, scrolled end to end and tapped.
// Checks that live observations never exceed visible cells x observed keys and that a tap makes only the affected
// visible cells recompute; reports time per scroll step and per tap, side by side with baselines measured in the same
// run (the bare host, the bare board, and a reloadData-per-change screen).
// Run: swift run -c release LifecycleBenchmark

let canvasCount = 1_000
let visibleCount = 12
/// Keys a visible cell observes: one chain through its canvas's status, segments and undo arming and the board's
/// isRecording.
let keysPerCell = CanvasCellViewModel.modelKeyPaths.count
/// The calling thread's CPU time in seconds: the time the work itself took, whatever else the shared machine runs
/// meanwhile (the screen, the board and the instant covers all run on this thread).
func threadCPUSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) * 1e-9
}

func microseconds(_ value: Double) -> String {
    String(format: "%.2f", value * 1e6)
}

/// Best of `rounds` runs of `body` in thread CPU time (the machine is shared: the best run is the least disturbed
/// one), per operation.
func bestTime(rounds: Int = 5, operations: Int, _ body: () -> Void) -> Double {
    var best = Double.infinity
    for _ in 0..<rounds {
        let start = threadCPUSeconds()
        body()
        best = min(best, (threadCPUSeconds() - start) / Double(operations))
    }
    return best
}

/// A cover provider that answers at once from a tiny fixed image (covers are the Thumbnails module's cost).
final class InstantCovers: CompletionCoverProvider {
    final class Request: CancellableCoverRequest { func cancel() {} }
    let requests = LockedValue(0)
    /// One black pixel (consistent sizes by construction).
    static let cover = try! CoverImage(width: 1, height: 1, bytesPerRow: 4, pixelFormat: .rgba, pixels: [0, 0, 0, 255])
    func requestCover(
        for videoURL: URL, maximumSize: PixelSize,
        completion: @escaping @Sendable (Result<CoverImage, any Error>) -> Void
    ) -> any CancellableCoverRequest {
        requests.withLock { $0 += 1 }
        completion(.success(Self.cover))
        return Request()
    }
}

/// A board of `canvasCount` canvases where every third canvas has a finished take.
func makeBoard() -> CanvasBoard {
    let board = CanvasBoard(canvasCount: canvasCount)
    for index in stride(from: 0, to: canvasCount, by: 3) {
        for event: CanvasEvent in [
            .tap(index), .record, .stop(URL(fileURLWithPath: "/bench/take-\(index).mov")), .tap(index),
        ] {
            _ = board.send(event)
        }
    }
    return board
}

// MARK: Baselines

/// The bare host: a data source of strings, no observation at all.
final class StringCell: CollectionHostCell {
    var text = ""
    func prepareForReuse() { text = "" }
}

final class Strings: CollectionHostDataSource {
    let items = (0..<canvasCount).map { "canvas \($0)" }
    func numberOfItems() -> Int { items.count }
    func makeCell() -> StringCell { StringCell() }
    func cellForItem(at index: Int, configuring cell: StringCell) { cell.text = items[index] }
}

/// The approach the screen avoids: cells configured from the models in cellForItem, and reloadData after every change.
final class ReloadingCell: CollectionHostCell {
    var display: CanvasDisplay?
    func prepareForReuse() { display = nil }
}

final class ReloadingSource: CollectionHostDataSource {
    let board: CanvasBoard
    init(board: CanvasBoard) { self.board = board }
    func numberOfItems() -> Int { board.canvases.count }
    func makeCell() -> ReloadingCell { ReloadingCell() }
    func cellForItem(at index: Int, configuring cell: ReloadingCell) {
        cell.display = board.canvases[index].display(boardIsRecording: board.isRecording)
    }
}

let scrollSteps = canvasCount - visibleCount
func scrollEndToEnd(_ scroll: (Int) -> Void) {
    for offset in 1...scrollSteps { scroll(offset) }
    for offset in stride(from: scrollSteps - 1, through: 0, by: -1) { scroll(offset) }
}

/// A bound cell view-model's observation registered and removed `count` times (the floor row below): what a cell does
/// as it starts and ends display, its one chained observation through the owner-passing `KeyValueObserver`, with the
/// first call that derives its display (no log).
func bindCellKeys(_ viewModel: CanvasCellViewModel, count: Int) {
    for _ in 0..<count {
        viewModel.startObserving()
        viewModel.stopObserving()
    }
}

/// The keys a cell observed before (`status`, `isSelected`, `videoURL`, `isRecording`), ownerless: the row's baseline.
func bindEarlierCellKeys(_ observer: KeyValueObserver, _ model: CanvasModel, _ board: CanvasBoard, count: Int) {
    for _ in 0..<count {
        observer.observe(model, \.status, options: []) { _, _ in }
        observer.observe(model, \.isSelected, options: []) { _, _ in }
        observer.observe(model, \.videoURL, options: []) { _, _ in }
        observer.observe(board, \.isRecording, options: []) { _, _ in }
        observer.unobserve(model, \.status)
        observer.unobserve(model, \.isSelected)
        observer.unobserve(model, \.videoURL)
        observer.unobserve(board, \.isRecording)
    }
}

// `--profile-cell-keys`: only the floor row's loop, for a profiler (`PROFILE_ITERATIONS` iterations, default
// 1,000,000; callgrind runs two counts and subtracts).
if CommandLine.arguments.contains("--profile-cell-keys") {
    let board = CanvasBoard(canvasCount: 2)
    let count = Int(ProcessInfo.processInfo.environment["PROFILE_ITERATIONS"] ?? "") ?? 1_000_000
    let viewModel = CanvasCellViewModel()
    viewModel.bind(to: board.canvases[1], on: board)
    bindCellKeys(viewModel, count: count)
    exit(0)
}

let bareSource = Strings()
let bareHost = CollectionHost(dataSource: bareSource, configuration: .init(viewportSize: visibleCount))
bareHost.screenDidAppear()
let bareScroll = bestTime(operations: 2 * scrollSteps) { scrollEndToEnd { bareHost.scroll(toOffset: $0) } }

/// The floor of a scroll step for any design that observes only displayed cells: one cell stops observing its keys
/// and another starts, through Observing's `KeyValueObserver` alone.
let floorBoard = CanvasBoard(canvasCount: 2)
let floorModel = floorBoard.canvases[1]
let floorViewModel = CanvasCellViewModel()
floorViewModel.bind(to: floorModel, on: floorBoard)
let observationFloor = bestTime(operations: 10_000) {
    bindCellKeys(floorViewModel, count: 10_000)
}
let earlierObserver = KeyValueObserver()
let earlierFloor = bestTime(operations: 10_000) {
    bindEarlierCellKeys(earlierObserver, floorModel, floorBoard, count: 10_000)
}

// MARK: The canvas screen

struct ModeResult {
    let name: String
    let scrollStep: Double
    let peakLive: Int
    let bound: Int
    let violations: Int
    let reloads: Int
    let cellsMade: Int
}

@MainActor
func measureScroll(_ name: String, _ configuration: CollectionHostConfiguration) -> ModeResult {
    let board = makeBoard()
    let covers = InstantCovers()
    let log = RegistrationLog(keepsEntries: false)
    let screen = CanvasScreen(board: board, configuration: configuration, coverProvider: covers, log: log)
    screen.screenDidAppear()
    var worstDisplayed = 0
    let perStep = bestTime(operations: 2 * scrollSteps) {
        scrollEndToEnd { offset in
            screen.scroll(toOffset: offset)
            worstDisplayed = max(worstDisplayed, screen.host.displayedCells.count)
        }
    }
    // The audit also holds at the end: everything visible is observed once, nothing else.
    precondition(log.liveCount == screen.host.displayedCells.count * keysPerCell, "live registrations drifted")
    return ModeResult(
        name: name, scrollStep: perStep, peakLive: log.peakLiveCount, bound: worstDisplayed * keysPerCell,
        violations: log.violations.count, reloads: screen.reloadCount, cellsMade: screen.adapter.cellCount)
}

let plain = measureScroll("no prefetching", .init(viewportSize: visibleCount))
let prefetching = measureScroll(
    "prefetching (distance 6)", .init(viewportSize: visibleCount, prefetching: .enabled(distance: 6)))

// MARK: Taps

let board = makeBoard()
let log = RegistrationLog(keepsEntries: false)
let screen = CanvasScreen(
    board: board, configuration: .init(viewportSize: visibleCount), coverProvider: InstantCovers(), log: log)
screen.screenDidAppear()
screen.scroll(toOffset: 500)

@MainActor
func recomputations() -> [Int: Int] {
    Dictionary(
        uniqueKeysWithValues: screen.visibleCells.map { ($0.index, screen.viewModel(of: $0.cell)?.recomputations ?? 0) }
    )
}

/// Sends `event` and returns the visible indexes whose view-model recomputed, with how many times.
@MainActor
func recomputed(by event: CanvasEvent) -> [Int: Int] {
    let before = recomputations()
    _ = board.send(event)
    let after = recomputations()
    var changed: [Int: Int] = [:]
    for (index, count) in after where before[index] != count { changed[index] = count - before[index, default: 0] }
    return changed
}

let redrawsBefore = screen.visibleCells.map(\.cell.redrawCount).reduce(0, +)
let first = recomputed(by: .tap(503))
let moved = recomputed(by: .tap(507))
let deselected = recomputed(by: .tap(507))
let offscreenTap = recomputed(by: .tap(20))
let offscreenUntap = recomputed(by: .tap(20))
precondition(Set(first.keys) == [503] && Set(moved.keys) == [503, 507] && Set(deselected.keys) == [507])
precondition(offscreenTap.isEmpty && offscreenUntap.isEmpty, "an offscreen tap made visible cells recompute")
_ = board.send(.tap(504))
let recorded = recomputed(by: .record)
let stopped = recomputed(by: .stop(URL(fileURLWithPath: "/bench/new.mov")))
_ = board.send(.tap(504))
let redraws = screen.visibleCells.map(\.cell.redrawCount).reduce(0, +) - redrawsBefore
let visibleWithTakes = screen.visibleCells.filter { screen.viewModel(of: $0.cell)?.model?.videoURL != nil }.count

// Time per tap: move the preview between two visible canvases, then between two offscreen ones.
let tapRounds = 2_000
let visibleTap = bestTime(operations: tapRounds) {
    for round in 0..<tapRounds { _ = board.send(.tap(round % 2 == 0 ? 505 : 506)) }
}
let offscreenTapTime = bestTime(operations: tapRounds) {
    for round in 0..<tapRounds { _ = board.send(.tap(round % 2 == 0 ? 100 : 101)) }
}
precondition(screen.reloadCount == 0 && log.violations.isEmpty)

// Baselines for taps: the board alone (nothing observes it), and the reloadData-per-change screen.
let bareBoard = makeBoard()
let bareTap = bestTime(operations: tapRounds) {
    for round in 0..<tapRounds { _ = bareBoard.send(.tap(round % 2 == 0 ? 505 : 506)) }
}
let reloadBoard = makeBoard()
let reloadSource = ReloadingSource(board: reloadBoard)
let reloadHost = CollectionHost(dataSource: reloadSource, configuration: .init(viewportSize: visibleCount))
reloadHost.screenDidAppear()
reloadHost.scroll(toOffset: 500)
let reloadTap = bestTime(operations: tapRounds) {
    for round in 0..<tapRounds {
        _ = reloadBoard.send(.tap(round % 2 == 0 ? 505 : 506))
        reloadHost.reloadData()
    }
}

// MARK: Report

func ratio(_ value: Double, _ base: Double) -> String { String(format: "%.1fx", value / base) }
func describe(_ counts: [Int: Int]) -> String {
    counts.isEmpty ? "none" : counts.keys.sorted().map { "\($0) (\(counts[$0]!))" }.joined(separator: ", ")
}

/// The CPU model, as `/proc/cpuinfo` names it (Linux), or "?": ratios measured elsewhere do not carry over.
func cpuModel() -> String {
    let text = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
    let line = text.split(separator: "\n").first { $0.hasPrefix("model name") }
    return line.flatMap { $0.split(separator: ":", maxSplits: 1).last }.map { $0.trimmingCharacters(in: .whitespaces) }
        ?? "?"
}

print("LifecycleBenchmark: \(canvasCount) canvases, \(visibleCount) visible, \(keysPerCell) observed keys per cell")
print("CPU: \(cpuModel()), \(ProcessInfo.processInfo.activeProcessorCount) cores; thread CPU time, best of 5 rounds")
print("")
print(
    "| scrolling end to end and back (\(2 * scrollSteps) steps) | time per step (us) | vs bare host | peak live observations | bound (displayed x keys) | cells made | violations | reloads |"
)
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
print(
    "| bare host, strings, no observation (baseline) | \(microseconds(bareScroll)) | 1.0x | 0 | - | \(visibleCount) | - | 0 |"
)
print(
    "| a cell view-model's start + stop observing (floor of a step: its one chained observation, owner-passing) | "
        + "\(microseconds(observationFloor)) | \(ratio(observationFloor, bareScroll)) | - | - | - | - | - |")
print(
    "| the earlier 4 keys (status, isSelected, videoURL, isRecording) through KeyValueObserver alone, ownerless | "
        + "\(microseconds(earlierFloor)) | \(ratio(earlierFloor, bareScroll)) | - | - | - | - | - |")
for mode in [plain, prefetching] {
    print(
        "| canvas screen, \(mode.name) | \(microseconds(mode.scrollStep)) | \(ratio(mode.scrollStep, bareScroll)) "
            + "| \(mode.peakLive) | \(mode.bound) | \(mode.cellsMade) | \(mode.violations) | \(mode.reloads) |")
}
print("")
print("| tap | time per tap (us) | vs bare board |")
print("| --- | ---: | ---: |")
print("| bare board, nothing observing (baseline) | \(microseconds(bareTap)) | 1.0x |")
print(
    "| canvas screen, preview moving between two visible canvases | \(microseconds(visibleTap)) | \(ratio(visibleTap, bareTap)) |"
)
print(
    "| canvas screen, preview moving between two offscreen canvases | \(microseconds(offscreenTapTime)) | \(ratio(offscreenTapTime, bareTap)) |"
)
print(
    "| reloadData after every tap (what the screen avoids) | \(microseconds(reloadTap)) | \(ratio(reloadTap, bareTap)) |"
)
print("")
print("| event (viewport 500-511) | visible cells that recomputed (times) |")
print("| --- | --- |")
print("| tap 503 (select) | \(describe(first)) |")
print("| tap 507 (move preview) | \(describe(moved)) |")
print("| tap 507 (deselect) | \(describe(deselected)) |")
print(
    "| tap 20 and tap 20 again (offscreen) | \(describe(offscreenTap.merging(offscreenUntap, uniquingKeysWith: +))) |")
print("| record on 504 | \(recorded.count) cells: \(describe(recorded)) |")
print("| stop on 504 | \(stopped.count) cells: \(describe(stopped)) |")
print("")
print(
    "Visible canvases with a take: \(visibleWithTakes) of \(visibleCount); cell redraws during the events above plus the taps selecting 504 before the recording and deselecting it after (each redraw is one real change of what a cell shows): \(redraws)."
)

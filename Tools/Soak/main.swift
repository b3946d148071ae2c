import CanvasCovers
import CanvasHost
import CanvasKit
import CanvasSimulation
import Foundation
import Observing
import SeededRandom
import Thumbnails

// Soak: a board on a headless screen, driven by random events for a bounded time, with real covers from the fixture
// videos (Tools/soak.sh builds it in release and runs it). After every step it checks the invariants; every second it
// samples the resident memory (/proc/self/statm) and at the end fails if memory grew past the bound after warm-up.
//
//   Soak [--seconds N] [--seed S] [--fixtures DIR] [--bound-mb M]

struct Options {
    var seconds = 60.0
    var seed: UInt64 = 1
    var fixtures = "Fixtures"
    /// Growth allowed from the warm-up level to the end, in MB.
    var boundMB = 16.0

    init(_ arguments: [String]) {
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            let value = rest.popFirst() ?? ""
            switch argument {
            case "--seconds": seconds = Double(value) ?? seconds
            case "--seed": seed = UInt64(value) ?? seed
            case "--fixtures": fixtures = value
            case "--bound-mb": boundMB = Double(value) ?? boundMB
            default:
                FileHandle.standardError.write(
                    Data("usage: Soak [--seconds N] [--seed S] [--fixtures DIR] [--bound-mb M]\n".utf8))
                exit(2)
            }
        }
    }
}

/// Resident memory in MB, from /proc/self/statm (its second field, in pages).
func residentMB() -> Double {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Double(fields[1]) else { return 0 }
    return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
}

/// A failed check: printed, counted, and the run fails at the end.
final class Failures {
    private(set) var count = 0
    func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        guard !condition else { return }
        count += 1
        if count <= 20 { print("soak: FAILED CHECK: \(message())") }
    }
}

let options = Options(Array(CommandLine.arguments.dropFirst()))
let fixtures = URL(fileURLWithPath: options.fixtures, isDirectory: true)
let goodNames = [
    "h264.mp4", "hevc.mp4", "hevc-10bit.mp4", "vp9.webm", "mpeg4.avi", "offset-timestamps.ts", "rotation-90.mp4",
    "rotation-180.mp4", "anamorphic.mp4", "black-first-second.mp4", "one-frame.mp4", "truncated-index-at-front.mp4",
]
let brokenNames = ["not-a-video.mp4", "audio-only.m4a", "empty.mp4"]

// A pool of takes: copies of the fixtures in a temporary folder, so the board has many distinct files to record
// into and the soak can rewrite them (a new file version: the cache must drop the old cover).
let pool = FileManager.default.temporaryDirectory.appendingPathComponent("multicanvas-soak-\(getpid())")
try FileManager.default.createDirectory(at: pool, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: pool) }
var goodTakes: [URL] = []
var brokenTakes: Set<URL> = []
for copy in 0..<4 {
    for name in goodNames + brokenNames {
        let target = pool.appendingPathComponent("\(copy)-\(name)")
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent(name), to: target)
        if brokenNames.contains(name) {
            brokenTakes.insert(target.standardizedFileURL)
        } else {
            goodTakes.append(target)
        }
    }
}
let allTakes = goodTakes + brokenTakes.sorted { $0.path < $1.path }

var random = SplitMix64(seed: options.seed)
let failures = Failures()
let covers = CoverService(maximumConcurrency: 2)
let start = ContinuousClock.now
let end = start + .milliseconds(Int(options.seconds * 1000))
let warmUp = min(10.0, options.seconds / 5)
var samples: [(seconds: Double, mb: Double)] = [(0, residentMB())]
var nextSample = start + .seconds(1)
var steps = 0
var rejected = 0
var sessions = 0
var coverFailures = 0
var rewrites = 0
var coversShown = 0

@MainActor
func runSession() {
    sessions += 1
    let canvasCount = Int.random(in: 1...40, using: &random)
    let visible = Int.random(in: 1...12, using: &random)
    let simulation = BoardSimulation(
        canvasCount: canvasCount, visibleCount: visible, coverProvider: covers,
        coverSize: PixelSize(width: 160, height: 120))
    // A session lasts a few thousand steps, then the board goes away (every observation with it).
    for _ in 0..<Int.random(in: 500...4000, using: &random) {
        guard ContinuousClock.now < end else { break }
        let count = simulation.board.canvases.count
        let command: CanvasScript.Command
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<35: command = .event(.tap(Int.random(in: -1...count, using: &random)))
        case 35..<47: command = .event(.record)
        case 47..<59: command = .event(.stop(allTakes.randomElement(using: &random)!))
        case 59..<62: command = .event(.cancel)
        case 62..<67: command = .event(.delete(Int.random(in: 0..<count, using: &random)))
        case 67..<71: command = count < 60 ? .event(.add) : .event(.remove(0))
        case 71..<75: command = .event(.remove(Int.random(in: 0..<count, using: &random)))
        case 75..<90: command = .scroll(Int.random(in: 0..<count, using: &random))
        case 90..<94: command = .disappear
        case 94..<98: command = .appear
        default:
            // Rewrite a take's file in place: the same path, a new version (size and time change).
            let take = goodTakes.randomElement(using: &random)!
            if let data = FileManager.default.contents(atPath: take.path) {
                try? (data + Data([0])).write(to: take)
                rewrites += 1
            }
            command = .event(.tap(-1))
        }
        let step = simulation.perform(command)
        steps += 1
        if !step.isAccepted { rejected += 1 }
        check(step, simulation)
        let now = ContinuousClock.now
        if now >= nextSample {
            samples.append(((now - start) / .seconds(1), residentMB()))
            nextSample = now + .seconds(1)
        }
    }
    let summary = simulation.summary
    failures.check(summary.reloads == 0, "session \(sessions): \(summary.reloads) reloads")
    failures.check(summary.staleCells == 0, "session \(sessions): \(summary.staleCells) stale cells")
    failures.check(summary.registrationViolations == 0, "session \(sessions): registration violations")
}

/// The invariants after one step.
@MainActor
func check(_ step: SimulationStep, _ simulation: BoardSimulation) {
    let state = simulation.board.state
    let selected = state.indices.filter { state[$0].isSelected }
    let recording = state.indices.filter { state[$0].status == .recording }
    failures.check(selected.count <= 1, "step \(steps): I1: \(selected.count) canvases selected")
    failures.check(recording.count <= 1, "step \(steps): I2: \(recording.count) canvases recording")
    for index in state.indices where state[index].status != .noPreview {
        failures.check(state[index].isSelected, "step \(steps): I1: canvas \(index) previews unselected")
    }
    failures.check(step.canvases.count == state.count, "step \(steps): \(step.canvases.count) canvases reported")
    for canvas in step.canvases where canvas.isVisible {
        let expected = CanvasDisplay(
            status: canvas.status, segments: canvas.segments, isUndoArmed: canvas.isUndoArmed,
            boardIsRecording: simulation.board.isRecording)
        failures.check(canvas.shows == expected, "step \(steps): canvas \(canvas.index) shows \(canvas.shows)")
        // A visible cover of a good file has arrived once the step has settled.
        if case .cover(let video) = canvas.shows.picture, !brokenTakes.contains(video.standardizedFileURL) {
            failures.check(
                canvas.cover != nil, "step \(steps): canvas \(canvas.index) shows no cover for \(video.path)")
            coversShown += 1
        }
    }
    for failure in step.coverFailures {
        coverFailures += 1
        failures.check(
            brokenTakes.contains(failure.videoURL.standardizedFileURL),
            "step \(steps): a good file's cover failed: \(failure.reason)")
    }
    // Observations: at most 4 per cell view-model plus 2 per cell and the screen's; never unbounded.
    failures.check(step.liveObservations <= 7 * 80, "step \(steps): \(step.liveObservations) live observations")
}

MainActor.assumeIsolated {
    while ContinuousClock.now < end { runSession() }
}
samples.append(((ContinuousClock.now - start) / .seconds(1), residentMB()))
let leftover = ObservationDiagnostics.liveObservations().count
failures.check(leftover == 0, "\(leftover) observations alive after every board went away")

// Memory: the level after warm-up (median of the first post-warm-up seconds) against the end (median of the last
// seconds), and the least-squares slope after warm-up.
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
}
let settled = samples.filter { $0.seconds >= warmUp }
let window = max(1, settled.count / 10)
let warmLevel = median(settled.prefix(window).map(\.mb))
let endLevel = median(settled.suffix(window).map(\.mb))
let maximum = samples.map(\.mb).max() ?? 0
var slope = 0.0
if settled.count >= 2 {
    let meanT = settled.map(\.seconds).reduce(0, +) / Double(settled.count)
    let meanM = settled.map(\.mb).reduce(0, +) / Double(settled.count)
    let numerator = settled.map { ($0.seconds - meanT) * ($0.mb - meanM) }.reduce(0, +)
    let denominator = settled.map { ($0.seconds - meanT) * ($0.seconds - meanT) }.reduce(0, +)
    slope = denominator > 0 ? numerator / denominator * 60 : 0
}
let growth = endLevel - warmLevel
failures.check(
    growth <= options.boundMB,
    String(format: "memory grew %.1f MB after warm-up (bound %.0f MB)", growth, options.boundMB))

let elapsed = (ContinuousClock.now - start) / .seconds(1)
let statistics = covers.cache.statistics
print(
    String(
        format: "soak: %.0f s, seed %llu: %d steps (%.0f/s, %d rejected), %d boards, %d take files rewritten",
        elapsed, options.seed, steps, Double(steps) / elapsed, rejected, sessions, rewrites))
print(
    "soak: covers: \(coversShown) visible cover checks, cache hits \(statistics.hits), misses \(statistics.misses), "
        + "invalidations \(statistics.invalidations), evictions \(statistics.evictions); \(coverFailures) broken-file failures reported"
)
print(
    String(
        format: "soak: resident memory: start %.1f MB, after %.0f s warm-up %.1f MB, end %.1f MB, max %.1f MB, "
            + "slope after warm-up %+.2f MB/min, growth %+.1f MB (bound %.0f MB), %d samples",
        samples[0].mb, warmUp, warmLevel, endLevel, maximum, slope, growth, options.boundMB, samples.count))
print("soak: invariants checked after every step: \(failures.count == 0 ? "all held" : "\(failures.count) failed")")
exit(failures.count == 0 ? 0 : 1)

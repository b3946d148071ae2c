import CanvasHost
import CanvasKit
import CanvasTestSupport
import Dispatch
import Foundation
import Locking
import SeededRandom
import Synchronization
import TestSupport
import Testing

@Suite("Display lifecycle: model changes from another thread while the screen scrolls")
@MainActor
struct LifecycleConcurrencyTests {
    @Test("a write landing while observation starts is not lost: the display ends on the newest values")
    func writeWhileObservationStarts() {
        // Canvas 0 has a take (its cover, or its take playing while canvas 1 records); canvas 1 is previewed. Each
        // round the cell stops observing, then starts again while another thread flips `isRecording` after a delay
        // that sweeps the whole start: a start that reads the values before it registers misses a flip landing
        // between the two, and nothing later corrects the display.
        let url = URL(fileURLWithPath: "/takes/a.mov")
        let board = CanvasBoard(canvasCount: 2)
        for event: CanvasEvent in [.tap(0), .record, .stop(url), .tap(1)] { _ = board.send(event) }
        let viewModel = CanvasCellViewModel()
        viewModel.bind(to: board.canvases[0], on: board)
        viewModel.startObserving()
        let go = Atomic(0)
        let done = Atomic(0)
        let rounds = 3_000
        let writer = Thread {
            for round in 1...rounds {
                while go.load(ordering: .acquiring) != round {}
                for _ in 0..<(round * 7) % 400 { _ = done.load(ordering: .relaxed) }
                _ = board.send(round % 2 == 1 ? .record : .cancel)
                done.store(round, ordering: .releasing)
            }
        }
        writer.start()
        var stale: [String] = []
        for round in 1...rounds {
            viewModel.stopObserving()
            go.store(round, ordering: .releasing)
            viewModel.startObserving()
            while done.load(ordering: .acquiring) != round {}
            let expected: CanvasDisplay.Picture = board.isRecording ? .playback(url) : .cover(url)
            if viewModel.display?.picture != expected, stale.count < 3 {
                stale.append("round \(round): shows \(String(describing: viewModel.display)), board says \(expected)")
            }
        }
        #expect(stale.isEmpty, "\(stale)")
    }

    @Test("taps, records and stops on a background thread, scrolling on the main actor: the audit passes at the end")
    func backgroundEventsWhileScrolling() async {
        let board = CanvasBoard(canvasCount: 40)
        let covers = FakeCoverProvider(completesImmediately: true)
        let screen = CanvasScreen(
            board: board, configuration: .init(viewportSize: 6, prefetching: .enabled(distance: 2)),
            coverProvider: covers)
        screen.screenDidAppear()
        // One sending thread in CI; `MULTICANVAS_STRESS_THREADS` adds more and `MULTICANVAS_STRESS_SECONDS` makes each
        // send until it passes (see `StressScale`).
        let senders = max(1, StressScale.threads - 3)
        let end = ContinuousClock.now + .milliseconds(Int(StressScale.seconds * 1000))
        let finished = LockedValue(0)
        for sender in 0..<senders {
            DispatchQueue.global().async {
                var random = SplitMix64(seed: 99 + UInt64(sender))
                var serial = 0
                while serial < 2_000 || ContinuousClock.now < end {
                    let event: CanvasEvent =
                        switch Int.random(in: 0..<10, using: &random) {
                        case 0: .record
                        case 1: .stop(URL(fileURLWithPath: "/takes/background-\(sender)-\(serial).mov"))
                        case 2: .cancel
                        default: .tap(Int.random(in: 0..<40, using: &random))
                        }
                    _ = board.send(event)
                    serial += 1
                }
                finished.withLock { $0 += 1 }
            }
        }
        var random = SplitMix64(seed: 7)
        var scrolls = 0
        while finished.withLock({ $0 }) < senders || scrolls < 50 {
            screen.scroll(toOffset: Int.random(in: 0..<40, using: &random))
            if scrolls % 25 == 24 {
                screen.screenWillDisappear()
                screen.screenDidAppear()
            }
            scrolls += 1
        }
        // The cells draw on the main actor: what the senders' changes queued for it runs first.
        await drainMainQueue()
        let problems = screen.auditProblems(models: ModelRegistry())
        #expect(problems.isEmpty, "\(problems)")
        #expect(screen.log.violations.isEmpty)
        #expect(scrolls >= 50)
    }
}

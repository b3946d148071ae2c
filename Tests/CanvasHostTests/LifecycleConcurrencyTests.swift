import CanvasHost
import CanvasKit
import CanvasTestSupport
import Dispatch
import Foundation
import Locking
import SeededRandom
import TestSupport
import Testing

@Suite("Display lifecycle: model changes from another thread while the screen scrolls")
@MainActor
struct LifecycleConcurrencyTests {
    @Test("taps, records and stops on a background thread, scrolling on the main actor: the audit passes at the end")
    func backgroundEventsWhileScrolling() {
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
        let problems = screen.auditProblems(models: ModelRegistry())
        #expect(problems.isEmpty, "\(problems)")
        #expect(screen.log.violations.isEmpty)
        #expect(scrolls >= 50)
    }
}

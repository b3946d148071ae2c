import CanvasKit
import Dispatch
import Foundation
import Synchronization
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
        let finished = Mutex(false)
        DispatchQueue.global().async {
            var random = SplitMix64(seed: 99)
            for serial in 0..<2_000 {
                let event: CanvasEvent =
                    switch Int.random(in: 0..<10, using: &random) {
                    case 0: .record
                    case 1: .stop(URL(fileURLWithPath: "/takes/background-\(serial).mov"))
                    case 2: .cancel
                    default: .tap(Int.random(in: 0..<40, using: &random))
                    }
                _ = board.send(event)
            }
            finished.withLock { $0 = true }
        }
        var random = SplitMix64(seed: 7)
        var scrolls = 0
        while !finished.withLock({ $0 }) || scrolls < 50 {
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

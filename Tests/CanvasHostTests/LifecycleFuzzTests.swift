import CanvasHost
import CanvasKit
import CanvasTestSupport
import Foundation
import Testing

@Suite("Display lifecycle: seeded random sequences on the canvas screen")
@MainActor
struct LifecycleFuzzTests {
    nonisolated static let configurations: [CollectionHostConfiguration] = [
        .init(viewportSize: 3),
        .init(viewportSize: 4, prefetching: .enabled(distance: 2)),
        .init(viewportSize: 3, callbackOrder: .shuffled(seed: 17)),
        .init(viewportSize: 5, prefetching: .enabled(distance: 1), callbackOrder: .shuffled(seed: 4)),
        .init(viewportSize: 2, disappearance: .endsDisplayingVisibleCells),
        .init(
            viewportSize: 4, prefetching: .enabled(distance: 3), callbackOrder: .shuffled(seed: 9),
            disappearance: .endsDisplayingVisibleCells),
    ]

    @Test(
        "scrolls, taps, record/stop, add/remove, disappear/appear: the audit passes after every step",
        arguments: configurations)
    func randomSequences(configuration: CollectionHostConfiguration) {
        var stepsRun = 0
        for seed in UInt64(1)...16 {
            let canvasCount = 1 + Int(seed % 9)
            let board = CanvasBoard(canvasCount: canvasCount)
            let covers = FakeCoverProvider(completesImmediately: seed % 2 == 0)
            let screen = CanvasScreen(
                board: board, configuration: configuration, coverProvider: covers, log: RegistrationLog())
            let steps = LifecycleStep.sequence(seed: seed, canvasCount: canvasCount, count: 90)
            if let failure = screen.run(steps) {
                Issue.record("seed \(seed), step \(failure.step) (\(failure.description)): \(failure.problems)")
            }
            stepsRun += steps.count
            #expect(screen.lastUpdateError == nil)
            #expect(screen.reloadCount == 0)
            // The sequences really exercised the lifecycle: cells were displayed, ended and observed.
            #expect(screen.host.statistics.willDisplayCalls > 0)
            #expect(!screen.log.entries.isEmpty)
        }
        #expect(stepsRun == 16 * 90)
    }

    @Test("the sequences reach every kind of step and both screen states")
    func sequencesCoverEveryStep() {
        var kinds = Set<String>()
        for seed in UInt64(1)...16 {
            for step in LifecycleStep.sequence(seed: seed, canvasCount: 4, count: 90) {
                switch step {
                case .event(let event): kinds.insert(event.word)
                case .scroll: kinds.insert("scroll")
                case .disappear: kinds.insert("disappear")
                case .appear: kinds.insert("appear")
                }
            }
        }
        #expect(
            kinds == ["tap", "record", "stop", "cancel", "delete", "add", "remove", "scroll", "disappear", "appear"])
    }
}

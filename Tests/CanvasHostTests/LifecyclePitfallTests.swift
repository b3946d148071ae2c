import CanvasHost
import CanvasKit
import Foundation
import Testing

@Suite("Display lifecycle: the original pitfalls, replayed")
@MainActor
struct LifecyclePitfallTests {
    nonisolated static let configurations: [CollectionHostConfiguration] = [
        .init(viewportSize: 3),
        .init(viewportSize: 3, prefetching: .enabled(distance: 2), callbackOrder: .shuffled(seed: 2)),
    ]

    @Test(
        "each naive binder fails the audit on a sequence where ours passes",
        arguments: NaiveStrategy.allCases, configurations)
    func naiveBindersFail(strategy: NaiveStrategy, configuration: CollectionHostConfiguration) {
        var naiveFailures = 0
        for seed in UInt64(1)...6 {
            let canvasCount = 3 + Int(seed % 5)
            let steps = LifecycleStep.sequence(seed: seed, canvasCount: canvasCount, count: 60)
            let ours = CanvasScreen(board: CanvasBoard(canvasCount: canvasCount), configuration: configuration)
            let oursFailure = ours.run(steps)
            #expect(oursFailure == nil, "ours, seed \(seed): \(oursFailure.map { "\($0.step) \($0.problems)" } ?? "")")
            let naive = NaiveScreen(
                strategy: strategy, board: CanvasBoard(canvasCount: canvasCount), configuration: configuration)
            if naive.run(steps) != nil { naiveFailures += 1 }
        }
        // A sequence may happen to avoid a strategy's mistake (no disappear while cells are displayed, say); most do not.
        #expect(naiveFailures >= 4, "\(strategy) passed the audit on \(6 - naiveFailures) of 6 sequences")
    }

    /// Runs `steps` on a fresh screen of each kind and returns ours' problems and the naive one's first problems.
    private func replay(
        _ strategy: NaiveStrategy,
        canvases: Int = 6,
        configuration: CollectionHostConfiguration = .init(viewportSize: 2),
        steps: [LifecycleStep]
    ) -> (ours: [String], naive: [String]) {
        let ours = CanvasScreen(board: CanvasBoard(canvasCount: canvases), configuration: configuration)
        let naive = NaiveScreen(
            strategy: strategy, board: CanvasBoard(canvasCount: canvases), configuration: configuration)
        return (ours.run(steps)?.problems ?? [], naive.run(steps)?.problems ?? [])
    }

    @Test("registering in cellForItem leaves observers behind when the screen disappears")
    func cellForItemAndDisappear() {
        let result = replay(.registersInCellForItem, steps: [.event(.tap(0)), .disappear])
        #expect(result.ours.isEmpty)
        #expect(result.naive.contains("6 registrations while the screen is away"))
    }

    @Test("registering in cellForItem observes prefetched cells that are never displayed")
    func cellForItemAndPrefetching() {
        let result = replay(
            .registersInCellForItem, canvases: 10,
            configuration: .init(viewportSize: 2, prefetching: .enabled(distance: 2)),
            steps: [.scroll(1), .scroll(5), .event(.tap(5))])
        #expect(result.ours.isEmpty)
        #expect(result.naive.contains { $0.contains("model observations for") }, "\(result.naive)")
    }

    @Test("registering at cell creation shows a reused cell's old model")
    func creationAndReuse() {
        let result = replay(.registersAtCellCreation, steps: [.scroll(2), .event(.tap(2))])
        #expect(result.ours.isEmpty)
        #expect(result.naive == ["cell 2 shows addButton, model says livePreview"])
    }

    @Test("removing one key path on disappear registers the others twice on appear")
    func oneKeyPathOnDisappear() {
        let result = replay(.removesOneKeyPathOnDisappear, steps: [.disappear])
        #expect(result.ours.isEmpty)
        #expect(result.naive == ["4 registrations while the screen is away", "4 model observations while away"])
        let steps: [LifecycleStep] = [.disappear, .appear]
        let board = CanvasBoard(canvasCount: 6)
        let naive = NaiveScreen(
            strategy: .removesOneKeyPathOnDisappear, board: board, configuration: .init(viewportSize: 2))
        let ours = CanvasScreen(board: CanvasBoard(canvasCount: 6), configuration: .init(viewportSize: 2))
        #expect(ours.runAuditingAtEnd(steps).isEmpty)
        #expect(
            naive.runAuditingAtEnd(steps).contains {
                $0.hasSuffix(".segments registered twice (second time in screenDidAppear)")
            })
    }

    @Test("forgetting which model was observed removes observers from the wrong object on reuse")
    func forgetsWhichModel() {
        let result = replay(.forgetsWhichModel, steps: [.scroll(2)])
        #expect(result.ours.isEmpty)
        #expect(result.naive.contains("#2.status removed in cellForItem without being registered"))
    }
}

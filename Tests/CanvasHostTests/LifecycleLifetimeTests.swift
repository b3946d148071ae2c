import CanvasTestSupport
import Foundation
import Observing
import TestSupport
import Testing

@testable import CanvasHost
@testable import CanvasKit

@Suite("Display lifecycle: lifetimes")
@MainActor
struct LifecycleLifetimeTests {
    /// Builds a board and a screen, runs a sequence while tracking every board, model, cell, view-model, observer and
    /// token seen, optionally lets the screen disappear, and drops everything.
    private func exercise(disappearFirst: Bool, tracker: LifetimeTracker) {
        let board = CanvasBoard(canvasCount: 7)
        let covers = FakeCoverProvider()
        let configuration = CollectionHostConfiguration(viewportSize: 3, prefetching: .enabled(distance: 1))
        let screen = CanvasScreen(board: board, configuration: configuration, coverProvider: covers)
        tracker.watch(board, "board")
        tracker.watch(screen, "screen")
        tracker.watch(screen.host, "host")
        tracker.watch(screen.binder, "binder")
        tracker.watch(screen.adapter, "adapter")
        if let token = screen.adapter.canvasesToken { tracker.watch(token, "canvases token") }
        var seen = Set<ObjectIdentifier>()
        func trackAll() {
            for model in board.canvases where seen.insert(ObjectIdentifier(model)).inserted {
                tracker.watch(model, "model \(model.id)")
            }
            for (_, cell) in screen.host.displayedCells where seen.insert(ObjectIdentifier(cell)).inserted {
                let binding = screen.adapter.bindings[ObjectIdentifier(cell)]!
                tracker.watch(cell, "cell")
                tracker.watch(binding, "binding")
                tracker.watch(binding.model, "view-model")
                tracker.watch(binding.model.observer, "observer")
                for token in binding.tokens { tracker.watch(token, "cell token") }
            }
        }
        let steps = LifecycleStep.sequence(seed: 42, canvasCount: 7, count: 80)
        screen.screenDidAppear()
        for step in steps {
            screen.perform(step)
            trackAll()
        }
        screen.screenDidAppear()
        _ = board.send(.cancel)
        _ = board.send(.tap(0))
        _ = board.send(.record)
        _ = board.send(.stop(URL(fileURLWithPath: "/takes/last.mov")))
        _ = board.send(.tap(0))
        trackAll()
        #expect(!covers.all.isEmpty, "covers were requested, so pending requests hold completions")
        if disappearFirst {
            screen.screenWillDisappear()
            #expect(screen.log.liveCount == 0)
        }
    }

    @Test("after the screen disappears and it and the board go away, nothing is alive", arguments: [true, false])
    func nothingSurvives(disappearFirst: Bool) {
        let tracker = LifetimeTracker()
        exercise(disappearFirst: disappearFirst, tracker: tracker)
        #expect(tracker.watchedCount > 20)
        #expect(tracker.survivors.isEmpty, "still alive: \(tracker.survivors)")
    }

    @Test("a view-model released while observing ends its observations and logs their removal")
    func viewModelReleasedWhileObserving() {
        let board = CanvasBoard(canvasCount: 2)
        let log = RegistrationLog()
        let tracker = LifetimeTracker()
        do {
            let viewModel = CanvasCellViewModel(log: log)
            tracker.watch(viewModel, "view-model")
            viewModel.bind(to: board.canvases[0], on: board)
            viewModel.startObserving()
            #expect(log.liveCount == 1)
            #expect(ObservationDiagnostics.liveObservations(of: board.canvases[0]).count == 1)
        }
        #expect(tracker.survivors.isEmpty)
        #expect(log.liveCount == 0)
        #expect(log.violations.isEmpty)
        #expect(ObservationDiagnostics.liveObservations(of: board.canvases[0]).isEmpty)
        #expect(log.entries.last.map { $0.action == .removed && $0.hook == .teardown } == true)
    }
}

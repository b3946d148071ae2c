import CanvasKit
import CanvasTestSupport
import Foundation
import Observation
import Observing
import Synchronization
import Testing

/// Counts the `onChange` calls of the trackings armed through it, from any thread.
private final class Renders: Sendable {
    private let count = Atomic<Int>(0)

    var changes: Int { count.load(ordering: .acquiring) }

    /// Runs `body` the way SwiftUI runs a view's body: inside `withObservationTracking`.
    func track<Result>(_ body: () -> Result) -> Result {
        withObservationTracking(body) { [self] in
            count.add(1, ordering: .relaxed)
        }
    }
}

/// What SwiftUI relies on: a view that reads the models or a cell's view-model in its body is told
/// when what it read changes, with no extra code in CanvasKit's classes.
@Suite("Swift Observation of models and cell view-models")
@MainActor
struct ObservationTrackingTests {
    @Test("CanvasBoard.send: a view reading a model is told when that model changes, and only then")
    func modelsAreTracked() {
        let board = CanvasBoard(canvasCount: 3)
        let tapped = Renders()
        let untouched = Renders()
        tapped.track { _ = (board.canvases[0].status, board.canvases[0].isSelected) }
        untouched.track { _ = (board.canvases[2].status, board.canvases[2].isSelected, board.canvases[2].videoURL) }
        _ = board.send(.tap(0))
        #expect(board.canvases[0].status == .inPreview)
        #expect(tapped.changes == 1)
        #expect(untouched.changes == 0, "a model the event did not change does not notify")
    }

    @Test("CanvasBoard: isRecording and a finished take's videoURL are tracked")
    func boardAndTakeAreTracked() {
        let board = CanvasBoard(canvasCount: 2)
        _ = board.send(.tap(1))
        let recording = Renders()
        let take = Renders()
        recording.track { _ = board.isRecording }
        take.track { _ = board.canvases[1].videoURL }
        _ = board.send(.record)
        #expect(recording.changes == 1)
        #expect(take.changes == 0)
        _ = board.send(.stop(URL(fileURLWithPath: "/takes/b.mov")))
        #expect(take.changes == 1)
    }

    @Test("A cell view-model's display is tracked: a board event re-renders the cell's view")
    func displayIsTracked() {
        let board = CanvasBoard(canvasCount: 2)
        let viewModel = CanvasCellViewModel()
        viewModel.bind(to: board.canvases[0], on: board)
        viewModel.startObserving()
        let view = Renders()
        #expect(view.track { viewModel.display?.picture } == .addButton)
        _ = board.send(.tap(0))
        #expect(view.changes == 1)
        #expect(view.track { viewModel.display?.picture } == .livePreview)
        _ = board.send(.tap(1))
        #expect(view.changes == 2)
        #expect(viewModel.display?.picture == .addButton)
        viewModel.stopObserving()
    }

    @Test("A cell view-model's cover is tracked: the cover arriving re-renders the cell's view")
    func coverIsTracked() {
        let url = URL(fileURLWithPath: "/takes/a.mov")
        let board = CanvasBoard(canvasCount: 3)
        for event: CanvasEvent in [.tap(0), .record, .stop(url), .tap(1)] { _ = board.send(event) }
        let covers = FakeCoverProvider()
        let viewModel = CanvasCellViewModel(coverProvider: covers)
        viewModel.bind(to: board.canvases[0], on: board)
        viewModel.startObserving()
        let view = Renders()
        #expect(view.track { viewModel.cover } == nil)
        covers.completeAll()
        #expect(view.changes == 1)
        #expect(view.track { viewModel.cover } == FakeCoverProvider.image(for: url))
        viewModel.stopObserving()
    }
}

import CanvasHost
import CanvasKit
import CanvasTestSupport
import Foundation
import Observing
import Testing

/// A board whose canvas 0 has a finished take and is not selected, so it shows its cover.
private func boardWithTake(_ url: URL = URL(fileURLWithPath: "/takes/a.mov"), canvases: Int = 3) -> CanvasBoard {
    let board = CanvasBoard(canvasCount: canvases)
    for event: CanvasEvent in [.tap(0), .record, .stop(url), .tap(0)] { _ = board.send(event) }
    return board
}

@Suite("Cell view-model: binding, observing, covers")
@MainActor
struct CanvasCellViewModelTests {
    @Test("binding derives the display and registers nothing; observing registers one chain through what it shows")
    func bindThenObserve() {
        let board = CanvasBoard(canvasCount: 2)
        let log = RegistrationLog()
        let viewModel = CanvasCellViewModel(log: log)
        #expect(viewModel.display == nil)
        viewModel.bind(to: board.canvases[1], on: board)
        #expect(viewModel.display?.picture == .addButton)
        #expect(log.entries.isEmpty)
        #expect(!viewModel.isObserving)

        viewModel.startObserving()
        #expect(
            log.entries.map(\.description) == ["registered #1.status.segments.isUndoArmed.isRecording in willDisplay"])
        _ = board.send(.tap(1))
        #expect(viewModel.display?.picture == .livePreview)

        viewModel.startObserving(in: .willDisplay)
        #expect(log.entries.count == 1, "a repeated start registers nothing")
        viewModel.stopObserving()
        viewModel.stopObserving()
        #expect(log.entries.count == 2, "a repeated stop removes nothing")
        #expect(log.violations.isEmpty)
        #expect(log.liveCount == 0)
        #expect(ObservationDiagnostics.liveObservations(of: board.canvases[1]).isEmpty)
    }

    @Test("an observer of display or cover may call back into the view-model (no lock is held while it runs)")
    func observersMayCallBack() throws {
        let board = boardWithTake()
        let viewModel = CanvasCellViewModel(coverProvider: FakeCoverProvider(completesImmediately: true))
        let displayToken = viewModel.observe(\.display, options: [.new]) { viewModel, _ in
            viewModel.startObserving()
        }
        let coverToken = viewModel.observe(\.cover, options: [.new]) { viewModel, _ in
            viewModel.startObserving()
        }
        defer {
            displayToken.invalidate()
            coverToken.invalidate()
        }
        viewModel.bind(to: board.canvases[0], on: board)
        #expect(viewModel.display?.picture == .cover(URL(fileURLWithPath: "/takes/a.mov")))
        #expect(viewModel.cover != nil)
        _ = board.send(.tap(0))
        #expect(viewModel.display?.picture == .livePreview)
        viewModel.unbind()
        #expect(viewModel.display == nil)
        #expect(viewModel.cover == nil)
    }

    @Test("while not observing the display is not updated; starting again re-derives it")
    func staleWhileNotObservingThenRederived() {
        let board = CanvasBoard(canvasCount: 2)
        let viewModel = CanvasCellViewModel()
        viewModel.bind(to: board.canvases[0], on: board)
        _ = board.send(.tap(0))
        #expect(viewModel.display?.picture == .addButton)
        viewModel.startObserving()
        #expect(viewModel.display?.picture == .livePreview)
        let before = viewModel.recomputations
        _ = board.send(.tap(1))
        #expect(viewModel.display?.picture == .addButton)
        #expect(viewModel.recomputations > before)
    }

    @Test("binding to another model while observing moves the observation, removing it from the old model")
    func rebindWhileObserving() {
        let board = CanvasBoard(canvasCount: 3)
        let log = RegistrationLog()
        let viewModel = CanvasCellViewModel(log: log)
        viewModel.bind(to: board.canvases[0], on: board)
        viewModel.startObserving()
        viewModel.bind(to: board.canvases[2], on: board)
        let rebinds = log.entries.filter { $0.hook == .rebind }.map(\.description)
        #expect(
            rebinds == [
                "removed #0.status.segments.isUndoArmed.isRecording in rebind",
                "registered #2.status.segments.isUndoArmed.isRecording in rebind",
            ])
        #expect(ObservationDiagnostics.liveObservations(of: board.canvases[0]).isEmpty)
        #expect(ObservationDiagnostics.liveObservations(of: board.canvases[2]).count == 1)
        #expect(log.violations.isEmpty)
        viewModel.unbind()
        #expect(log.liveCount == 0)
        #expect(viewModel.display == nil)
    }

    @Test("a canvas with a take shows its cover, or its take playing while another canvas records")
    func coverAndPlayback() {
        let url = URL(fileURLWithPath: "/takes/a.mov")
        let board = boardWithTake(url)
        let viewModel = CanvasCellViewModel()
        viewModel.bind(to: board.canvases[0], on: board)
        viewModel.startObserving()
        #expect(viewModel.display?.picture == .cover(url))
        _ = board.send(.tap(1))
        _ = board.send(.record)
        #expect(viewModel.display?.picture == .playback(url))
        _ = board.send(.cancel)
        #expect(viewModel.display?.picture == .cover(url))
    }

    @Test("one cover request per take, with the cell's maximum size; the cover reaches the cell")
    func coverRequested() throws {
        let url = URL(fileURLWithPath: "/takes/a.mov")
        let board = boardWithTake(url)
        let covers = FakeCoverProvider()
        let viewModel = CanvasCellViewModel(coverProvider: covers, coverSize: PixelSize(width: 160, height: 90))
        let cell = ViewModelCell(viewModel: viewModel, binder: nil)
        viewModel.bind(to: board.canvases[0], on: board)
        viewModel.startObserving()
        _ = board.send(.tap(1))
        _ = board.send(.tap(1))
        #expect(covers.all.map(\.url) == [url], "re-deriving the same take asks once")
        #expect(cell.shownCover == nil)
        covers.completeAll()
        #expect(viewModel.cover == FakeCoverProvider.image(for: url))
        #expect(cell.shownCover == FakeCoverProvider.image(for: url))
        #expect(cell.shownDisplay?.picture == .cover(url))
    }

    @Test("the cover request is cancelled when the take changes or the view-model is unbound, not when display ends")
    func coverCancelled() throws {
        let first = URL(fileURLWithPath: "/takes/a.mov")
        let second = URL(fileURLWithPath: "/takes/b.mov")
        let board = boardWithTake(first)
        let covers = FakeCoverProvider()
        let viewModel = CanvasCellViewModel(coverProvider: covers)
        viewModel.bind(to: board.canvases[0], on: board)
        viewModel.startObserving()
        let firstRequest = try #require(covers.all.first)
        viewModel.stopObserving()
        #expect(!firstRequest.isCancelled, "a cell that merely ends display keeps its cover coming")
        viewModel.startObserving()

        // A new take replaces the old one: the old request is cancelled, the new cover requested once shown.
        for event: CanvasEvent in [.tap(0), .record, .stop(second)] { _ = board.send(event) }
        #expect(firstRequest.isCancelled)
        _ = board.send(.tap(0))
        let secondRequest = try #require(covers.all.last)
        #expect(secondRequest.url == second)
        firstRequest.completion(.success(FakeCoverProvider.image(for: first)))
        #expect(viewModel.cover == nil, "a late completion of the cancelled request is ignored")
        covers.completeAll()
        #expect(viewModel.cover == FakeCoverProvider.image(for: second))

        // Deleting the take drops the cover.
        _ = board.send(.delete(0))
        #expect(viewModel.display?.picture == .addButton)
        #expect(viewModel.cover == nil)

        // Unbinding cancels a request in flight.
        let third = URL(fileURLWithPath: "/takes/c.mov")
        for event: CanvasEvent in [.tap(0), .record, .stop(third), .tap(0)] { _ = board.send(event) }
        let thirdRequest = try #require(covers.all.last)
        #expect(thirdRequest.url == third)
        viewModel.unbind()
        #expect(thirdRequest.isCancelled)
    }

    @Test("a cover delivered synchronously (a cache hit) is shown, and a failure is reported, not thrown")
    func coverEdgeCases() {
        let url = URL(fileURLWithPath: "/takes/a.mov")
        let board = boardWithTake(url)
        let cached = CanvasCellViewModel(coverProvider: FakeCoverProvider(completesImmediately: true))
        cached.bind(to: board.canvases[0], on: board)
        #expect(cached.cover == FakeCoverProvider.image(for: url))

        struct Unreadable: Error, CustomStringConvertible {
            var description: String { "not a video" }
        }
        final class FailingProvider: CompletionCoverProvider {
            final class Request: CancellableCoverRequest { func cancel() {} }
            func requestCover(
                for videoURL: URL, maximumSize: PixelSize,
                completion: @escaping @Sendable (Result<CoverImage, any Error>) -> Void
            ) -> any CancellableCoverRequest {
                completion(.failure(Unreadable()))
                return Request()
            }
        }
        let failing = CanvasCellViewModel(coverProvider: FailingProvider())
        failing.bind(to: board.canvases[0], on: board)
        #expect(failing.cover == nil)
        #expect(failing.coverError == "not a video")
        #expect(failing.display?.picture == .cover(url))
    }
}

@Suite("Display-lifecycle binder: hooks in any order are harmless")
@MainActor
struct DisplayLifecycleBinderTests {
    private func makeCell(_ binder: DisplayLifecycleBinder) -> ViewModelCell {
        ViewModelCell(viewModel: CanvasCellViewModel(log: binder.log), binder: binder)
    }

    @Test("repeated willDisplay, end without start, end after disappear, display while away")
    func oddOrders() {
        let board = CanvasBoard(canvasCount: 3)
        let binder = DisplayLifecycleBinder(log: RegistrationLog())
        let cell = makeCell(binder)
        cell.viewModel?.bind(to: board.canvases[0], on: board)

        binder.didEndDisplaying(cell, at: 0)
        #expect(binder.log.entries.isEmpty, "an end without a start removes nothing")
        binder.willDisplay(cell, at: 0)
        binder.willDisplay(cell, at: 0)
        #expect(binder.log.liveCount == 1)
        binder.screenWillDisappear()
        #expect(binder.log.liveCount == 0)
        binder.didEndDisplaying(cell, at: 0)
        #expect(binder.log.liveCount == 0)

        binder.willDisplay(cell, at: 1)
        #expect(binder.log.liveCount == 0, "nothing registers while the screen is away")
        _ = board.send(.tap(0))
        binder.screenDidAppear()
        #expect(binder.log.liveCount == 1)
        #expect(cell.shownDisplay?.picture == .livePreview, "re-derived on appear")
        #expect(binder.log.violations.isEmpty)
    }

    @Test("a reuse for another model unbinds first, so removals hit the model that was observed")
    func reuseForAnotherModel() {
        let board = CanvasBoard(canvasCount: 3)
        let binder = DisplayLifecycleBinder()
        let cell = makeCell(binder)
        cell.viewModel?.bind(to: board.canvases[0], on: board)
        binder.willDisplay(cell, at: 0)
        // UIKit would end display first; a host that does not is covered too.
        cell.prepareForReuse()
        #expect(binder.log.liveCount == 0)
        #expect(cell.shownDisplay == nil)
        cell.viewModel?.bind(to: board.canvases[2], on: board)
        binder.willDisplay(cell, at: 2)
        #expect(
            binder.log.liveRegistrations.map(\.description) == ["#2.status.segments.isUndoArmed.isRecording"])
        #expect(ObservationDiagnostics.liveObservations(of: board.canvases[0]).isEmpty)
        #expect(binder.log.violations.isEmpty)
        #expect(!binder.isDisplaying(makeCell(binder)))
        #expect(binder.isDisplaying(cell))
    }

    @Test("the registration log audits duplicates and removals without registration")
    func logAudit() {
        let board = CanvasBoard(canvasCount: 1)
        let model = board.canvases[0]
        let log = RegistrationLog()
        let key = RegistrationKey(object: model, objectName: "#0", keyPath: "status")
        log.record(.removed, key, in: .didEndDisplaying)
        // Two observers of the log observe the one unscoped key, as two cells that both registered it would.
        let first = log.makeObserver()
        first.observe(model, \.status, options: []) { _, _ in }
        log.record(.registered, key, in: .cellForItem)
        let second = log.makeObserver()
        second.observe(model, \.status, options: []) { _, _ in }
        log.record(.registered, key, in: .willDisplay)
        #expect(
            log.violations.map(\.description) == [
                "#0.status removed in didEndDisplaying without being registered",
                "#0.status registered twice (second time in willDisplay)",
            ])
        #expect(log.liveCount == 2)
        #expect(log.peakLiveCount == 2)
        log.record(.removed, key, in: .didEndDisplaying)
        first.unobserveAll()
        log.record(.removed, key, in: .didEndDisplaying)
        second.unobserveAll()
        #expect(log.liveCount == 0)
        #expect(log.violations.count == 2)
        let quiet = RegistrationLog(keepsEntries: false)
        let third = quiet.makeObserver()
        third.observe(model, \.status, options: []) { _, _ in }
        quiet.record(.registered, key, in: .willDisplay)
        #expect(quiet.entries.isEmpty)
        #expect(quiet.liveCount == 1)
    }

    @Test("a key made with its key path is audited by that key path, whatever it is named")
    func logAuditByKeyPath() {
        let board = CanvasBoard(canvasCount: 1)
        let model = board.canvases[0]
        let log = RegistrationLog()
        let byPath = RegistrationKey(object: model, objectName: "#0", path: \CanvasModel.status, name: "its status")
        let byName = RegistrationKey(object: model, objectName: "#0", keyPath: "its status")
        let first = log.makeObserver()
        first.observe(model, \.status, options: []) { _, _ in }
        log.record(.registered, byPath, in: .willDisplay)
        // Another key path of the same object is not this key's.
        first.observe(model, \.isSelected, options: []) { _, _ in }
        log.record(.registered, byPath, in: .willDisplay)
        #expect(log.violations.isEmpty)
        let second = log.makeObserver()
        second.observe(model, \.status, options: []) { _, _ in }
        log.record(.registered, byPath, in: .willDisplay)
        // A key named alone matches the observations Observing names so: none is named "its status".
        log.record(.removed, byName, in: .didEndDisplaying)
        #expect(
            log.violations.map(\.description) == [
                "#0.its status registered twice (second time in willDisplay)",
                "#0.its status removed in didEndDisplaying without being registered",
            ])
        #expect(
            byPath != byName
                && byPath == RegistrationKey(object: model, objectName: "#0", path: \CanvasModel.status, name: "x"))
        first.unobserveAll()
        second.unobserveAll()
    }

    @Test("the log reads what is live from Observing's registry: only its observers, however observations end")
    func logReadsTheRegistry() {
        let board = CanvasBoard(canvasCount: 2)
        let log = RegistrationLog()
        let key = RegistrationKey(object: board.canvases[0], objectName: "#0", keyPath: "status")
        // Observations of the same key by others (a token, an observer the log did not make) are not the log's.
        let token = board.canvases[0].observe(\.status, options: []) { _, _ in }
        let outsider = KeyValueObserver()
        outsider.observe(board.canvases[0], \.status, options: []) { _, _ in }
        var observer: KeyValueObserver? = log.makeObserver()
        observer?.observe(board.canvases[0], \.status, options: []) { _, _ in }
        log.record(.registered, key, in: .willDisplay)
        #expect(log.violations.isEmpty)
        #expect(log.liveCount == 1)
        #expect(log.liveRegistrations.map(\.description) == ["#0.status"])
        // The observer going away ends its observations: nothing is live, with no removal recorded.
        observer = nil
        #expect(log.liveCount == 0)
        #expect(log.liveRegistrations.isEmpty)
        log.record(.removed, key, in: .didEndDisplaying)
        #expect(log.violations.map(\.description) == ["#0.status removed in didEndDisplaying without being registered"])
        token.invalidate()
        outsider.unobserveAll()
    }
}

/// A holder that makes its view-model late (as a cell made by UIKit's `init(frame:)` would, the first time it is
/// dequeued).
@MainActor
private final class LateViewModelCell: CanvasCellViewModelHolder {
    private(set) var viewModel: CanvasCellViewModel?

    func prepare(log: RegistrationLog) {
        guard viewModel == nil else { return }
        viewModel = CanvasCellViewModel(log: log)
    }
}

@Suite("A cell that makes its view-model after init(frame:)")
@MainActor
struct LateViewModelCellTests {
    @Test("hooks before the view-model exists do nothing; once made, the holder binds and observes as any other")
    func lateViewModel() {
        let board = CanvasBoard(canvasCount: 2)
        let binder = DisplayLifecycleBinder(log: RegistrationLog())
        let cell = LateViewModelCell()
        binder.willDisplay(cell, at: 0)
        binder.didEndDisplaying(cell, at: 0)
        binder.prepareForReuse(cell)
        #expect(binder.log.entries.isEmpty)
        #expect(binder.displayedCellCount == 0)

        cell.prepare(log: binder.log)
        let first = cell.viewModel
        cell.prepare(log: binder.log)
        #expect(cell.viewModel === first, "made once, kept for the cell's life")
        cell.viewModel?.bind(to: board.canvases[1], on: board)
        binder.willDisplay(cell, at: 1)
        #expect(binder.log.liveCount == 1)
        board.send(.tap(1))
        #expect(cell.viewModel?.display?.picture == .livePreview)
        binder.didEndDisplaying(cell, at: 1)
        #expect(binder.log.liveCount == 0)
        #expect(binder.log.violations.isEmpty)
    }
}

@Suite("Headless cell: draws what each change carries")
@MainActor
struct CanvasCellDrawingTests {
    @Test("each display change is drawn with the value it carries, even when the view-model has moved on since")
    func drawsTheChangesValue() {
        let url = URL(fileURLWithPath: "/takes/a.mov")
        let board = boardWithTake(url)
        let viewModel = CanvasCellViewModel()
        let cell = ViewModelCell(viewModel: viewModel, binder: nil)
        #expect(cell.redrawCount == 1, "the initial nil")
        // Both displays are stored before either is notified: a cell that re-read the view-model on the first
        // notification would draw the second display twice (the second time a no-op) and never the first.
        withObservationTransaction {
            viewModel.bind(to: board.canvases[0], on: board)
            viewModel.bind(to: board.canvases[1], on: board)
        }
        #expect(viewModel.display?.picture == .addButton)
        #expect(cell.redrawCount == 3, "nil, then the cover, then the add button")
        #expect(cell.shownDisplay?.picture == .addButton)
    }
}

/// A cell owning its view-model and drawing it, as a screen that forwards the display hooks itself writes one (the
/// adapter keeps such a holder per cell).
@MainActor
final class ViewModelCell: CanvasCellViewModelHolder {
    let viewModel: CanvasCellViewModel?
    private weak var binder: DisplayLifecycleBinder?
    private(set) var shownDisplay: CanvasDisplay?
    private(set) var shownCover: CoverImage?
    /// How many display changes were drawn (the initial nil counts).
    private(set) var redrawCount = 0
    private var tokens: [ObservationToken] = []

    init(viewModel: CanvasCellViewModel, binder: DisplayLifecycleBinder?) {
        self.viewModel = viewModel
        self.binder = binder
        tokens = [
            viewModel.observeOnMainActor(\.display, options: [.initial, .new]) { [weak self] _, change in
                guard let self, let display = change.newValue else { return }
                shownDisplay = display
                redrawCount += 1
            },
            viewModel.observeOnMainActor(\.cover, options: [.initial, .new]) { [weak self] _, change in
                if let cover = change.newValue { self?.shownCover = cover }
            },
        ]
    }

    /// Forwards to the binder, or unbinds without one.
    func prepareForReuse() {
        if let binder { binder.prepareForReuse(self) } else { viewModel?.unbind() }
    }
}

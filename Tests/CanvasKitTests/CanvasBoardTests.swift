import CanvasTestSupport
import Foundation
import Locking
import Observing
import TestSupport
import Testing

@testable import CanvasKit

@Suite("Observable board")
struct CanvasBoardTests {
    /// The models, the canvas list and `isRecording` mirror `board.state`.
    static func mirrors(_ board: CanvasBoard) -> Bool {
        board.canvases.map(\.snapshot) == board.state.canvases && board.isRecording == board.state.isRecording
            && board.state.indices.allSatisfy { board.model(for: board.state.id(at: $0)) === board.canvases[$0] }
    }

    @Test("A tap notifies at most the two canvases involved, the same number on 9 and 1,000 canvases")
    func tapNotificationsIndependentOfSize() throws {
        var perSize: [Int: [Int]] = [:]
        for size in [9, 1_000] {
            let board = CanvasBoard(canvasCount: size)
            let recorder = BoardRecorder()
            recorder.watch(board)
            var counts: [Int] = []
            for index in [3, 5, 5, 2, 8, 0] {
                recorder.reset()
                #expect(board.send(.tap(index)).isAccepted)
                let entries = recorder.entries
                #expect(Set(entries.compactMap(\.canvas)).count <= 2)
                #expect(entries.allSatisfy { $0.canvas != nil })
                counts.append(entries.count)
            }
            perSize[size] = counts
            #expect(Self.mirrors(board))
        }
        // attach: 2 (isSelected, status); move: 4; detach: 2.
        #expect(perSize[9] == [2, 4, 2, 2, 4, 4])
        #expect(perSize[9] == perSize[1_000])
    }

    @Test("Every notification is a real change, and every change notifies once")
    func onlyChangedPropertiesNotify() {
        for seed in 0..<30 as Range<UInt64> {
            var generator = EventGenerator(seed: seed)
            let board = CanvasBoard(canvasCount: 4)
            let recorder = BoardRecorder()
            recorder.watch(board)
            for event in generator.sequence(length: 60, start: board.state) {
                let before = board.canvases.map(\.snapshot)
                let wasRecording = board.isRecording
                recorder.reset()
                let reaction = board.send(event)
                let entries = recorder.entries
                if case .add = event, reaction.isAccepted, let added = board.canvases.last { recorder.watch(added) }
                guard reaction.isAccepted else {
                    #expect(entries.isEmpty, "rejected \(event) notified \(entries)")
                    continue
                }
                // Expected: one notification per property whose value changed, on models present before and after.
                var expected = 0
                for old in before {
                    guard let model = board.model(for: old.id) else { continue }
                    expected +=
                        (old.status != model.status ? 1 : 0) + (old.isSelected != model.isSelected ? 1 : 0)
                        + (old.videoURL != model.videoURL ? 1 : 0)
                }
                expected += wasRecording != board.isRecording ? 1 : 0
                expected += board.canvases.count != before.count ? 1 : 0
                #expect(entries.count == expected, "seed \(seed) \(event): \(entries)")
                for entry in entries {
                    switch entry {
                    case .status(_, let old, let new): #expect(old != new)
                    case .selected(_, let old, let new): #expect(old != new)
                    case .videoURL(_, let old, let new): #expect(old != new)
                    case .recording(let old, let new): #expect(old != new)
                    case .canvases: break
                    }
                }
                #expect(Self.mirrors(board), "seed \(seed) after \(event)")
            }
        }
    }

    @Test("Rejected events change nothing and notify nothing")
    func rejectedEventsAreSilent() {
        let board = CanvasBoard(state: Boards.board("t..", selection: .init(index: 1, phase: .recording)))
        let recorder = BoardRecorder()
        recorder.watch(board)
        let before = board.state
        for event in [CanvasEvent.tap(0), .tap(9), .record, .delete(0), .add, .remove(2), .stop(Boards.take("0.mov"))] {
            #expect(board.send(event).rejection != nil)
        }
        #expect(board.send(.cancel).isAccepted)
        recorder.reset()
        for event in [CanvasEvent.cancel, .stop(Boards.take("x.mov")), .tap(-1), .delete(2), .remove(7)] {
            #expect(board.send(event).rejection != nil)
        }
        #expect(recorder.entries.isEmpty)
        #expect(board.state.canvases.map(\.videoURL) == before.canvases.map(\.videoURL))
        #expect(Self.mirrors(board))
    }

    @Test("add and remove deliver exact index sets and leave the other models alone")
    func collectionChanges() throws {
        let board = CanvasBoard(state: Boards.board("t.t.", selection: .init(index: 2, phase: .inPreview)))
        let recorder = BoardRecorder()
        recorder.watch(board)
        let previewed = board.model(at: 2)

        #expect(board.send(.add).effects == [.canvasesInserted(IndexSet(integer: 4))])
        #expect(recorder.entries == [.canvases(.insertion, IndexSet(integer: 4))])

        recorder.reset()
        #expect(
            board.send(.remove(0)).effects
                == [.takeRemoved(index: 0, urls: [Boards.take("0.mov")]), .canvasesRemoved(IndexSet(integer: 0))])
        #expect(recorder.entries == [.canvases(.removal, IndexSet(integer: 0))])
        #expect(board.model(at: 1) === previewed)
        #expect(previewed.status == .inPreview && previewed.isSelected)

        // Removing the previewing canvas detaches the preview; the removed model is not written.
        recorder.reset()
        #expect(board.send(.remove(1)).effects.first == .detachPreview(from: 1))
        #expect(recorder.entries == [.canvases(.removal, IndexSet(integer: 1))])
        #expect(board.state.selection == nil)
        #expect(board.canvases.count == 3)
        #expect(Self.mirrors(board))
    }

    @Test("Recording notifies the recording canvas and isRecording; stop sets the take")
    func recordingNotifications() throws {
        let board = CanvasBoard(state: Boards.board(".t", selection: .init(index: 0, phase: .inPreview)))
        let recorder = BoardRecorder()
        recorder.watch(board)
        let id = board.state.id(at: 0)
        board.send(.record)
        #expect(
            recorder.entries == [
                .status(id, old: .inPreview, new: .recording), .recording(old: false, new: true),
            ])
        #expect(board.display(at: 1).picture == .playback(Boards.take("1.mov")))
        recorder.reset()
        let url = Boards.take("new.mov")
        board.send(.stop(url))
        #expect(
            recorder.entries == [
                .status(id, old: .recording, new: .inPreview), .videoURL(id, old: .some(nil), new: .some(url)),
                .recording(old: true, new: false),
            ])
        #expect(board.model(at: 0).videoURL == url)
        #expect(board.display(at: 1).picture == .cover(Boards.take("1.mov")))
    }

    @Test("During a tap no observer ever sees two canvases holding the preview")
    func neverTwoPreviews() {
        let board = CanvasBoard(canvasCount: 5)
        let recorder = BoardRecorder()
        let models = board.canvases
        let violations = LockedValue(0)
        recorder.setProbe {
            let previewing = models.filter { $0.status != .noPreview }
            if previewing.count > 1 || previewing.contains(where: { !$0.isSelected }) {
                violations.withLock { $0 += 1 }
            }
        }
        recorder.watch(board)
        for index in [0, 3, 1, 1, 4, 2, 0, 0] { board.send(.tap(index)) }
        #expect(recorder.entries.count > 10)
        #expect(violations.withLock { $0 } == 0)
    }

    @Test("Events sent from a handler apply to the state at once and to the models in order")
    func reentrantEvents() throws {
        let board = CanvasBoard(canvasCount: 3)
        let first = board.model(at: 0)
        let reactions = LockedValue<[BoardOutcome]>([])
        // When canvas 0 gets the preview, a handler immediately moves it to canvas 2 and starts recording.
        let token = first.observe(\.status) { _, change in
            guard change.newValue == .inPreview, change.oldValue == .noPreview else { return }
            reactions.withLock { $0.append(board.send(.tap(2))) }
            reactions.withLock { $0.append(board.send(.record)) }
        }
        defer { token.invalidate() }
        let recorder = BoardRecorder()
        recorder.watch(board)
        #expect(board.send(.tap(0)).effects == [.attachPreview(to: 0)])
        #expect(
            reactions.withLock { $0 }.map(\.effects).map { $0.map(\.kind) } == [
                [.movePreview], [.startRecording],
            ])
        #expect(board.state.selection == .init(index: 2, phase: .recording))
        #expect(Self.mirrors(board))

        // The same notifications, in the same order, as sending the three events one after another.
        let sequential = CanvasBoard(canvasCount: 3)
        let reference = BoardRecorder()
        reference.watch(sequential)
        for event in [CanvasEvent.tap(0), .tap(2), .record] { sequential.send(event) }
        #expect(recorder.entries == reference.entries)
    }

    @Test("An event sent from a handler is in the models when send returns, and its observers are told after")
    func reentrantEventIsStoredAtOnce() {
        let board = CanvasBoard(canvasCount: 3)
        let first = board.model(at: 0)
        let third = board.model(at: 2)
        let seen = LockedValue<[String]>([])
        let token = first.observe(\.status) { _, change in
            guard change.newValue == .inPreview, change.oldValue == .noPreview else { return }
            board.send(.tap(2))
            // Stored at once, told later: the board keeps no writes of its own for later.
            seen.withLock { $0.append("after send: #2 \(third.status.rawValue), mirrors \(Self.mirrors(board))") }
        }
        defer { token.invalidate() }
        let thirdToken = third.observe(\.status) { _, change in
            seen.withLock { $0.append("#2 told \(change.newValue!.rawValue)") }
        }
        defer { thirdToken.invalidate() }
        board.send(.tap(0))
        #expect(
            seen.withLock { $0 } == ["after send: #2 inPreview, mirrors true", "#2 told inPreview"])
    }

    @Test("A removed model and a released board free their models")
    func lifetimes() {
        weak var removed: CanvasModel?
        weak var kept: CanvasModel?
        weak var weakBoard: CanvasBoard?
        do {
            let board = CanvasBoard(canvasCount: 3)
            weakBoard = board
            removed = board.model(at: 1)
            kept = board.model(at: 2)
            board.send(.remove(1))
            #expect(removed == nil)
            #expect(kept != nil)
        }
        #expect(weakBoard == nil)
        #expect(kept == nil)
    }

    @Test("Random sequences keep the models mirroring the state")
    func randomMirror() {
        for seed in 500..<540 as Range<UInt64> {
            var generator = EventGenerator(seed: seed)
            // A clock stopped at 0 and no lead: `record` starts its playback at host time 0, as the pure function's.
            let board = CanvasBoard(
                state: BoardState(canvasCount: Int(seed % 7) + 1), clock: StoppedClock(), playbackLead: 0)
            var state = board.state
            for event in generator.sequence(length: 100, start: board.state) {
                let expected = state.handle(event).outcome(next: state)
                #expect(board.send(event) == expected)
                #expect(board.state == state)
            }
            #expect(Self.mirrors(board), "seed \(seed)")
        }
    }

    @Test("Several threads sending at once leave the models mirroring the state")
    func concurrentSenders() async {
        let board = CanvasBoard(canvasCount: 6)
        let recorder = BoardRecorder()
        recorder.watch(board)
        await withTaskGroup(of: Int.self) { group in
            // 4 workers of 300 events in CI; `StressScale` (MULTICANVAS_STRESS_THREADS / _SECONDS) scales both.
            let end = ContinuousClock.now + .milliseconds(Int(StressScale.seconds * 1000))
            for worker in 0..<UInt64(StressScale.threads) {
                group.addTask {
                    var generator = EventGenerator(seed: 900 + worker)
                    generator.maxCount = 6
                    var accepted = 0
                    repeat {
                        for event in generator.sequence(length: 300, start: BoardState(canvasCount: 6)) {
                            if case .add = event { continue }  // keep the recorder's set of models fixed
                            if case .remove = event { continue }
                            if board.send(event).isAccepted { accepted += 1 }
                        }
                    } while ContinuousClock.now < end
                    return accepted
                }
            }
            var total = 0
            for await accepted in group { total += accepted }
            #expect(total > 0)
        }
        #expect(Self.mirrors(board))
        // Replaying the notifications in order on a copy of the starting values gives the final models.
        var selected: [CanvasID: Bool] = [:]
        var status: [CanvasID: CanvasStatus] = [:]
        for entry in recorder.entries {
            switch entry {
            case .selected(let id, _, let new?): selected[id] = new
            case .status(let id, _, let new?): status[id] = new
            default: break
            }
        }
        for model in board.canvases {
            #expect((selected[model.id] ?? false) == model.isSelected)
            #expect((status[model.id] ?? .noPreview) == model.status)
        }
    }
}

/// A host clock that always reads 0.
private struct StoppedClock: HostClock {
    func now() -> HostTime { .zero }
}

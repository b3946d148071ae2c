import CanvasTestSupport
import Foundation
import Testing

@testable import CanvasKit

/// The four product requirements, each checked on every state of boards of 1 to 4 canvases.
@Suite("Product requirements")
struct ProductRequirementTests {
    static let allStates = (1...4).flatMap(Boards.allStates(count:))

    @Test("A finished take shows its cover when its canvas is not selected")
    func finishedTakeShowsItsCoverWhenNotSelected() throws {
        // The path a user takes: preview, record, stop, move on.
        var board = BoardState(canvasCount: 3)
        _ = board.handle(.tap(0))
        _ = board.handle(.record)
        _ = board.handle(.stop(Boards.take("a.mov")))
        #expect(board.display(at: 0).picture == .livePreview)
        _ = board.handle(.tap(1))
        #expect(board.display(at: 0).picture == .cover(Boards.take("a.mov")))
        _ = board.handle(.tap(1))
        #expect(board.display(at: 0).picture == .cover(Boards.take("a.mov")))

        for state in Self.allStates where !state.isRecording {
            for index in state.indices where !state[index].isSelected {
                if let take = state.videoURL(at: index) {
                    #expect(state.display(at: index).picture == .cover(take), "\(state)")
                }
            }
        }
    }

    @Test("The previewed canvas is always ready to record")
    func previewedCanvasIsAlwaysReadyToRecord() throws {
        for state in Self.allStates {
            guard let selection = state.selection else { continue }
            #expect(state[selection.index].status != .noPreview)
            if selection.phase == .inPreview {
                let outcome = BoardState.transition(from: state, on: .record)
                #expect(outcome.effects.map(\.kind) == [.startRecording], "\(state)")
                if case .startRecording(let index, _, _)? = outcome.effects.first { #expect(index == selection.index) }
            }
        }
        // Every way out of recording leaves the canvas previewing, ready to record again.
        let recording = Boards.board("t..", selection: .init(index: 1, phase: .recording))
        for event in [CanvasEvent.stop(Boards.take("new.mov")), .cancel] {
            guard case .accepted(let next, _, _) = BoardState.transition(from: recording, on: event) else {
                Issue.record("\(event) rejected")
                continue
            }
            #expect(next.selection == .init(index: 1, phase: .inPreview))
            #expect(BoardState.transition(from: next, on: .record).rejection == nil)
        }
    }

    @Test("Switching canvases moves the preview without touching any other canvas")
    func switchingCanvasesMovesThePreviewWithoutTouchingOtherCanvases() throws {
        for state in Self.allStates {
            guard let selection = state.selection, selection.phase == .inPreview else { continue }
            for target in state.indices where target != selection.index {
                guard case .accepted(let next, let effects, _) = BoardState.transition(from: state, on: .tap(target))
                else {
                    Issue.record("tap \(target) rejected on \(state)")
                    continue
                }
                #expect(effects == [.movePreview(from: selection.index, to: target)])
                for index in state.indices where index != selection.index && index != target {
                    #expect(next[index] == state[index])
                    #expect(next.display(at: index) == state.display(at: index))
                }
                #expect(next.display(at: target).picture == .livePreview)
                #expect(next[selection.index].status == .noPreview)
            }
        }
    }

    @Test("A canvas with no take that is not previewing shows the add button")
    func canvasWithNoTakeNotPreviewingShowsAddButton() throws {
        for state in Self.allStates {
            for index in state.indices where state.videoURL(at: index) == nil && state[index].status == .noPreview {
                #expect(state.display(at: index).picture == .addButton)
                #expect(!state.display(at: index).isHighlighted)
            }
        }
    }
}

@Suite("What a canvas shows")
struct CanvasDisplayTests {
    @Test("Display follows the rules table for every status, take and board recording flag")
    func derivation() {
        let take = Boards.take("a.mov")
        let segments = [TakeSegment(url: take, duration: 2)]
        for boardIsRecording in [false, true] {
            for shown in [segments, []] {
                let preview = CanvasDisplay(
                    status: .inPreview, segments: shown, isUndoArmed: false, boardIsRecording: boardIsRecording)
                #expect(preview.picture == .livePreview)
                let recording = CanvasDisplay(
                    status: .recording, segments: shown, isUndoArmed: false, boardIsRecording: boardIsRecording)
                #expect(recording.picture == .recording)
            }
            let empty = CanvasDisplay(status: .noPreview, segments: [], isUndoArmed: false, boardIsRecording: false)
            #expect(empty == CanvasDisplay(picture: .addButton))
        }
        let cover = CanvasDisplay(status: .noPreview, segments: segments, isUndoArmed: false, boardIsRecording: false)
        #expect(cover.picture == .cover(take))
        let playback = CanvasDisplay(status: .noPreview, segments: segments, isUndoArmed: false, boardIsRecording: true)
        #expect(playback.picture == .playback(take))
    }

    @Test("The display says how many segments and how long the take is, and whether its undo is armed")
    func takeSummary() {
        let segments = [
            TakeSegment(url: Boards.take("a.mov"), duration: 1.5), TakeSegment(url: Boards.take("b.mov"), duration: 2),
        ]
        let display = CanvasDisplay(status: .noPreview, segments: segments, isUndoArmed: true, boardIsRecording: false)
        #expect(display.take == CanvasDisplay.Take(segmentCount: 2, length: 3.5, isUndoArmed: true))
        #expect(display.description == "cover a.mov (2 segments, 3.5s, delete the last segment?)")
        let one = CanvasDisplay(
            status: .inPreview, segments: [segments[0]], isUndoArmed: false, boardIsRecording: false)
        #expect(one.take == CanvasDisplay.Take(segmentCount: 1, length: 1.5, isUndoArmed: false))
        #expect(one.description == "livePreview (1 segment, 1.5s)")
        // Each part of the summary makes a different display, so a cell that redraws on a change redraws.
        #expect(
            display
                != CanvasDisplay(
                    picture: display.picture, take: .init(segmentCount: 2, length: 3.5, isUndoArmed: false)))
        #expect(
            display
                != CanvasDisplay(picture: display.picture, take: .init(segmentCount: 1, length: 3.5, isUndoArmed: true))
        )
        #expect(
            display
                != CanvasDisplay(picture: display.picture, take: .init(segmentCount: 2, length: 3, isUndoArmed: true)))
    }

    @Test("Names are the canvas-sim JSON vocabulary and only previews are highlighted")
    func namesAndHighlight() {
        let take = Boards.take("a.mov")
        let pictures: [CanvasDisplay.Picture] = [
            .livePreview, .recording, .cover(take), .playback(take), .addButton, .missing(take),
        ]
        let all = pictures.map { CanvasDisplay(picture: $0) }
        #expect(all.map(\.name) == ["livePreview", "recording", "cover", "playback", "addButton", "missing"])
        #expect(all.map(\.isHighlighted) == [true, true, false, false, false, false])
        #expect(Set(all.map(\.kind)) == Set(CanvasDisplay.Kind.allCases))
        #expect(CanvasDisplay(picture: .cover(take)).description == "cover a.mov")
        #expect(CanvasStatus.allCases.map(\.rawValue) == ["noPreview", "inPreview", "recording"])
    }

    @Test("Other canvases play their takes while one records, and show covers again after")
    func playbackWhileRecording() {
        var board = Boards.board("t.t")
        _ = board.handle(.tap(1))
        _ = board.handle(.record)
        #expect(
            board.displays.map(\.picture) == [
                .playback(Boards.take("0.mov")), .recording, .playback(Boards.take("2.mov")),
            ])
        _ = board.handle(.stop(Boards.take("new.mov")))
        #expect(
            board.displays.map(\.picture) == [.cover(Boards.take("0.mov")), .livePreview, .cover(Boards.take("2.mov"))])
    }
}

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
        #expect(board.display(at: 0) == .livePreview)
        _ = board.handle(.tap(1))
        #expect(board.display(at: 0) == .cover(Boards.take("a.mov")))
        _ = board.handle(.tap(1))
        #expect(board.display(at: 0) == .cover(Boards.take("a.mov")))

        for state in Self.allStates where !state.isRecording {
            for index in state.indices where !state[index].isSelected {
                if let take = state.videoURL(at: index) {
                    #expect(state.display(at: index) == .cover(take), "\(state)")
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
                #expect(next.display(at: target) == .livePreview)
                #expect(next[selection.index].status == .noPreview)
            }
        }
    }

    @Test("A canvas with no take that is not previewing shows the add button")
    func canvasWithNoTakeNotPreviewingShowsAddButton() throws {
        for state in Self.allStates {
            for index in state.indices where state.videoURL(at: index) == nil && state[index].status == .noPreview {
                #expect(state.display(at: index) == .addButton)
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
        for boardIsRecording in [false, true] {
            #expect(
                CanvasDisplay(status: .inPreview, videoURL: take, boardIsRecording: boardIsRecording) == .livePreview)
            #expect(
                CanvasDisplay(status: .inPreview, videoURL: nil, boardIsRecording: boardIsRecording) == .livePreview)
            #expect(CanvasDisplay(status: .recording, videoURL: take, boardIsRecording: boardIsRecording) == .recording)
            #expect(CanvasDisplay(status: .noPreview, videoURL: nil, boardIsRecording: boardIsRecording) == .addButton)
        }
        #expect(CanvasDisplay(status: .noPreview, videoURL: take, boardIsRecording: false) == .cover(take))
        #expect(CanvasDisplay(status: .noPreview, videoURL: take, boardIsRecording: true) == .playback(take))
    }

    @Test("Names are the canvas-sim JSON vocabulary and only previews are highlighted")
    func namesAndHighlight() {
        let take = Boards.take("a.mov")
        let all: [CanvasDisplay] = [.livePreview, .recording, .cover(take), .playback(take), .addButton]
        #expect(all.map(\.name) == ["livePreview", "recording", "cover", "playback", "addButton"])
        #expect(all.map(\.isHighlighted) == [true, true, false, false, false])
        #expect(Set(all.map(\.kind)) == Set(CanvasDisplay.Kind.allCases))
        #expect(CanvasDisplay.cover(take).description == "cover a.mov")
        #expect(CanvasStatus.allCases.map(\.rawValue) == ["noPreview", "inPreview", "recording"])
    }

    @Test("Other canvases play their takes while one records, and show covers again after")
    func playbackWhileRecording() {
        var board = Boards.board("t.t")
        _ = board.handle(.tap(1))
        _ = board.handle(.record)
        #expect(board.displays == [.playback(Boards.take("0.mov")), .recording, .playback(Boards.take("2.mov"))])
        _ = board.handle(.stop(Boards.take("new.mov")))
        #expect(board.displays == [.cover(Boards.take("0.mov")), .livePreview, .cover(Boards.take("2.mov"))])
    }
}

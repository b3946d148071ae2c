import CanvasTestSupport
import Foundation
import Testing

@testable import CanvasKit

/// One test per row of the rules table (Docs/CanvasKit.md), with the exact next state and effects.
@Suite("Transition rules")
struct TransitionRuleTests {
    private func accepted(_ state: BoardState, _ event: CanvasEvent) throws -> (BoardState, [CanvasEffect]) {
        guard case .accepted(let next, let effects, _) = BoardState.transition(from: state, on: event) else {
            throw Failure(
                "\(event) was rejected: \(String(describing: BoardState.transition(from: state, on: event).rejection))")
        }
        return (next, effects)
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    @Test("none selected, tap i: i selected inPreview, attach preview")
    func tapSelects() throws {
        let (next, effects) = try accepted(Boards.board("..."), .tap(2))
        #expect(next.selection == .init(index: 2, phase: .inPreview))
        #expect(next[2].isSelected && next[2].status == .inPreview)
        #expect(effects == [.attachPreview(to: 2)])
    }

    @Test("s inPreview, tap s: deselected, detach preview")
    func tapSelectedDeselects() throws {
        let (next, effects) = try accepted(Boards.board(".t", selection: .init(index: 1, phase: .inPreview)), .tap(1))
        #expect(next.selection == nil)
        #expect(next.display(at: 1).picture == .cover(Boards.take("1.mov")))
        #expect(effects == [.detachPreview(from: 1)])
    }

    @Test("s inPreview, tap j: preview moves s -> j")
    func tapOtherMoves() throws {
        let (next, effects) = try accepted(Boards.board("...", selection: .init(index: 0, phase: .inPreview)), .tap(2))
        #expect(next.selection == .init(index: 2, phase: .inPreview))
        #expect(next[0].status == .noPreview && !next[0].isSelected)
        #expect(effects == [.movePreview(from: 0, to: 2)])
    }

    @Test("s recording, tap any: rejected, locked")
    func tapWhileRecording() {
        let board = Boards.board("..", selection: .init(index: 0, phase: .recording))
        for index in board.indices {
            #expect(
                BoardState.transition(from: board, on: .tap(index))
                    == .rejected(.lockedWhileRecording(recordingIndex: 0)))
        }
    }

    @Test("s inPreview, record: recording, start recording")
    func record() throws {
        let (next, effects) = try accepted(Boards.board("..", selection: .init(index: 1, phase: .inPreview)), .record)
        #expect(next.selection == .init(index: 1, phase: .recording))
        #expect(
            effects == [
                .startRecording(
                    into: 1, playback: SyncedPlayback(hostTime: .zero, takes: []), settings: RecordingSettings())
            ])
    }

    @Test("none selected, record: rejected, nothing to record")
    func recordWithoutPreview() {
        #expect(BoardState.transition(from: Boards.board(".."), on: .record) == .rejected(.nothingToRecord))
    }

    @Test("s recording, stop(url): inPreview, take finished, old take replaced, cover wanted")
    func stopReplaces() throws {
        let board = Boards.board("tt", selection: .init(index: 1, phase: .recording))
        let url = Boards.take("new.mov")
        let (next, effects) = try accepted(board, .stop(url))
        #expect(next.selection == .init(index: 1, phase: .inPreview))
        #expect(next.videoURL(at: 1) == url)
        #expect(next.videoURL(at: 0) == Boards.take("0.mov"))
        #expect(
            effects == [
                .takeFinished(index: 1, url: url), .takeReplaced(index: 1, oldURLs: [Boards.take("1.mov")]),
                .coverWanted(index: 1, url: url),
            ])
    }

    @Test("s recording with no take, stop(url): no replacement reported")
    func stopFirstTake() throws {
        let url = Boards.take("new.mov")
        let (_, effects) = try accepted(Boards.board(".", selection: .init(index: 0, phase: .recording)), .stop(url))
        #expect(effects == [.takeFinished(index: 0, url: url), .coverWanted(index: 0, url: url)])
    }

    @Test("stop into the canvas's own file does not report it replaced")
    func stopSameFile() throws {
        let own = URL(fileURLWithPath: "/takes/0.mov")  // same file, spelled without a base URL
        let (next, effects) = try accepted(Boards.board("t", selection: .init(index: 0, phase: .recording)), .stop(own))
        #expect(effects == [.takeFinished(index: 0, url: own), .coverWanted(index: 0, url: own)])
        #expect(next.videoURL(at: 0) == own)
    }

    @Test("a file is the same file however its URL spells it: relative to a base, with dot segments, percent-encoded")
    func sameFileSpellings() throws {
        let folder = URL(fileURLWithPath: "/takes/", isDirectory: true)
        let spellings = [
            URL(fileURLWithPath: "/takes/0.mov"), URL(fileURLWithPath: "sub/../0.mov", relativeTo: folder),
            URL(string: "file:///takes/0.mov")!, URL(string: "0.mov", relativeTo: folder)!,
        ]
        let recording = Boards.board("t.", selection: .init(index: 1, phase: .recording))
        for url in spellings {
            #expect(BoardState.transition(from: recording, on: .stop(url)).rejection == .takeInUse(url: url, index: 0))
        }
        let spaced = try BoardState(takes: [URL(fileURLWithPath: "take 2.mov", relativeTo: folder), nil])
        let other = URL(fileURLWithPath: "/takes/take 2.mov")
        let onOne = try #require(BoardState.transition(from: spaced, on: .tap(1)).next)
        let started = try #require(BoardState.transition(from: onOne, on: .record).next)
        #expect(BoardState.transition(from: started, on: .stop(other)).rejection == .takeInUse(url: other, index: 0))
    }

    @Test("s recording, cancel: inPreview, take unchanged, take discarded")
    func cancel() throws {
        let board = Boards.board("t", selection: .init(index: 0, phase: .recording))
        let (next, effects) = try accepted(board, .cancel)
        #expect(next.selection == .init(index: 0, phase: .inPreview))
        #expect(next.videoURL(at: 0) == Boards.take("0.mov"))
        #expect(effects == [.takeDiscarded(index: 0)])
    }

    @Test("not recording, delete i: take removed")
    func delete() throws {
        for selection in [nil, BoardState.Selection(index: 1, phase: .inPreview)] {
            let (next, effects) = try accepted(Boards.board(".t", selection: selection), .delete(1))
            #expect(next.videoURL(at: 1) == nil)
            #expect(next.selection == selection)
            #expect(effects == [.takeRemoved(index: 1, urls: [Boards.take("1.mov")])])
        }
    }

    @Test("not recording, add: canvas appended with a new identity, inserted index set")
    func add() throws {
        let board = Boards.board("..", selection: .init(index: 0, phase: .inPreview))
        let (next, effects) = try accepted(board, .add)
        #expect(next.count == 3)
        #expect(effects == [.canvasesInserted(IndexSet(integer: 2))])
        #expect(Set(next.indices.map(next.id(at:))).count == 3)
        #expect(next[2].status == .noPreview && next.videoURL(at: 2) == nil)
        // Identities are never reused, even after a removal.
        let (shrunk, _) = try accepted(next, .remove(2))
        let (regrown, _) = try accepted(shrunk, .add)
        #expect(regrown.id(at: 2) != next.id(at: 2))
    }

    @Test("not recording, remove i: later indexes shift, the preview stays on its canvas")
    func removeBeforeSelection() throws {
        let board = Boards.board("t..", selection: .init(index: 2, phase: .inPreview))
        let previewed = board.id(at: 2)
        let (next, effects) = try accepted(board, .remove(0))
        #expect(next.selection == .init(index: 1, phase: .inPreview))
        #expect(next.id(at: 1) == previewed)
        #expect(
            effects == [.takeRemoved(index: 0, urls: [Boards.take("0.mov")]), .canvasesRemoved(IndexSet(integer: 0))])
    }

    @Test("remove the previewing canvas: preview detached, then take removed, then the collection change")
    func removeSelection() throws {
        let board = Boards.board(".t.", selection: .init(index: 1, phase: .inPreview))
        let (next, effects) = try accepted(board, .remove(1))
        #expect(next.selection == nil)
        #expect(next.count == 2)
        #expect(
            effects == [
                .detachPreview(from: 1), .takeRemoved(index: 1, urls: [Boards.take("1.mov")]),
                .canvasesRemoved(IndexSet(integer: 1)),
            ])
    }
}

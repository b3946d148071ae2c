import CanvasTestSupport
import Foundation
import Testing

@testable import CanvasKit

/// Bad input is rejected with a reason and changes nothing.
@Suite("Rejections")
struct RejectionTests {
    static let cases: [(String, BoardState, CanvasEvent, CanvasRejection)] = [
        ("tap past the end", Boards.board("..."), .tap(3), .indexOutOfRange(index: 3, count: 3)),
        ("negative tap", Boards.board("..."), .tap(-1), .indexOutOfRange(index: -1, count: 3)),
        ("delete out of range", Boards.board("t"), .delete(7), .indexOutOfRange(index: 7, count: 1)),
        ("remove out of range", Boards.board("tt"), .remove(2), .indexOutOfRange(index: 2, count: 2)),
        (
            "out of range while recording", Boards.board("..", selection: .init(index: 0, phase: .recording)), .tap(5),
            .indexOutOfRange(index: 5, count: 2)
        ),
        (
            "stop with nothing recording", Boards.board("..", selection: .init(index: 0, phase: .inPreview)),
            .stop(Boards.take("x.mov")), .nothingRecording
        ),
        ("cancel with nothing recording", Boards.board(".."), .cancel, .nothingRecording),
        ("record with nothing previewing", Boards.board("t."), .record, .nothingToRecord),
        (
            "record twice", Boards.board("..", selection: .init(index: 1, phase: .recording)), .record,
            .alreadyRecording(index: 1)
        ),
        (
            "tap while recording", Boards.board("..", selection: .init(index: 1, phase: .recording)), .tap(0),
            .lockedWhileRecording(recordingIndex: 1)
        ),
        (
            "remove while recording", Boards.board("..", selection: .init(index: 1, phase: .recording)), .remove(0),
            .lockedWhileRecording(recordingIndex: 1)
        ),
        (
            "add while recording", Boards.board(".", selection: .init(index: 0, phase: .recording)), .add,
            .lockedWhileRecording(recordingIndex: 0)
        ),
        (
            "delete while recording", Boards.board("tt", selection: .init(index: 1, phase: .recording)), .delete(0),
            .lockedWhileRecording(recordingIndex: 1)
        ),
        ("delete without a take", Boards.board("t."), .delete(1), .noTake(index: 1)),
        ("remove the last canvas", Boards.board("t"), .remove(0), .lastCanvas),
        (
            "stop into another canvas's take", Boards.board("t.", selection: .init(index: 1, phase: .recording)),
            .stop(Boards.take("0.mov")), .takeInUse(url: Boards.take("0.mov"), index: 0)
        ),
    ]

    @Test("Each bad event is rejected with its reason and leaves the board as it was", arguments: 0..<cases.count)
    func rejected(caseIndex: Int) {
        let (name, board, event, reason) = Self.cases[caseIndex]
        #expect(BoardState.transition(from: board, on: event) == .rejected(reason), "\(name)")
        var copy = board
        #expect(copy.handle(event) == .rejected(reason), "\(name)")
        #expect(copy == board, "\(name)")
    }

    @Test("Reasons read as one line that starts with the kind of rejection")
    func descriptions() {
        #expect(
            CanvasRejection.lockedWhileRecording(recordingIndex: 2).description
                == "locked while recording: canvas 2 is recording")
        #expect(
            CanvasRejection.indexOutOfRange(index: 9, count: 4).description
                == "index out of range: canvas 9 does not exist (the board has 4 canvases)")
        #expect(CanvasRejection.nothingToRecord.description == "nothing to record: no canvas is previewing")
        #expect(CanvasRejection.nothingRecording.description == "nothing recording: no canvas is recording")
        for (_, _, _, reason) in Self.cases {
            #expect(!reason.description.contains("\n"))
            #expect(reason.description.contains(":"))
        }
    }
}

import CanvasKit
import CanvasTestSupport
import Foundation
import Testing

/// The recorder's answers as board events: started, failed to start, cut short (ended as stop or as cancel).
@Suite("The recorder's answers: started, failed to start, cut short")
struct RecorderAnswerRuleTests {
    let recording = try! BoardState(
        takes: [Boards.take("j.mov"), Boards.take("s.mov")], selection: .init(index: 1, phase: .recording))

    @Test("started changes nothing and tells the host the take is rolling; without a recording it is rejected")
    func started() {
        let time = HostTime(seconds: 12.5)
        guard
            case .accepted(let next, let effects, _) = BoardState.transition(
                from: recording, on: .recordingStarted(at: time))
        else {
            Issue.record("started was rejected")
            return
        }
        #expect(next == recording)
        #expect(effects == [.recordingStarted(index: 1, at: time)])
        let idle = BoardState(canvasCount: 2)
        #expect(BoardState.transition(from: idle, on: .recordingStarted(at: time)).rejection == .nothingRecording)
    }

    @Test("failed to start returns the canvas to inPreview with the reason, keeps its take, records nothing")
    func failed() {
        guard
            case .accepted(let next, let effects, _) = BoardState.transition(
                from: recording, on: .recordingFailed(.notAuthorized))
        else {
            Issue.record("failed was rejected")
            return
        }
        #expect(next.selection == .init(index: 1, phase: .inPreview))
        #expect(next.videoURL(at: 1) == Boards.take("s.mov"))
        #expect(effects == [.recordingFailed(index: 1, problem: .notAuthorized)])
    }

    @Test("cut short with a playable file ends as stop, with the start, and says so first")
    func cutShortAsStop() {
        let file = Boards.take("new.mov")
        let event = CanvasEvent.recordingCutShort(.call, file: file, start: 1.5)
        guard case .accepted(let next, let effects, _) = BoardState.transition(from: recording, on: event) else {
            Issue.record("cut short was rejected")
            return
        }
        #expect(next.selection == .init(index: 1, phase: .inPreview))
        #expect(next.videoURL(at: 1) == file)
        #expect(next.takeStart(at: 1) == 1.5)
        #expect(
            effects == [
                .recordingCutShort(index: 1, problem: .call, endedAs: .stop), .takeFinished(index: 1, url: file),
                .takeReplaced(index: 1, oldURLs: [Boards.take("s.mov")]), .coverWanted(index: 1, url: file),
            ])
    }

    @Test("cut short without a playable file (or with another canvas's file) ends as cancel, and says so first")
    func cutShortAsCancel() {
        for file in [nil, Boards.take("j.mov")] {
            let event = CanvasEvent.recordingCutShort(.cameraTaken, file: file)
            guard case .accepted(let next, let effects, _) = BoardState.transition(from: recording, on: event) else {
                Issue.record("cut short was rejected")
                return
            }
            #expect(next.selection == .init(index: 1, phase: .inPreview))
            #expect(next.videoURL(at: 1) == Boards.take("s.mov"), "the canvas keeps its take")
            #expect(
                effects == [
                    .recordingCutShort(index: 1, problem: .cameraTaken, endedAs: .cancel), .takeDiscarded(index: 1),
                ])
        }
    }

    @Test("each answer round-trips through the script language")
    func words() {
        #expect(CanvasEvent.recordingStarted(at: HostTime(seconds: 2)).description == "started 2.0")
        #expect(CanvasEvent.recordingFailed(.diskFull).description == "failed diskFull")
        #expect(CanvasEvent.recordingCutShort(.call, file: nil).description == "cut-short call")
    }
}

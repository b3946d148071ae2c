import CanvasKit
import Foundation
import Testing

/// The decisions the capture performer applies when a recording starts and ends: the movie output's audio connection
/// and maximum duration, a finish at that maximum, the segment's length, the soundtrack's start, and where a take of
/// several segments starts playing.
@Suite("Apple layer decisions: recorder setup, the maximum duration's finish, the soundtrack, segment queues")
struct RecorderSetupTests {
    let file = URL(fileURLWithPath: "/takes/new.mov")

    @Test("the microphone setting enables or disables the audio connection; the limit is rounded down, never to 0")
    func setup() {
        #expect(RecorderSetup(RecordingSettings(recordsSound: false)).enablesAudioConnection == false)
        #expect(RecorderSetup(RecordingSettings(recordsSound: true)).enablesAudioConnection == true)
        #expect(RecorderSetup(RecordingSettings()).maximumDurationValue == nil, "no limit: CMTime.invalid")
        let limited = RecorderSetup(RecordingSettings(maximumDuration: 2.5000009))
        #expect(limited.maximumDurationValue == 2_500_000 && RecorderSetup.timescale == 1_000_000)
        #expect(RecorderSetup(RecordingSettings(maximumDuration: 1e-9)).maximumDurationValue == 1)
        for nonsense in [0, -1, Double.nan, .infinity] {
            #expect(RecorderSetup(RecordingSettings(maximumDuration: nonsense)).maximumDurationValue == nil)
        }
    }

    @Test("the recorder stopping at the maximum duration ends the segment at the limit, which the board reports")
    func maximumDurationReached() throws {
        var state = BoardState(canvasCount: 1)
        state.maximumTakeLength = 3
        let board = CanvasBoard(state: state)
        board.send(.tap(0))
        let start = try #require(board.send(.record).effects.first { $0.recordingSettings != nil })
        let playback = try #require(start.recordingPlayback)
        #expect(start.recordingSettings?.maximumDuration == 3)
        var answers = RecorderAnswers()
        answers.recordingRequested(into: file, playback: playback, settings: try #require(start.recordingSettings))
        _ = answers.didStart(file: file, at: playback.hostTime)
        // The recorder stops on the last frame before the limit: the segment still ends at it.
        let finish = answers.didFinish(file: file, ending: .reachedMaximumDuration, playable: true, duration: 2.98)
        let event = try #require(finish.event)
        #expect(finish.file == .keep)
        let outcome = board.send(event)
        #expect(outcome.effects.first == .takeLimitReached(index: 0, length: 3))
        #expect(!board.send(.resume).isAccepted, "resume is held at the limit")
    }

    @Test("resume needs a frame of room under the maximum take length: a take stopped closer to it is at its limit")
    func resumeNeedsAFrame() throws {
        func resumed(after length: Double) -> BoardOutcome {
            var board = try! BoardState(
                segments: [[TakeSegment(url: file, duration: length)]], selection: .init(index: 0, phase: .inPreview))
            board.maximumTakeLength = 15
            return BoardState.transition(from: board, on: .resume)
        }
        // The app stopped a hundredth of a second before the limit: the recorder would stop at once.
        #expect(resumed(after: 14.99) == .rejected(.takeAtLimit(index: 0, length: 14.99)))
        #expect(resumed(after: 15 - 1.0 / 25) == .rejected(.takeAtLimit(index: 0, length: 15 - 1.0 / 25)))
        let room = try #require(resumed(after: 14.9).effects.first?.recordingSettings?.maximumDuration)
        #expect(abs(room - 0.1) < 1e-9)
    }

    @Test("a maximum-duration finish without a playable file, or after an interruption, is a cut short")
    func maximumDurationWithProblems() {
        let playback = SyncedPlayback(hostTime: HostTime(seconds: 10), takes: [])
        var answers = RecorderAnswers()
        answers.recordingRequested(into: file, playback: playback, settings: RecordingSettings(maximumDuration: 2))
        _ = answers.didStart(file: file, at: HostTime(seconds: 10))
        #expect(
            answers.didFinish(file: file, ending: .reachedMaximumDuration, playable: false)
                == .init(event: .recordingCutShort(.other, file: nil), file: .remove))
        answers.recordingRequested(into: file, playback: playback, settings: RecordingSettings(maximumDuration: 2))
        _ = answers.didStart(file: file, at: HostTime(seconds: 10))
        answers.interrupted(.call)
        #expect(
            answers.didFinish(file: file, ending: .reachedMaximumDuration, playable: true, duration: 1.9).event
                == .recordingCutShort(.call, file: file, start: 0, duration: 2))
        // A stop by the app is not raised to the limit.
        answers.recordingRequested(into: file, playback: playback, settings: RecordingSettings(maximumDuration: 2))
        #expect(
            answers.didFinish(file: file, ending: .stopped, playable: true, duration: 1.5).event
                == .stop(file, start: 0, duration: 1.5))
        answers.recordingRequested(into: file, playback: playback)
        #expect(
            answers.didFinish(file: file, ending: .problem(.diskFull), playable: false).event
                == .recordingFailed(.diskFull))
    }

    @Test("the segment's length is the finished file's duration, the recorder's own figure when that is unknown")
    func segmentDuration() {
        #expect(RecorderAnswers.segmentDuration(fileDuration: 2.034, recordedDuration: 2) == 2.034)
        for unknown in [nil, 0, -1, .nan, .infinity] as [Double?] {
            #expect(RecorderAnswers.segmentDuration(fileDuration: unknown, recordedDuration: 2) == 2)
        }
    }

    @Test(
        "the soundtrack starts on the timeline with the takes, late by the margin when they are, wrapped when it loops")
    func soundtrackStart() throws {
        let song = URL(fileURLWithPath: "/music/song.m4a")
        let take = SyncedPlayback.Take(index: 0, url: URL(fileURLWithPath: "/a.mov"), start: 0)
        var playback = SyncedPlayback(
            hostTime: HostTime(seconds: 10), takes: [take], position: 4,
            soundtrack: Soundtrack(url: song, start: 12, gain: 0.5))
        let early = try #require(
            playback.soundtrackPlayerStart(ready: HostTime(seconds: 9), deviceNow: 100, fileDuration: 60))
        #expect(early.itemTime == 16 && early.hostTime == HostTime(seconds: 10) && early.deviceTime == 101)
        #expect(early.volume == 0.5 && early.numberOfLoops == 0)
        // Late: as far into the file as the takes are into theirs.
        let late = try #require(
            playback.soundtrackPlayerStart(ready: HostTime(seconds: 11), deviceNow: 7, margin: 0.5, fileDuration: 60))
        let lateTake = try #require(playback.playerStarts(ready: HostTime(seconds: 11), margin: 0.5).first)
        #expect(late.hostTime == lateTake.hostTime && late.itemTime - 16 == lateTake.itemTime - 4)
        #expect(late.deviceTime == 7.5)
        // Ended, looping, loud, silent, none.
        #expect(playback.soundtrackPlayerStart(ready: HostTime(seconds: 9), deviceNow: 0, fileDuration: 16) == nil)
        playback.soundtrack = Soundtrack(url: song, start: 12, gain: 2, loops: true)
        let looped = try #require(
            playback.soundtrackPlayerStart(ready: HostTime(seconds: 9), deviceNow: 0, fileDuration: 10))
        #expect(looped.itemTime == 6 && looped.numberOfLoops == -1 && looped.volume == 1)
        #expect(playback.soundtrackPlayerStart(ready: HostTime(seconds: 9), deviceNow: 0, fileDuration: .nan) == nil)
        playback.soundtrack = nil
        #expect(playback.soundtrackPlayerStart(ready: HostTime(seconds: 9), deviceNow: 0, fileDuration: 10) == nil)
    }

    @Test("a soundtrack that starts after timeline 0 waits; a zero margin still starts after the device's now")
    func soundtrackLaterAndZeroMargin() throws {
        let playback = SyncedPlayback(
            hostTime: HostTime(seconds: 10), takes: [],
            soundtrack: Soundtrack(url: URL(fileURLWithPath: "/music/song.m4a"), start: -2))
        let later = try #require(
            playback.soundtrackPlayerStart(ready: HostTime(seconds: 9), deviceNow: 50, fileDuration: 30))
        #expect(later.itemTime == 0 && later.hostTime == HostTime(seconds: 12) && later.deviceTime == 53)
        let now = try #require(
            playback.soundtrackPlayerStart(ready: HostTime(seconds: 13), deviceNow: 50, margin: 0, fileDuration: 30))
        #expect(now.deviceTime > 50 && abs(now.itemTime - 1.01) < 1e-9)
    }

    @Test("a take of several segments starts in the segment its time falls in, queued from there")
    func segmentQueues() {
        let files = ["a1", "a2", "a3"].map { URL(fileURLWithPath: "/takes/\($0).mov") }
        let take = SyncedPlayback.Take(
            index: 1,
            segments: [
                TakeSegment(url: files[0], start: -1, duration: 2), TakeSegment(url: files[1], duration: 1.5),
                TakeSegment(url: files[2], duration: 3),
            ])
        #expect(take.segmentStart(at: 0.5) == (0, 0.5))
        #expect(take.segmentStart(at: 2) == (1, 0), "a join is the next segment's start")
        #expect(take.segmentStart(at: 3) == (1, 1))
        #expect(take.segmentStart(at: 9) == (2, 5.5), "past the end: in the last one")
        // Resumed at timeline 2.5: 3.5 s into the take, the second segment's end is 3.5: the third, at 0.
        let playback = SyncedPlayback(hostTime: HostTime(seconds: 10), takes: [take], position: 2.5)
        #expect(playback.queue(for: take) == (Array(files[2...]), 2))
        let start = playback.playerStarts(ready: HostTime(seconds: 9)).first
        #expect(start?.segment == 2 && start?.segmentTime == 0 && start?.itemTime == 3.5)
        // Late by 1.5 s: from the planned second segment (0.5 s in) to the third, 0.5 s in.
        let early = SyncedPlayback(hostTime: HostTime(seconds: 10), takes: [take], position: 1.5)
        #expect(early.queue(for: take) == (Array(files[1...]), 1))
        let late = early.playerStarts(ready: HostTime(seconds: 11.45), margin: 0.05).first
        #expect(late?.segment == 2 && abs((late?.segmentTime ?? 0) - 0.5) < 1e-9)
        // A take whose lengths are unknown plays from its first file, as one.
        let unknown = SyncedPlayback.Take(
            index: 0, segments: [TakeSegment(url: files[0]), TakeSegment(url: files[1])])
        #expect(unknown.segmentStart(at: 4) == (0, 4))
        #expect(
            SyncedPlayback(hostTime: .zero, takes: [unknown], position: 4).queue(for: unknown) == (
                Array(files[..<2]), 0
            ))
    }

    @Test("with no take to wait for, the players start at once, once; with takes, after their prerolls")
    func gateBegins() {
        var alone = PrerollGate(takes: [])
        #expect(alone.begin() == .startAll)
        #expect(alone.begin() == .none)
        var gate = PrerollGate(takes: [1])
        #expect(gate.begin() == .none)
        #expect(gate.statusChanged(1, to: .failed) == .startAll)
    }
}

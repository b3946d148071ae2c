import CanvasKit
import CanvasTestSupport
import Foundation
import TestSupport
import Testing

/// The decisions of the Apple layer, made here and tested on Linux: the capture session plan, the recorder's answers
/// as board events, when the synced players start, the cover cache.
@Suite("Apple layer decisions: capture plan, recorder answers, player starts, cover cache")
struct CaptureDecisionTests {
    @Test("the capture plan for every authorization and microphone setting")
    func plan() {
        for camera in CaptureAuthorization.allCases {
            for microphone in CaptureAuthorization.allCases {
                for wantsSound in [false, true] {
                    let plan = CapturePlan(camera: camera, microphone: microphone, wantsSound: wantsSound)
                    switch camera {
                    case .denied, .restricted:
                        #expect(plan.steps.isEmpty && plan.problem == .notAuthorized)
                    case .notDetermined:
                        #expect(plan.steps.first == .requestAccess(.camera) && plan.asksAccess)
                    case .authorized where wantsSound && microphone == .notDetermined:
                        #expect(plan.steps == [.requestAccess(.microphone)])
                    case .authorized:
                        let sound = wantsSound && microphone == .authorized
                        #expect(plan.recordsSound == sound && plan.problem == nil && !plan.asksAccess)
                        #expect(
                            plan.steps
                                == [.addInput(.camera)] + (sound ? [.addInput(.microphone)] : [])
                                + [.addMovieOutput, .startRunning])
                    }
                    // The microphone is never asked for when takes have no sound.
                    if !wantsSound { #expect(!plan.steps.contains(.requestAccess(.microphone))) }
                }
            }
        }
    }

    @Test("only the camera is required: a failed microphone input means takes without sound, not no recording")
    func onlyTheCameraIsRequired() {
        #expect(CaptureDevice.camera.isRequired)
        #expect(!CaptureDevice.microphone.isRequired)
        #expect(CaptureDevice.allCases.filter(\.isRequired) == [.camera])
    }

    @Test("configuring again adds only what the session lacks: a second preparation finds the camera already in it")
    func configurationGivenTheSession() {
        let plan = CapturePlan(camera: .authorized, microphone: .authorized, wantsSound: true)
        let everything: [CapturePlan.Step] = [
            .addInput(.camera), .addInput(.microphone), .addMovieOutput, .startRunning,
        ]
        #expect(plan.configurationSteps(given: .init()) == everything)
        // An earlier configuration that added the camera and stopped (its microphone was refused) is finished, not
        // repeated: adding the camera again would be refused and read as no camera.
        #expect(
            plan.configurationSteps(given: .init(inputs: [.camera]))
                == [.addInput(.microphone), .addMovieOutput, .startRunning])
        let configured = CapturePlan.SessionContents(
            inputs: [.camera, .microphone], hasMovieOutput: true, isRunning: true)
        #expect(plan.configurationSteps(given: configured).isEmpty)
        // The access requests come before configuring, never in it.
        let asking = CapturePlan(camera: .notDetermined, microphone: .notDetermined, wantsSound: true)
        #expect(asking.configurationSteps(given: .init()).isEmpty)
    }

    let file = URL(fileURLWithPath: "/takes/new.mov")
    let playback = SyncedPlayback(
        hostTime: HostTime(seconds: 100),
        takes: [.init(index: 0, url: URL(fileURLWithPath: "/takes/a.mov"), start: -1.5)])

    @Test("a clean finish is stop with the take's start from the first sample's host time, less the capture latency")
    func cleanFinish() {
        var answers = RecorderAnswers(captureLatency: 0.25)
        answers.recordingRequested(into: file, playback: playback)
        #expect(
            answers.didStart(file: file, at: HostTime(seconds: 102)) == .recordingStarted(at: HostTime(seconds: 102)))
        #expect(answers.didStart(file: file, at: HostTime(seconds: 103)) == nil, "a second start says nothing")
        let finish = answers.didFinish(file: file, problem: nil, playable: true)
        #expect(finish.event == .stop(file, start: 1.75) && finish.file == .keep)
        #expect(!answers.isRecording)
    }

    @Test("players preroll once ready and only once, a failed one counts as prerolled, and all start together once")
    func prerollGate() {
        var gate = PrerollGate(takes: [0, 2])
        #expect(gate.statusChanged(0, to: .unknown) == .none, "never before ready to play")
        #expect(gate.statusChanged(0, to: .readyToPlay) == .preroll)
        #expect(gate.statusChanged(0, to: .readyToPlay) == .none, "asked once")
        #expect(gate.statusChanged(1, to: .readyToPlay) == .none, "not a take")
        #expect(gate.prerollEnded(0) == .none, "take 2 has not prerolled")
        #expect(gate.statusChanged(2, to: .failed) == .startAll, "a failed player does not hold the others back")
        #expect(gate.prerollEnded(2) == .none, "started once")
        #expect(gate.prerollEnded(0) == .none)
    }

    @Test("a late start of a discarded take is not given to the next recording, whose own start counts")
    func lateStartOfADiscardedTake() {
        let first = URL(fileURLWithPath: "/takes/first.mov")
        var answers = RecorderAnswers()
        answers.recordingRequested(into: first, playback: playback)
        answers.discardRequested()
        answers.recordingRequested(into: file, playback: playback)
        #expect(answers.didStart(file: first, at: HostTime(seconds: 101)) == nil)
        #expect(
            answers.didStart(file: file, at: HostTime(seconds: 102)) == .recordingStarted(at: HostTime(seconds: 102)))
        #expect(answers.didFinish(file: file, problem: nil, playable: true).event == .stop(file, start: 2))
    }

    @Test("a finished segment carries its length to the board, which counts it against the maximum take length")
    func segmentLength() {
        var answers = RecorderAnswers()
        answers.recordingRequested(into: file, playback: playback)
        _ = answers.didStart(file: file, at: HostTime(seconds: 102))
        let event = answers.didFinish(file: file, problem: nil, playable: true, duration: 4.5).event
        #expect(event == .stop(file, start: 2, duration: 4.5))
        var board = try! BoardState(takes: [nil], selection: .init(index: 0, phase: .recording))
        board.maximumTakeLength = 4.5
        #expect(
            BoardState.transition(from: board, on: event!).effects.first == .takeLimitReached(index: 0, length: 4.5))
        // A length the recorder could not give counts as none.
        answers.recordingRequested(into: file, playback: playback)
        #expect(answers.didFinish(file: file, problem: nil, playable: true, duration: .nan).event == .stop(file))
    }

    @Test("the first sample's host time is the recorder's start callback less what it had recorded by then")
    func firstSampleTime() {
        let callback = HostTime(seconds: 50)
        #expect(RecorderAnswers.firstSampleTime(calledAt: callback, recordedDuration: 0.2) == HostTime(seconds: 49.8))
        for unknown in [0, -1, .nan, .infinity] {
            #expect(RecorderAnswers.firstSampleTime(calledAt: callback, recordedDuration: unknown) == callback)
        }
    }

    @Test("a call during the recording cuts it short: with a playable file as stop, without one as cancel")
    func cutShort() {
        for playable in [true, false] {
            var answers = RecorderAnswers()
            answers.recordingRequested(into: file, playback: playback)
            _ = answers.didStart(file: file, at: HostTime(seconds: 100.5))
            answers.interrupted(.call)
            answers.interrupted(.cameraTaken)
            let finish = answers.didFinish(file: file, problem: nil, playable: playable)
            let expected: CanvasEvent =
                playable ? .recordingCutShort(.call, file: file, start: 0.5) : .recordingCutShort(.call, file: nil)
            #expect(finish.event == expected)
            #expect(finish.file == (playable ? .keep : .remove))
        }
    }

    @Test("a recorder that never started fails to start, and its file is removed")
    func failedToStart() {
        var answers = RecorderAnswers()
        answers.recordingRequested(into: file, playback: playback)
        let finish = answers.didFinish(file: file, problem: .diskFull, playable: false)
        #expect(finish.event == .recordingFailed(.diskFull) && finish.file == .remove)
        var refused = RecorderAnswers()
        refused.recordingRequested(into: file, playback: playback)
        #expect(refused.couldNotStart(.notAuthorized) == .recordingFailed(.notAuthorized))
        #expect(refused.didFinish(file: file, problem: nil, playable: true).event == nil)
    }

    @Test("after the board discarded the take, the recorder's answers send nothing and the file is removed")
    func discarded() {
        var answers = RecorderAnswers()
        answers.recordingRequested(into: file, playback: playback)
        answers.discardRequested()
        #expect(answers.didStart(file: file, at: HostTime(seconds: 101)) == nil)
        #expect(answers.didFinish(file: file, problem: nil, playable: true) == .init(event: nil, file: .remove))
    }

    @Test("every answer the recorder gives is an event the recording board accepts")
    func answersAreAccepted() throws {
        let finishes: [(RecorderProblem?, Bool)] = [
            (nil, true), (.call, true), (.cameraTaken, false), (.diskFull, false),
        ]
        for (problem, playable) in finishes {
            let board = CanvasBoard(canvasCount: 2)
            board.send(.tap(1))
            let start = board.send(.record).effects.compactMap(\.recordingPlayback).first
            var answers = RecorderAnswers()
            answers.recordingRequested(into: file, playback: try #require(start))
            if let event = answers.didStart(file: file, at: HostTime(seconds: 3)) {
                #expect(board.send(event).isAccepted)
            }
            let event = try #require(answers.didFinish(file: file, problem: problem, playable: playable).event)
            #expect(board.send(event).isAccepted)
            #expect(!board.isRecording)
        }
    }

    @Test("players start together after preroll, on the board's timeline, late ones further into their takes")
    func playerStarts() {
        let playback = SyncedPlayback(
            hostTime: HostTime(seconds: 10),
            takes: [
                .init(index: 0, url: URL(fileURLWithPath: "/a.mov"), start: -2),
                .init(index: 2, url: URL(fileURLWithPath: "/b.mov"), start: 3),
            ])
        let early = playback.playerStarts(ready: HostTime(seconds: 9), margin: 0.05)
        #expect(early.map(\.itemTime) == [2, 0])
        #expect(early.map(\.hostTime) == [HostTime(seconds: 10), HostTime(seconds: 13)])
        let late = playback.playerStarts(ready: HostTime(seconds: 11), margin: 0.5)
        #expect(late[0].hostTime == HostTime(seconds: 11.5) && late[0].itemTime == 3.5)
        #expect(late[1].hostTime == HostTime(seconds: 13) && late[1].itemTime == 0)
        #expect(CanvasEffect.takeDiscarded(index: 0).endsRecording && !CanvasEffect.attachPreview(to: 0).endsRecording)
    }

    @Test("for a resumed take the players start where the timeline is then, not from timeline 0")
    func playerStartsOfAResume() {
        let playback = SyncedPlayback(
            hostTime: HostTime(seconds: 10),
            takes: [
                .init(index: 0, url: URL(fileURLWithPath: "/a.mov"), start: -2),
                .init(index: 2, url: URL(fileURLWithPath: "/b.mov"), start: 7),
            ],
            position: 4)
        let starts = playback.playerStarts(ready: HostTime(seconds: 9), margin: 0.05)
        #expect(starts.map(\.itemTime) == [6, 0])
        #expect(starts.map(\.hostTime) == [HostTime(seconds: 10), HostTime(seconds: 13)])
    }

    @Test("a take whose file was found missing gets no player: the others start as before")
    func missingTakeDoesNotPlay() {
        let missing = TakeSegment(url: URL(fileURLWithPath: "/gone.mov"), duration: 2, isMissing: true)
        let playback = SyncedPlayback(
            hostTime: HostTime(seconds: 10),
            takes: [
                .init(index: 0, url: URL(fileURLWithPath: "/a.mov"), start: -2),
                .init(index: 1, segments: [TakeSegment(url: URL(fileURLWithPath: "/b.mov"), duration: 1), missing]),
                .init(index: 2, url: URL(fileURLWithPath: "/c.mov"), start: 3),
            ])
        #expect(playback.playableTakes.map(\.index) == [0, 2])
        let starts = playback.playerStarts(ready: HostTime(seconds: 9), margin: 0.05)
        #expect(starts.map(\.index) == [0, 2])
        #expect(starts.map(\.itemTime) == [2, 0])
    }

    @Test("the cover cache keys by file state and size, and drops the least recently used over its limit")
    func coverCache() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("take.mov")
        try Data([1, 2, 3]).write(to: url)
        let small = PixelSize(width: 4, height: 4)
        #expect(
            CoverMemoryCache.Key(takeAt: folder.url.appendingPathComponent("missing.mov"), maximumSize: small) == nil)
        let key = try #require(CoverMemoryCache.Key(takeAt: url, maximumSize: small))
        let other = try #require(CoverMemoryCache.Key(takeAt: url, maximumSize: PixelSize(width: 8, height: 8)))
        let cover = FakeCoverProvider.image(for: url)
        let cache = CoverMemoryCache(byteLimit: cover.pixels.count * 2)
        cache.insert(cover, for: key)
        cache.insert(cover, for: other)
        #expect(cache.cover(for: key) == cover)
        try Data([1, 2, 3, 4]).write(to: url)
        let rewritten = try #require(CoverMemoryCache.Key(takeAt: url, maximumSize: small))
        #expect(rewritten != key && cache.cover(for: rewritten) == nil)
        cache.insert(cover, for: rewritten)
        #expect(cache.count == 2 && cache.cover(for: other) == nil, "the least recently used went first")
        #expect(cache.byteCount == cover.pixels.count * 2)
    }
}

import CanvasKit
import CanvasSimulation
import Foundation
import Testing

@Suite("One clock: takes on the board's timeline")
@MainActor
struct OneClockTests {
    /// On the virtual clock: `record` starts every other canvas's take at one host time (the clock's time plus the
    /// lead), each at its own place on the timeline, and the new take's start is where playback stood when the
    /// recorder's first sample was stamped, less the reported capture latency.
    @Test func recordingsLandOnTheTimeline() throws {
        let timing = SimulatedRecordingTiming(
            playbackLead: 0.1, recorderDelay: 0.25, captureLatency: 0.04, stepDuration: 1)
        let simulation = BoardSimulation(canvasCount: 3, timing: timing)
        let script = try CanvasScript(parsing: "tap 0; record; stop a.mov; tap 1; record; stop b.mov; tap 2; record")
        var steps: [SimulationStep] = []
        simulation.run(script) { steps.append($0) }
        let board = simulation.board.state
        #expect(abs(board.takeStart(at: 0)! - 0.21) < 1e-9)
        #expect(abs(board.takeStart(at: 1)! - 0.21) < 1e-9)
        #expect(board.takeStart(at: 2) == nil)

        // The first record plays nothing; the second plays canvas 0's take; the third plays both, together.
        let playbacks = steps.flatMap(\.effects).compactMap(\.recordingPlayback)
        #expect(playbacks.count == 3)
        #expect(playbacks[0].takes.isEmpty)
        #expect(playbacks[1].takes.map(\.index) == [0])
        #expect(playbacks[2].takes.map(\.index) == [0, 1])
        #expect(playbacks[2].takes.allSatisfy { abs($0.start - 0.21) < 1e-9 })
        // Step 8 (the third record) ran at virtual time 7 s: the takes start at 7.1 s.
        #expect(abs(playbacks[2].hostTime.seconds - 7.1) < 1e-9)
        for (playback, expected) in zip(playbacks, [1.1, 4.1, 7.1]) {
            #expect(abs(playback.hostTime.seconds - expected) < 1e-9)
        }
    }

    /// A take that began before the timeline's origin plays from inside its file at the common host time; one that
    /// begins after it waits.
    @Test func playerStarts() {
        let origin = HostTime(seconds: 10)
        let early = SyncedPlayback.Take(index: 0, url: URL(fileURLWithPath: "/a.mov"), start: -0.5)
        let late = SyncedPlayback.Take(index: 1, url: URL(fileURLWithPath: "/b.mov"), start: 0.25)
        #expect(early.playerStart(from: origin) == (0.5, origin))
        #expect(late.playerStart(from: origin) == (0, HostTime(seconds: 10.25)))
        let playback = SyncedPlayback(hostTime: origin, takes: [early, late])
        #expect(playback.takeStart(recordingBeganAt: HostTime(seconds: 11), captureLatency: 0.2) == 0.8)
    }

    /// A board's timeline is state: a later `stop` for another canvas keeps the first take's start; deleting a take
    /// drops its start; the plain `stop` (no sync) starts at 0.
    @Test func startsAreKeptPerCanvas() {
        let board = CanvasBoard(state: BoardState(canvasCount: 2), clock: VirtualClock(), playbackLead: 0)
        for event: CanvasEvent in [
            .tap(0), .record, .stop(URL(fileURLWithPath: "/a.mov"), start: -1.5), .tap(1), .record,
            .stop(URL(fileURLWithPath: "/b.mov")),
        ] {
            #expect(board.send(event).rejection == nil)
        }
        #expect(board.state.takeStart(at: 0) == -1.5)
        #expect(board.state.takeStart(at: 1) == 0)
        #expect(board.state.timelineTakes.map(\.start) == [-1.5, 0])
        board.send(.tap(1))
        board.send(.delete(0))
        #expect(board.state.takeStart(at: 0) == nil)
    }
}

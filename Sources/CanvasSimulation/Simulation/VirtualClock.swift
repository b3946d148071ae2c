import CanvasKit
import Locking

/// A host clock that moves only when told: the simulation's time, so that the board's one clock (the takes' starts on
/// its timeline, the host time a recording's playback starts at) is stepped and checked on any machine.
public final class VirtualClock: HostClock {
    private let time: LockedValue<HostTime>

    /// A clock reading `start`.
    public init(start: HostTime = .zero) {
        time = LockedValue(start)
    }

    /// The current virtual instant.
    public func now() -> HostTime {
        time.withLock { $0 }
    }

    /// Moves the clock `seconds` forward. - Precondition: `seconds >= 0` (a host clock never goes backwards).
    public func advance(by seconds: Double) {
        precondition(seconds >= 0, "a clock never goes backwards")
        time.withLock { $0 = $0 + seconds }
    }
}

/// How the simulated camera times a recording, on the simulation's ``VirtualClock``.
public struct SimulatedRecordingTiming: Sendable, Hashable {
    /// Seconds from a `record` event to the host time the playing takes start at (the board's playback lead).
    public var playbackLead: Double
    /// Seconds from the playback's start to the host time the recorder stamps its first sample with.
    public var recorderDelay: Double
    /// The capture latency the simulated camera reports: how long before its stamp the first sample was seen.
    public var captureLatency: Double
    /// Seconds the clock moves on after each step of a script.
    public var stepDuration: Double

    /// A recorder that starts with the playback and reports no latency (every take starts at timeline 0), a 0.1 s
    /// lead, one second per step.
    public init(
        playbackLead: Double = 0.1, recorderDelay: Double = 0, captureLatency: Double = 0, stepDuration: Double = 1
    ) {
        self.playbackLead = playbackLead
        self.recorderDelay = recorderDelay
        self.captureLatency = captureLatency
        self.stepDuration = stepDuration
    }
}

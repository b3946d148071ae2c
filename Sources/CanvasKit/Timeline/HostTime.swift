import Dispatch
import Foundation

/// An instant of the host's clock, in seconds: the clock `AVPlayer.setRate(_:time:atHostTime:)` and the capture
/// session's sample times use (`CMClockGetHostTimeClock()` on Apple platforms).
public struct HostTime: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Seconds since the clock's origin (for the system clock, an arbitrary instant before the process started).
    public var seconds: Double

    /// The instant `seconds` after the clock's origin.
    public init(seconds: Double) {
        self.seconds = seconds
    }

    /// The clock's origin.
    public static let zero = HostTime(seconds: 0)

    /// The instant `seconds` later.
    public static func + (time: HostTime, seconds: Double) -> HostTime {
        HostTime(seconds: time.seconds + seconds)
    }

    /// The seconds from `earlier` to `later`.
    public static func - (later: HostTime, earlier: HostTime) -> Double {
        later.seconds - earlier.seconds
    }

    /// Earlier first.
    public static func < (lhs: HostTime, rhs: HostTime) -> Bool { lhs.seconds < rhs.seconds }

    /// For example `12.500000s`.
    public var description: String { String(format: "%.6fs", seconds) }
}

/// Where a ``CanvasBoard`` reads the host time when a recording starts. An app uses ``SystemHostClock``; a simulation
/// or a test drives its own.
public protocol HostClock: Sendable {
    /// The current instant. Never goes backwards.
    func now() -> HostTime
}

/// The host's monotonic clock: `mach_absolute_time` on Apple platforms (the clock `CMClockGetHostTimeClock()`
/// reads), `CLOCK_MONOTONIC` on Linux.
public struct SystemHostClock: HostClock {
    /// The system clock.
    public init() {}

    /// The current instant, to the nanosecond.
    public func now() -> HostTime {
        HostTime(seconds: Double(DispatchTime.now().uptimeNanoseconds) / 1e9)
    }
}

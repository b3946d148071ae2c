// swift-format-ignore-file
// (Not formatted or linted: Apple's names and declarations as Apple spells them.)
// A check of our code against Apple's signatures, not CoreMedia: see ../README.md.
@_exported import Foundation

/// https://developer.apple.com/documentation/coremedia/cmtimevalue
public typealias CMTimeValue = Int64
/// https://developer.apple.com/documentation/coremedia/cmtimescale
public typealias CMTimeScale = Int32

/// https://developer.apple.com/documentation/coremedia/cmtime
public struct CMTime: Sendable, Equatable {
    public var value: CMTimeValue
    public var timescale: CMTimeScale
    /// https://developer.apple.com/documentation/coremedia/cmtime/init(value:timescale:)
    public init(value: CMTimeValue, timescale: CMTimeScale) {
        self.value = value
        self.timescale = timescale
    }
    /// https://developer.apple.com/documentation/coremedia/cmtime/1389151-init (CMTime(seconds:preferredTimescale:))
    public init(seconds: Double, preferredTimescale: Int32) {
        value = Int64(seconds * Double(preferredTimescale))
        timescale = preferredTimescale
    }
    /// https://developer.apple.com/documentation/coremedia/cmtime/zero
    public static let zero = CMTime(seconds: 0, preferredTimescale: 1)
    /// https://developer.apple.com/documentation/coremedia/cmtime/invalid
    public static let invalid = CMTime(value: 0, timescale: 0)
    /// https://developer.apple.com/documentation/coremedia/cmtime/seconds
    public var seconds: Double { Double(value) / Double(timescale) }
}

/// https://developer.apple.com/documentation/coremedia/cmclock
public final class CMClock {}

/// https://developer.apple.com/documentation/coremedia/cmclockgethosttimeclock()
public func CMClockGetHostTimeClock() -> CMClock { CMClock() }

/// https://developer.apple.com/documentation/coremedia/cmclockgettime(_:)
public func CMClockGetTime(_ clock: CMClock) -> CMTime { .zero }

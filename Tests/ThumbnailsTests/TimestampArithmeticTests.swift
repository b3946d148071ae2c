import Testing

@testable import MediaCore
@testable import Thumbnails

/// A damaged file can hold any 64-bit timestamps; turning them into seconds and messages must
/// never trap on an overflow (which would end the process, not fail one cover).
@Suite("Timestamp arithmetic on extreme values")
struct TimestampArithmeticTests {
    let picosecond = Rational(numerator: 1, denominator: 1_000_000_000_000)

    @Test("times are exact ratios: 176400 units of 1/90000 s are 1.96 s")
    func exactRatios() {
        let ninetyKilohertz = Rational(numerator: 1, denominator: 90_000)
        #expect(VideoReader.seconds(from: 1_026_000, to: 1_202_400, timeBase: ninetyKilohertz) == 1.96)
        #expect(VideoReader.seconds(from: 0, to: 49, timeBase: Rational(numerator: 1, denominator: 25)) == 1.96)
    }

    @Test(
        "seconds between any two timestamps, without overflow",
        arguments: [
            (Int64.min + 1, Int64.max), (Int64.max, Int64.min + 1), (Int64.max, 0), (0, Int64.max), (-5, 7),
        ] as [(Int64, Int64)])
    func secondsBetween(origin: Int64, timestamp: Int64) {
        let seconds = VideoReader.seconds(from: origin, to: timestamp, timeBase: Rational(numerator: 1, denominator: 1))
        #expect(seconds.isFinite)
        #expect((seconds > 0) == (timestamp > origin))
        if origin == -5 { #expect(seconds == 12) }
    }

    @Test("a start time in a tiny time base that does not fit in 64 bits gives no origin")
    func originOutOfRange() {
        #expect(VideoReader.timestamp(ofSeconds: 1e6, timeBase: picosecond) == 1_000_000_000_000_000_000)
        #expect(VideoReader.timestamp(ofSeconds: 1e7, timeBase: picosecond) == nil)
        #expect(VideoReader.timestamp(ofSeconds: -1e7, timeBase: picosecond) == nil)
        #expect(VideoReader.timestamp(ofSeconds: 2.5, timeBase: Rational(numerator: 1, denominator: 2)) == 5)
    }

    @Test(
        "times in messages are written whatever their size",
        arguments: [1.5, -1.5, -0.04, -1e18, 1e300, -.infinity, .nan] as [Double])
    func messageTimes(seconds: Double) {
        let text = CoverSession.format(seconds)
        #expect(!text.isEmpty)
        if seconds == 1.5 { #expect(text == "1.50") }
        if seconds == -1.5 { #expect(text == "-1.50") }
        if seconds == -0.04 { #expect(text == "-0.04") }
    }
}

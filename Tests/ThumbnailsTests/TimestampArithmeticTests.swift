import Testing

@testable import Thumbnails

/// A damaged file can hold any 64-bit timestamps; turning them into seconds and messages must
/// never trap on an overflow (which would end the process, not fail one cover).
@Suite("Timestamp arithmetic on extreme values")
struct TimestampArithmeticTests {
    @Test(
        "seconds between any two timestamps, without overflow",
        arguments: [
            (Int64.min + 1, Int64.max), (Int64.max, Int64.min + 1), (Int64.max, 0), (0, Int64.max), (-5, 7),
        ] as [(Int64, Int64)])
    func secondsBetween(origin: Int64, timestamp: Int64) {
        let seconds = VideoReader.seconds(from: origin, to: timestamp, timeBase: 1)
        #expect(seconds.isFinite)
        #expect((seconds > 0) == (timestamp > origin))
        if origin == -5 { #expect(seconds == 12) }
    }

    @Test("a start time in a tiny time base that does not fit in 64 bits gives no origin")
    func originOutOfRange() {
        #expect(VideoReader.timestamp(ofSeconds: 1e6, timeBase: 1e-12) == 1_000_000_000_000_000_000)
        #expect(VideoReader.timestamp(ofSeconds: 1e7, timeBase: 1e-12) == nil)
        #expect(VideoReader.timestamp(ofSeconds: -1e7, timeBase: 1e-12) == nil)
        #expect(VideoReader.timestamp(ofSeconds: 2.5, timeBase: 0.5) == 5)
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

import Foundation
import MediaCore

/// A platform the composed video is uploaded to: its published upload requirements as settings of the output.
///
/// A plan with a ``CompositionPlan/target`` is composed at 1080x1920, every take filling its tile (the platforms
/// crop what does not fill the 9:16 frame), at a frame rate within ``frameRateRange``, as H.264 High at the lowest
/// level its size and rate need (``H264Level``), with closed GOPs of at most half a second, two B-frames, a bit-rate
/// cap kept by the encoder's VBV, AAC-LC 48 kHz stereo at ``audioBitRate``, the index (`moov`) first and no edit
/// list; a composition longer than ``maximumDuration`` (or shorter than ``minimumDuration``) is refused before
/// anything is written. The constant rate factor and preset still choose the quality within the cap.
/// Docs/Composition.md names the published source of every figure.
public enum PublishingTarget: String, Sendable, Hashable, CaseIterable {
    /// TikTok.
    case tiktok
    /// Instagram Reels.
    case reels
    /// YouTube Shorts.
    case shorts

    /// The platform's name, for messages: `TikTok`, `Instagram Reels`, `YouTube Shorts`.
    public var platformName: String {
        switch self {
        case .tiktok: "TikTok"
        case .reels: "Instagram Reels"
        case .shorts: "YouTube Shorts"
        }
    }

    /// The output's size: 1080x1920 (9:16), what all three recommend.
    public var size: PixelSize { PixelSize(width: 1080, height: 1920) }

    /// The largest file the platform takes, in bytes: Reels 300,000,000 (300 MB); nil for TikTok and Shorts, whose
    /// limits no output within their length and bit-rate caps can reach.
    public var maximumFileSize: Int? { self == .reels ? 300_000_000 : nil }

    /// The frame rates accepted, in frames per second: 23-60.
    public var frameRateRange: ClosedRange<Double> { 23...60 }

    /// The longest output, in seconds: TikTok 180 (what every account may post), Reels 900, Shorts 180.
    public var maximumDuration: Double {
        switch self {
        case .tiktok, .shorts: 180
        case .reels: 900
        }
    }

    /// The shortest output, in seconds: Reels 3, the others 0 (none published).
    public var minimumDuration: Double { self == .reels ? 3 : 0 }

    /// The video's bit-rate cap at `frameRate`, in bits per second: TikTok and Reels 25 Mbit/s; Shorts 8 Mbit/s up
    /// to 30 frames a second, 12 Mbit/s above.
    ///
    /// No second of the video holds more bits than this: libx264's VBV runs at three quarters of the cap with a
    /// buffer of a quarter of it, and the bits of any stretch of `t` seconds are at most the buffer plus `t` times
    /// the VBV's rate.
    public func maximumVideoBitRate(at frameRate: FrameRate) -> Int {
        switch self {
        case .tiktok, .reels: 25_000_000
        case .shorts: frameRate.framesPerSecond <= 30 ? 8_000_000 : 12_000_000
        }
    }

    /// The video's bit-rate cap for an output of `duration` seconds at `frameRate`, in bits per second:
    /// ``maximumVideoBitRate(at:)``, lowered when a file that long at that cap could exceed ``maximumFileSize``.
    ///
    /// The video of an output of `duration` seconds holds at most `cap * (1 + 3 * duration) / 4` bits (the VBV's
    /// buffer plus `duration` times its rate), and the sound at most its bit rate plus a tenth. The cap is the
    /// highest at which those, with 2% of the file left for its index, fit in the file-size limit: a Reel of more
    /// than about two minutes (124 s) is capped below 25 Mbit/s, one of 15 minutes at 3.3 Mbit/s.
    public func maximumVideoBitRate(at frameRate: FrameRate, duration: Double) -> Int {
        let cap = maximumVideoBitRate(at: frameRate)
        guard let fileSize = maximumFileSize, duration > 0 else { return cap }
        let videoBits = Double(fileSize) * 8 * 0.98 - Double(audioBitRate) * 1.1 * duration
        let fitting = videoBits * 4 / (1 + 3 * duration)
        return fitting >= Double(cap) ? cap : max(0, Int(fitting))
    }

    /// Frames from one keyframe to the next at `frameRate`: half the frame rate, rounded down (15 at 30 frames a
    /// second, 14 at 29.97), so no GOP lasts more than half a second.
    public func keyframeInterval(at frameRate: FrameRate) -> Int { max(1, frameRate.frames / (2 * frameRate.seconds)) }

    /// B-frames in a row: 2.
    public var bFrames: Int { 2 }

    /// The AAC-LC stereo stream's bit rate: Shorts 384 kbit/s, TikTok and Reels 128 kbit/s.
    public var audioBitRate: Int { self == .shorts ? 384_000 : 128_000 }

    /// The lowest H.264 level that holds the target's size at `frameRate` with its VBV; nil when none does (never
    /// for a rate within ``frameRateRange``).
    public func level(at frameRate: FrameRate) -> H264Level? {
        let (rate, buffer) = vbv(at: frameRate)
        return H264Level.lowest(for: size, frameRate: frameRate, bitRate: rate, bufferSize: buffer)
    }

    /// The VBV's rate (bits per second) and buffer (bits): three quarters and a quarter of `cap`, so any second
    /// holds at most the cap.
    private func vbv(cap: Int) -> (rate: Int, buffer: Int) { (cap / 4 * 3, cap / 4) }

    /// The VBV at `frameRate` for an output of any length within the file-size limit's reach.
    private func vbv(at frameRate: FrameRate) -> (rate: Int, buffer: Int) {
        vbv(cap: maximumVideoBitRate(at: frameRate))
    }

    /// What libx264 is held to at `frameRate` for an output of `duration` seconds: the level of the published cap
    /// (a lower rate never needs a higher level) and the VBV of ``maximumVideoBitRate(at:duration:)``.
    func constraints(at frameRate: FrameRate, duration: Double) -> H264Constraints? {
        guard let level = level(at: frameRate) else { return nil }
        let (rate, buffer) = vbv(cap: maximumVideoBitRate(at: frameRate, duration: duration))
        return H264Constraints(
            level: level.idc, keyframeInterval: keyframeInterval(at: frameRate), bFrames: bFrames,
            maximumBitRate: rate, bufferSize: buffer)
    }

    /// Why an output of `duration` seconds cannot be published to the target, or nil when it can.
    func durationProblem(_ duration: Double) -> String? {
        if duration > maximumDuration {
            return "the output would last \(Self.seconds(duration, .up)) s: refused, \(platformName) takes at most "
                + "\(Self.seconds(maximumDuration, .down)) s (target \(rawValue))"
        }
        if duration < minimumDuration {
            return "the output would last \(Self.seconds(duration, .down)) s: refused, \(platformName) takes at least "
                + "\(Self.seconds(minimumDuration, .up)) s (target \(rawValue))"
        }
        return nil
    }

    /// `duration` to a hundredth of a second, rounded by `rule`, without trailing zeros: `180.01`, `2.5`, `3`.
    private static func seconds(_ duration: Double, _ rule: FloatingPointRoundingRule) -> String {
        var text = String(format: "%.2f", (duration * 100).rounded(rule) / 100)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}

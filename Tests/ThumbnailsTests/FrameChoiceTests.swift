import Foundation
import TestSupport
import Testing
import Thumbnails

@Suite("Covers: which frame, and its time")
struct FrameChoiceTests {
    let generator = CoverGenerator()
    /// The fixtures run at 25 frames per second.
    let frame = 0.04

    func cover(_ name: String, _ options: CoverOptions = CoverOptions()) throws -> CoverImage {
        try generator.makeCover(for: Fixtures.url(name), options: options)
    }

    /// Mean luma-like brightness of the whole cover, 0-255.
    func brightness(_ image: CoverImage) -> Double {
        let mean = image.meanColor()
        return (mean.red + mean.green + mean.blue) / 3
    }

    @Test("the default cover is the first frame, a keyframe at 0 s")
    func firstFrame() throws {
        let image = try cover("h264.mp4")
        #expect(image.actualTime == 0)
        #expect(image.isKeyframe)
    }

    @Test(
        "keyframe mode returns a keyframe at or before the requested time",
        arguments: [0.5, 1.0, 1.5, 1.96]
    )
    func keyframeMode(_ time: Double) throws {
        for name in ["h264.mp4", "hevc.mp4", "vp9.webm", "mpeg4.avi"] {
            let image = try cover(name, CoverOptions(time: .seconds(time)))
            #expect(image.isKeyframe, "\(name) at \(time)")
            #expect(image.actualTime <= time + 1e-6, "\(name) at \(time): \(image.actualTime)")
            // The fixtures have a keyframe every second (-g 25).
            #expect(image.actualTime > time - 1 - 1e-6, "\(name) at \(time): \(image.actualTime)")
        }
    }

    @Test("exact mode returns the frame shown at the requested time", arguments: [0.3, 0.5, 1.0, 1.3, 1.77, 1.96])
    func exact(_ time: Double) throws {
        for name in ["h264.mp4", "hevc.mp4", "vp9.webm", "mpeg4.avi", "offset-timestamps.ts"] {
            let image = try cover(name, CoverOptions(time: .seconds(time)).exact())
            #expect(image.actualTime <= time + 1e-6, "\(name) at \(time): \(image.actualTime)")
            #expect(image.actualTime > time - frame - 1e-6, "\(name) at \(time): \(image.actualTime)")
        }
    }

    @Test("exact frames differ from frame to frame and agree within one frame")
    func exactPixels() throws {
        let a = try cover("h264.mp4", CoverOptions(time: .seconds(1.28)).exact())
        let b = try cover("h264.mp4", CoverOptions(time: .seconds(1.30)).exact())
        let c = try cover("h264.mp4", CoverOptions(time: .seconds(1.32)).exact())
        #expect(a.actualTime == b.actualTime)
        #expect(a.pixels == b.pixels)
        #expect(c.actualTime > a.actualTime)
        #expect(c.pixels != a.pixels)
    }

    @Test("a tolerance accepts the keyframe before the time when it is close enough")
    func tolerance() throws {
        let near = try cover("h264.mp4", CoverOptions(time: .seconds(1.2), toleranceBefore: 0.3, toleranceAfter: 0))
        #expect(near.actualTime == 1.0)
        let far = try cover("h264.mp4", CoverOptions(time: .seconds(1.5), toleranceBefore: 0.1, toleranceAfter: 0))
        #expect(far.actualTime >= 1.4 - 1e-6 && far.actualTime <= 1.5 + 1e-6)
    }

    @Test("a tolerance after the time takes the next keyframe when it is close enough, alone")
    func toleranceAfter() throws {
        let next = try cover("h264.mp4", CoverOptions(time: .seconds(0.9), toleranceBefore: 0, toleranceAfter: 0.2))
        #expect(next.actualTime == 1.0)
        #expect(next.isKeyframe)
        let both = try cover("h264.mp4", CoverOptions(time: .seconds(0.95), toleranceBefore: 0.1, toleranceAfter: 0.1))
        #expect(both.actualTime == 1.0)
        // No keyframe within 0.2 s after 0.5 s: the frame shown at 0.5 s.
        let none = try cover("h264.mp4", CoverOptions(time: .seconds(0.5), toleranceBefore: 0, toleranceAfter: 0.2))
        #expect(abs(none.actualTime - 0.48) < 1e-6)
        // The keyframe before wins when both are within the tolerances.
        let before = try cover("h264.mp4", CoverOptions(time: .seconds(1.05), toleranceBefore: 0.1, toleranceAfter: 1))
        #expect(before.actualTime == 1.0)
    }

    @Test("a fraction of the duration places the time")
    func fraction() throws {
        let middle = try cover("h264.mp4", CoverOptions(time: .fraction(0.5)).exact())
        #expect(middle.actualTime == 1.0)
        let end = try cover("h264.mp4", CoverOptions(time: .fraction(1)))
        #expect(abs(end.actualTime - 1.96) < 1e-6)
    }

    @Test(
        "a time past the end gives the last frame and its time, in every mode, without warnings",
        arguments: [false, true]
    )
    func pastTheEnd(_ exact: Bool) throws {
        for name in ["h264.mp4", "hevc.mp4", "vp9.webm", "mpeg4.avi", "offset-timestamps.ts"] {
            var options = CoverOptions(time: .seconds(60))
            if exact { options = options.exact() }
            let image = try cover(name, options)
            #expect(abs(image.actualTime - 1.96) < 1e-3, "\(name): \(image.actualTime)")
            #expect(image.warnings.isEmpty, "\(name): \(image.warnings)")
        }
    }

    @Test("a one-frame file gives its frame (the decoder is flushed) at any time")
    func oneFrame() throws {
        for options in [CoverOptions(), CoverOptions(time: .seconds(5)), CoverOptions(time: .seconds(0.02)).exact()] {
            let image = try cover("one-frame.mp4", options)
            #expect(image.actualTime == 0)
            #expect(Bars.isRed(image.meanColor(x: 5, y: 100, width: 40, height: 60)))
        }
    }

    @Test("timestamps that start at 11.4 s count from the first frame, which is a picture, not black")
    func offsetTimestamps() throws {
        let first = try cover("offset-timestamps.ts")
        #expect(first.actualTime == 0)
        #expect(brightness(first) > 60)
        #expect(Bars.isRed(first.meanColor(x: 5, y: 100, width: 40, height: 60)))
        let second = try cover("offset-timestamps.ts", CoverOptions(time: .seconds(1)).exact())
        #expect(abs(second.actualTime - 1) < 1e-6)
    }

    @Test("10-bit HEVC has the same colours as 8-bit HEVC: no green tint")
    func tenBit() throws {
        let deep = try cover("hevc-10bit.mp4")
        let plain = try cover("hevc.mp4")
        let deepMean = deep.meanColor()
        let plainMean = plain.meanColor()
        #expect(abs(deepMean.red - plainMean.red) < 6, "\(deepMean) vs \(plainMean)")
        #expect(abs(deepMean.green - plainMean.green) < 6, "\(deepMean) vs \(plainMean)")
        #expect(abs(deepMean.blue - plainMean.blue) < 6, "\(deepMean) vs \(plainMean)")
        // Not green: green does not dominate the picture.
        #expect(deepMean.green < deepMean.red + 40 && deepMean.green < deepMean.blue + 40)
        #expect(Bars.isRed(deep.meanColor(x: 5, y: 100, width: 40, height: 60)))
    }

    @Test("the black first second: black without skipping, the pattern with it, at one extra keyframe")
    func blackFirstSecond() throws {
        let plain = try cover("black-first-second.mp4")
        #expect(plain.actualTime == 0)
        #expect(brightness(plain) < 20)

        let skipped = try cover("black-first-second.mp4", CoverOptions(skipsDarkFrames: true))
        #expect(skipped.actualTime >= 1 - 1e-6 && skipped.actualTime < 2)
        #expect(skipped.isKeyframe)
        #expect(brightness(skipped) > 60)
        #expect(Bars.isRed(skipped.meanColor(x: 5, y: 100, width: 40, height: 60)))

        // A frame that is already a picture is kept as it is.
        let kept = try cover("h264.mp4", CoverOptions(skipsDarkFrames: true))
        #expect(kept.actualTime == 0)
        // A limit of zero keeps the dark frame.
        let limited = try cover("black-first-second.mp4", CoverOptions(skipsDarkFrames: true, darkFrameLimit: 0))
        #expect(limited.actualTime == 0)
    }

    @Test("an MP4 cut short with its index intact: early frames decode, later times give the last one with a warning")
    func truncatedIndexAtFront() throws {
        let first = try cover("truncated-index-at-front.mp4")
        #expect(first.actualTime == 0)
        #expect(first.warnings.isEmpty)
        #expect(Bars.isRed(first.meanColor(x: 5, y: 100, width: 40, height: 60)))

        // Keyframe mode: the last keyframe there is (keyframe mode never returns another frame).
        let keyframe = try cover("truncated-index-at-front.mp4", CoverOptions(time: .seconds(2.5)))
        #expect(keyframe.actualTime == 1 && keyframe.isKeyframe, "\(keyframe.actualTime)")
        #expect(
            keyframe.warnings.contains { $0.contains("ends at 1.52 s") && $0.contains("3.00 s") },
            "\(keyframe.warnings)")
        for options in [CoverOptions(time: .seconds(2.5)).exact()] {
            let late = try cover("truncated-index-at-front.mp4", options)
            #expect(late.actualTime > 1 && late.actualTime < 2, "\(late.actualTime)")
            #expect(late.warnings.contains { $0.contains("ends at") && $0.contains("3.00 s") }, "\(late.warnings)")
            #expect(Bars.isRed(late.meanColor(x: 5, y: 100, width: 40, height: 60)))
        }
    }
}

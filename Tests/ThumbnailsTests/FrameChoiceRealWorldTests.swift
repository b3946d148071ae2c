import Foundation
import Locking
import TestSupport
import Testing

@testable import MediaCore
@testable import Thumbnails

/// What ffprobe says a file's frames are: the oracle for which frame a time means.
struct ProbedFrames {
    struct Frame {
        /// Seconds from the first frame (FFmpeg's best-effort timestamps), as `actualTime` counts.
        var time: Double
        var isKeyframe: Bool
    }

    /// In presentation order.
    var frames: [Frame]

    /// Runs `ffprobe -show_frames` on `url`. Frames without a timestamp (raw elementary streams)
    /// are placed at `rate` frames per second, as the ffmpeg CLI places them.
    init(_ url: URL, rate: Double = 25) throws {
        let listing = try Self.run([
            "-v", "error", "-select_streams", "v:0", "-show_frames", "-show_entries",
            "frame=key_frame,best_effort_timestamp_time", "-of", "csv=p=0", url.path,
        ])
        var frames: [Frame] = []
        for line in listing.split(separator: "\n") {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count >= 2, let key = Int(fields[0]) else { continue }  // side-data lines
            let time = Double(fields[1]) ?? Double(frames.count) / rate
            frames.append(Frame(time: time, isKeyframe: key == 1))
        }
        // Times count from the first frame, as covers count them.
        let origin = frames.map(\.time).min() ?? 0
        self.frames = frames.map { Frame(time: $0.time - origin, isKeyframe: $0.isKeyframe) }.sorted {
            $0.time < $1.time
        }
    }

    /// The last keyframe shown at or before `time`.
    func keyframe(atOrBefore time: Double) -> Frame? {
        frames.last { $0.isKeyframe && $0.time <= time + 1e-6 }
    }

    /// The first keyframe shown at or after `time`.
    func keyframe(atOrAfter time: Double) -> Frame? {
        frames.first { $0.isKeyframe && $0.time >= time - 1e-6 }
    }

    /// The frame whose display interval holds `time`: the last one starting at or before it.
    func frame(shownAt time: Double) -> Frame? {
        frames.last { $0.time <= time + 1e-6 }
    }

    static func run(_ arguments: [String], tool: String = "ffprobe") throws -> String {
        String(decoding: try runData(arguments, tool: tool), as: UTF8.self)
    }

    static func runData(_ arguments: [String], tool: String) throws -> Data {
        try runTool(tool, arguments).output
    }

    /// The ffmpeg CLI's picture of the frame at `time` (absolute seconds, as its select filter
    /// counts), as packed RGB at the natural size.
    static func ffmpegPicture(_ url: URL, at time: Double) throws -> [UInt8] {
        let data = try runData(
            [
                "-v", "error", "-nostdin", "-i", url.path, "-vf", "select='gte(t,\(time - 1e-4))'", "-frames:v", "1",
                "-f", "rawvideo", "-pix_fmt", "rgb24", "-",
            ], tool: "ffmpeg")
        return [UInt8](data)
    }

    /// Peak signal-to-noise ratio of two pictures of the same size, in dB.
    static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        guard a.count == b.count, !a.isEmpty else { return 0 }
        var sum = 0.0
        for index in a.indices {
            let difference = Double(a[index]) - Double(b[index])
            sum += difference * difference
        }
        let mse = sum / Double(a.count)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }
}

@Suite("Covers: which frame on real-world shapes, against ffprobe's frame list")
struct FrameChoiceRealWorldTests {
    let generator = CoverGenerator()

    func cover(_ name: String, _ options: CoverOptions = CoverOptions()) throws -> CoverImage {
        try generator.makeCover(for: Corpus.url(name), options: options)
    }

    @Test("exact mode on variable-frame-rate MP4 with B-frames and no packet durations: the frame shown at the time")
    func variableFrameRate() throws {
        let url = try Corpus.url("frames-vfr-bframes.mp4")
        let probed = try ProbedFrames(url)
        for time in [0.03, 0.11, 0.5, 1.03, 1.5] {
            let image = try cover("frames-vfr-bframes.mp4", CoverOptions(time: .seconds(time)).exact())
            let expected = try #require(probed.frame(shownAt: time))
            #expect(abs(image.actualTime - expected.time) < 1e-6, "at \(time): \(image.actualTime)")
        }
        // The pixels are ffmpeg's frame, not the one before it (testsrc2 moves between them).
        let image = try cover("frames-vfr-bframes.mp4", CoverOptions(time: .seconds(0.11)).exact())
        let reference = try ProbedFrames.ffmpegPicture(url, at: 0.10)
        #expect(ProbedFrames.psnr(image.pixels, reference) > 30)
    }

    @Test(
        "skip-dark on MP4 and MOV with B-frames: the keyframe after the black second, at its own time",
        arguments: ["frames-bframes-dark.mp4", "frames-bframes-dark.mov"])
    func skipDarkWithBFrames(_ name: String) throws {
        let probed = try ProbedFrames(Corpus.url(name))
        let image = try cover(name, CoverOptions(skipsDarkFrames: true))
        let expected = try #require(probed.keyframe(atOrAfter: 0.5))
        #expect(image.isKeyframe)
        #expect(abs(image.actualTime - expected.time) < 1e-6, "\(image.actualTime) vs \(expected.time)")
    }

    @Test("keyframe mode on AVI with B-frames: the keyframe's time as FFmpeg places it, not 0")
    func aviWithBFrames() throws {
        let probed = try ProbedFrames(Corpus.url("frames-bframes.avi"))
        for time in [0.5, 1.5, 2.5] {
            let image = try cover("frames-bframes.avi", CoverOptions(time: .seconds(time)))
            let expected = try #require(probed.keyframe(atOrBefore: time))
            #expect(image.isKeyframe, "at \(time)")
            #expect(abs(image.actualTime - expected.time) < 1e-6, "at \(time): \(image.actualTime) vs \(expected.time)")
        }
    }

    @Test(
        "keyframe mode where seeks land early (MPEG-PS, MPEG-TS, ASF): the last keyframe at or before the time",
        arguments: ["frames-mpeg2.mpg", "frames-mpeg2.ts", "frames-wmv2.wmv"])
    func seeksThatLandEarly(_ name: String) throws {
        let probed = try ProbedFrames(Corpus.url(name))
        for time in [1.0, 2.0, 3.0, 4.5] {
            let image = try cover(name, CoverOptions(time: .seconds(time)))
            let expected = try #require(probed.keyframe(atOrBefore: time))
            #expect(image.isKeyframe, "\(name) at \(time)")
            #expect(abs(image.actualTime - expected.time) < 1e-6, "\(name) at \(time): \(image.actualTime)")
        }
    }

    @Test("keyframe mode on interlaced H.264 in MPEG-TS is always a keyframe, also after the last one")
    func interlacedTransportStream() throws {
        let probed = try ProbedFrames(Corpus.url("frames-interlaced-h264.ts"))
        for time in [0.5, 1.2, 1.9, 2.3] {
            let image = try cover("frames-interlaced-h264.ts", CoverOptions(time: .seconds(time)))
            let expected = try #require(probed.keyframe(atOrBefore: time))
            #expect(image.isKeyframe, "at \(time)")
            #expect(abs(image.actualTime - expected.time) < 1e-6, "at \(time): \(image.actualTime)")
        }
    }

    @Test(
        "raw elementary streams cannot seek: read from the start, the frame for any time, with a warning",
        arguments: ["frames-raw.h264", "frames-raw.hevc"])
    func rawStreams(_ name: String) async throws {
        let probed = try ProbedFrames(Corpus.url(name))
        let keyframe = try cover(name, CoverOptions(time: .seconds(1.5)))
        #expect(keyframe.isKeyframe)
        #expect(abs(keyframe.actualTime - (probed.keyframe(atOrBefore: 1.5)?.time ?? -1)) < 1e-6)
        #expect(keyframe.warnings.contains { $0.contains("cannot seek") }, "\(keyframe.warnings)")
        let exact = try cover(name, CoverOptions(time: .seconds(1.5)).exact())
        #expect(abs(exact.actualTime - (probed.frame(shownAt: 1.5)?.time ?? -1)) < 1e-6, "\(exact.actualTime)")
        let first = try cover(name)
        #expect(first.actualTime == 0 && first.warnings.isEmpty)
        // Several times from one opening: each one reads the stream again from its start.
        var times: [Double] = []
        let url = try Corpus.url(name)
        for try await image in generator.covers(for: url, at: [.seconds(2.5), .seconds(0.5), .fraction(0.5)]) {
            times.append(image.actualTime)
        }
        #expect(times == [2, 0, 1], "\(times)")
    }

    @Test(
        "a still picture or cover art gives its one picture for any time, with a warning",
        arguments: ["frames-still.jpg", "frames-still.png", "frames-cover-art.mp3"])
    func stills(_ name: String) throws {
        for options in [
            CoverOptions(time: .seconds(1.5)), CoverOptions(time: .seconds(1.5)).exact(),
            CoverOptions(time: .fraction(0.5)), CoverOptions(time: .seconds(1.5), skipsDarkFrames: true),
        ] {
            let image = try cover(name, options)
            #expect(image.actualTime == 0 && image.width == 320 && image.height == 180, "\(name) \(options.time)")
            #expect(Bars.isRed(image.meanColor(x: 5, y: 100, width: 40, height: 60)), "\(name)")
            #expect(!image.warnings.isEmpty, "\(name) \(options.time)")
        }
        let first = try cover(name)
        #expect(first.warnings.isEmpty, "\(first.warnings)")
    }

    @Test("Matroska written to a pipe has no duration: a fraction places the time in the estimated one")
    func noDuration() throws {
        let probed = try ProbedFrames(Corpus.url("frames-pipe.mkv"))
        let middle = try cover("frames-pipe.mkv", CoverOptions(time: .fraction(0.5)))
        #expect(abs(middle.actualTime - (probed.keyframe(atOrBefore: 1.5)?.time ?? -1)) < 1e-6, "\(middle.actualTime)")
        #expect(middle.warnings.contains { $0.contains("estimated") }, "\(middle.warnings)")
        let exact = try cover("frames-pipe.mkv", CoverOptions(time: .fraction(0.5)).exact())
        #expect(abs(exact.actualTime - (probed.frame(shownAt: 1.5)?.time ?? -1)) < 1e-6, "\(exact.actualTime)")
        let end = try cover("frames-pipe.mkv", CoverOptions(time: .fraction(1)))
        #expect(abs(end.actualTime - (probed.frames.last?.time ?? -1)) < 1e-6, "\(end.actualTime)")
    }

    /// Counts the generator's cancellation checks: one when the job starts, then one per packet read.
    final class CheckCounter: Sendable {
        let count = LockedValue(0)
        func observe() { count.withLock { $0 += 1 } }
        var value: Int { count.withLock { $0 } }
    }

    @Test(
        "the fast path stays fast: an MP4 cover in keyframe mode reads one packet, first frame or after a seek",
        arguments: [0.0, 1.2])
    func keyframeModeReadsOnePacketInMP4(_ time: Double) throws {
        let counter = CheckCounter()
        let generator = CoverGenerator(checkObserver: counter.observe)
        let image = try generator.makeCover(
            for: Corpus.url("baseline-h264.mp4"), options: CoverOptions(time: .seconds(time)))
        #expect(image.isKeyframe)
        #expect(counter.value == 2, "\(counter.value) checks: the start and one packet")
    }
}

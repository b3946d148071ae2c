import Composition
import Foundation
import Pixels
import TestSupport
import Testing

/// Takes of several segments against the ffmpeg command line joining the same files (`atrim` to each segment's video
/// length, then `concat`): pictures byte for byte in a lossless mode, a tone cut across segments without a dip at a
/// join, and a flash and a beep per segment where the join rule puts them.
@Suite("Segments against the ffmpeg CLI", .serialized)
struct SegmentOracleTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder(prefix: "CompositionSegments")
    }

    func file(_ name: String) -> URL { folder.url.appendingPathComponent(name) }

    /// A tone of 375 Hz (128 samples a period) and a moving picture, 3 s, cut at 1 s and 2 s into three MP4 segments
    /// (H.264 lossless, AAC with its priming and padding, edit lists): composed as one take, every frame equals the
    /// CLI's `concat` byte for byte (a dropped, repeated or shifted segment fails), and the tone's level, measured
    /// over each 256-sample window from 50 ms before to 50 ms after each join, stays within 10% of its steady level
    /// (a gap of even one AAC frame at a join fails).
    @Test func toneCutIntoSegmentsIsContinuous() async throws {
        let whole = file("whole.mkv")
        try FFmpegTool.run([
            "-f", "lavfi", "-i", "testsrc2=size=32x64:rate=30:duration=3", "-f", "lavfi", "-i",
            "sine=frequency=375:sample_rate=48000:duration=3", "-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p",
            "-c:a", "pcm_s16le", whole.path,
        ])
        let segments = try (0..<3).map { index in
            let segment = file("tone-\(index).mp4")
            try FFmpegTool.run([
                "-i", whole.path, "-ss", "\(index)", "-t", "1", "-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p",
                "-c:a", "aac", "-b:a", "192k", segment.path,
            ])
            return segment
        }
        var plan = CompositionPlan(
            size: PixelSize(width: 32, height: 64),
            takes: [.init(segments: segments, region: NormalizedRect(x: 0, y: 0, width: 1, height: 1))])
        plan.video.constantRateFactor = 0
        let ours = file("tone-ours.mp4")
        let result = try await Composer().compose(plan, to: ours)
        #expect(result.frameCount == 90)
        #expect(abs(result.duration - 3) < 1e-6)
        let reference = file("tone-ffmpeg.mp4")
        try FFmpegTool.run(
            segments.flatMap { ["-i", $0.path] } + [
                "-filter_complex",
                "[0:a]atrim=duration=1[a0];[1:a]atrim=duration=1[a1];[2:a]atrim=duration=1[a2];"
                    + "[0:v][a0][1:v][a1][2:v][a2]concat=n=3:v=1:a=1",
                "-c:v", "libx264", "-qp", "0", "-c:a", "aac", "-b:a", "192k", reference.path,
            ])
        let ourFrames = try FFmpegTool.frames(of: ours, width: 32, height: 64)
        let referenceFrames = try FFmpegTool.frames(of: reference, width: 32, height: 64)
        #expect(ourFrames.count == 90 && referenceFrames.count == 90)
        let differing = zip(ourFrames, referenceFrames).enumerated().filter { $0.element.0 != $0.element.1 }.map(
            \.offset)
        #expect(differing.isEmpty, "frames \(differing) differ from ffmpeg's concat")
        let samples = try FFmpegTool.samples(of: ours)
        #expect(samples.count / 2 >= 3 * 48_000 - 1024)
        let steady = windowLevels(samples, from: 0.3, to: 0.7)
        let level = steady.reduce(0, +) / Double(steady.count)
        // lavfi's sine has an amplitude of 0.125; mono in the centre, -3 dB a side: RMS 0.125 / 2.
        #expect(abs(level - 0.0625) < 0.003, "steady level \(level)")
        for join in [1.0, 2.0] {
            let levels = windowLevels(samples, from: join - 0.05, to: join + 0.05)
            let worst = levels.min() ?? 0
            #expect(worst > 0.9 * level && (levels.max() ?? 0) < 1.1 * level, "at \(join) s: \(levels)")
        }
    }

    /// Three segments of different lengths (0.5, 1 and 0.7 s), each with a flash and a beep recorded together at
    /// its own frames 5, 20 and 10, in a take starting 0.2 s into the output: each flash is at its segment's start
    /// plus its own time (output frames 11, 41 and 61), and each beep starts with its flash, within one frame.
    @Test func flashAndBeepOfEachSegmentWhereTheJoinRulePutsThem() async throws {
        let shapes = [(0.5, 5), (1.0, 20), (0.7, 10)]
        let segments = try shapes.enumerated().map { index, shape in
            let (length, flash) = shape
            let segment = file("flash-\(index).mp4")
            let beep = Double(flash) / 30
            try FFmpegTool.run([
                "-f", "lavfi", "-i",
                "color=black:size=32x32:rate=30:duration=\(length),drawbox=c=white:t=fill:enable='eq(n,\(flash))'",
                "-f", "lavfi", "-i",
                "aevalsrc=exprs='if(between(t,\(beep),\(beep + 0.1)),0.5*sin(2*PI*1000*t),0)':s=48000:d=\(length)",
                "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", segment.path,
            ])
            return segment
        }
        let other = file("other.mkv")
        try FFmpegTool.run([
            "-f", "lavfi", "-i", "color=gray:size=32x32:rate=30:duration=1", "-c:v", "libx264", other.path,
        ])
        let plan = CompositionPlan(
            size: PixelSize(width: 64, height: 32),
            takes: [
                .init(file: other, region: NormalizedRect(x: 0, y: 0, width: 0.5, height: 1)),
                .init(segments: segments, region: NormalizedRect(x: 0.5, y: 0, width: 0.5, height: 1), start: 0.2),
            ])
        let ours = file("flash-ours.mp4")
        let result = try await Composer().compose(plan, to: ours)
        #expect(abs(result.duration - 2.4) < 0.01, "\(result.duration)")
        let frames = try FFmpegTool.frames(of: ours, width: 64, height: 32)
        let brightness = frames.map { frame in (0..<32).map { Int(frame[$0 * 64 + 48]) }.reduce(0, +) / 32 }
        let flashes = brightness.indices.filter { brightness[$0] > 128 }
        #expect(flashes == [11, 41, 61], "flashes at frames \(flashes)")
        let samples = try FFmpegTool.samples(of: ours)
        let onsets = Self.onsets(samples)
        #expect(onsets.count == 3, "beeps at \(onsets)")
        for (onset, flash) in zip(onsets, flashes) {
            #expect(abs(onset - Double(flash) / 30) < 1.0 / 30, "a beep at \(onset) s, its flash at frame \(flash)")
        }
    }

    /// Segments whose sound is longer (1.3 s of 400 Hz in a 1 s segment), shorter (0.8 s of 1 kHz) and as long
    /// (2.5 kHz) as their video: each segment lasts its video's second; the longer sound is cut at its segment's
    /// end, the shorter one is followed by silence until the next segment, and the last starts at 2 s.
    @Test func soundLongerOrShorterThanItsPictureIsCutOrPadded() async throws {
        let shapes = [(400, 1.3), (1000, 0.8), (2500, 1.0)]
        let segments = try shapes.enumerated().map { index, shape in
            let segment = file("mismatch-\(index).mov")
            try FFmpegTool.run([
                "-f", "lavfi", "-i", "color=blue:size=32x32:rate=30:duration=1", "-f", "lavfi", "-i",
                "sine=frequency=\(shape.0):sample_rate=48000:duration=\(shape.1)", "-c:v", "libx264",
                "-pix_fmt", "yuv420p", "-c:a", "pcm_s16le", segment.path,
            ])
            return segment
        }
        let plan = CompositionPlan(
            size: PixelSize(width: 32, height: 32),
            takes: [.init(segments: segments, region: NormalizedRect(x: 0, y: 0, width: 1, height: 1))])
        let ours = file("mismatch-ours.mp4")
        let result = try await Composer().compose(plan, to: ours)
        #expect(abs(result.duration - 3) < 1e-6, "\(result.duration)")
        let samples = try FFmpegTool.samples(of: ours)
        func level(_ frequency: Double, _ from: Double, _ to: Double) -> Double {
            let range = Int(from * 48_000)..<Int(to * 48_000)
            return toneAmplitude(range.map { samples[2 * $0] }[...], frequency: frequency)
        }
        let full = 0.125 / 2.0.squareRoot()  // lavfi's sine, mono, in the centre
        #expect(abs(level(400, 0.1, 0.95) - full) < 0.05 * full)
        #expect(level(400, 1.02, 1.98) < 0.02 * full, "the longer sound runs past its segment")
        #expect(abs(level(1000, 1.05, 1.75) - full) < 0.05 * full, "the second segment's sound is not at 1 s")
        #expect(windowLevels(samples, from: 1.82, to: 1.98).allSatisfy { $0 < 0.01 }, "no silence after 1.8 s")
        #expect(abs(level(2500, 2.05, 2.95) - full) < 0.05 * full, "the third segment's sound is not at 2 s")
        #expect(level(2500, 1.5, 1.95) < 0.02 * full)
    }

    /// Segments in three containers (MP4, MPEG-TS, whose header does not give the picture's size so the composer
    /// probes it again, and Matroska, which states no stream length so the segment lasts its file), each with a flash
    /// at its frame 10: the flashes at output frames 10, 40 and 70, 90 frames in all.
    @Test func segmentsInOtherContainersJoin() async throws {
        let segments = try ["mp4", "ts", "mkv"].enumerated().map { index, container in
            let segment = file("container-\(index).\(container)")
            try FFmpegTool.run([
                "-f", "lavfi", "-i",
                "color=black:size=32x32:rate=30:duration=1,drawbox=c=white:t=fill:enable='eq(n,10)'",
                "-c:v", "libx264", "-pix_fmt", "yuv420p", segment.path,
            ])
            return segment
        }
        let plan = CompositionPlan(
            size: PixelSize(width: 32, height: 32),
            takes: [.init(segments: segments, region: NormalizedRect(x: 0, y: 0, width: 1, height: 1))])
        let ours = file("containers-ours.mp4")
        let result = try await Composer().compose(plan, to: ours)
        #expect(result.frameCount == 90, "\(result.duration) s")
        let frames = try FFmpegTool.frames(of: ours, width: 32, height: 32)
        let flashes = frames.indices.filter { Int(frames[$0][16 * 32 + 16]) > 128 }
        #expect(flashes == [10, 40, 70], "flashes at frames \(flashes)")
    }

    /// The onsets, in seconds, of the beeps in the left channel of `samples`: where it first exceeds 0.05 after at
    /// least 0.1 s below it.
    static func onsets(_ samples: [Float]) -> [Double] {
        var onsets: [Double] = []
        var quietSince = 0
        for index in 0..<(samples.count / 2) where abs(samples[2 * index]) > 0.05 {
            if index - quietSince > 4_800 { onsets.append(Double(index) / 48_000) }
            quietSince = index
        }
        return onsets
    }
}

/// The root-mean-square level of the left channel of interleaved stereo `samples`, in windows of 256 samples (two
/// periods of a 375 Hz tone) from `from` to `to` seconds.
func windowLevels(_ samples: [Float], from: Double, to: Double) -> [Double] {
    stride(from: Int(from * 48_000), to: Int(to * 48_000) - 256, by: 256).map { start in
        let sum = (start..<(start + 256)).reduce(0.0) { $0 + Double(samples[2 * $1] * samples[2 * $1]) }
        return (sum / 256).squareRoot()
    }
}

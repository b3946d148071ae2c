import Composition
import Foundation
import Pixels
import TestSupport
import Testing

/// A plan's music against the ffmpeg command line: a beep at a known point of the music file lands where the plan's
/// start puts it (within 20 ms, less than one AAC frame), at the level `adelay`+`amix=normalize=0` gives, looped to
/// the end, silent at gain 0, and never lengthening the video.
@Suite("Soundtrack against the ffmpeg CLI", .serialized)
struct SoundtrackOracleTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder(prefix: "CompositionMusic")
    }

    func file(_ name: String) -> URL { folder.url.appendingPathComponent(name) }

    /// A 2 s take with a 400 Hz tone, and music of `length` seconds: silence with a 1 kHz beep of 0.1 s at 0.5 s.
    func makeInputs(musicLength length: Double = 4) throws -> (take: URL, music: URL) {
        let take = file("take.mp4")
        try FFmpegTool.run([
            "-f", "lavfi", "-i", "color=red:size=32x32:rate=30:duration=2", "-f", "lavfi", "-i",
            "sine=frequency=400:sample_rate=48000:duration=2", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac",
            take.path,
        ])
        let music = file("music-\(length).m4a")
        try FFmpegTool.run([
            "-f", "lavfi", "-i", "aevalsrc=exprs='if(between(t,0.5,0.6),0.5*sin(2*PI*1000*t),0)':s=48000:d=\(length)",
            "-c:a", "aac", music.path,
        ])
        return (take, music)
    }

    func compose(_ take: URL, _ music: CompositionPlan.Soundtrack?, takeStart: Double = 0, _ name: String) async throws
        -> (
            URL, CompositionResult
        )
    {
        var plan = CompositionPlan(
            size: PixelSize(width: 32, height: 32),
            takes: [.init(file: take, region: NormalizedRect(x: 0, y: 0, width: 1, height: 1), start: takeStart)])
        plan.soundtrack = music
        let output = file(name)
        return (output, try await Composer().compose(plan, to: output))
    }

    /// The music started 0.3 s into the timeline (start -0.3): its beep is at 0.8 s, within 20 ms; its level is the
    /// CLI's (`adelay=300`, `amix=normalize=0`) and the plan's (gain 0.5, mono in the centre), the take's tone
    /// unchanged under it; the output lasts the take's 2 s, not the music's 4 s.
    @Test func beepLandsWhereTheStartPutsIt() async throws {
        let (take, music) = try makeInputs()
        let (ours, result) = try await compose(
            take, CompositionPlan.Soundtrack(file: music, start: -0.3, gain: 0.5), "late.mp4")
        #expect(abs(result.duration - 2) < 0.01, "the music lengthened the video to \(result.duration) s")
        let samples = try FFmpegTool.samples(of: ours)
        #expect(samples.count / 2 < 2 * 48_000 + 2048, "\(samples.count / 2) samples")
        let beeps = Self.beeps(samples)
        #expect(beeps.count == 1 && abs((beeps.first ?? 0) - 0.8) < 0.02, "beeps at \(beeps)")
        let reference = file("late-ffmpeg.m4a")
        let centre = 0.5.squareRoot()
        try FFmpegTool.run([
            "-vn", "-i", take.path, "-i", music.path, "-filter_complex",
            "[0:a]pan=stereo|c0=\(centre)*c0|c1=\(centre)*c0[t];"
                + "[1:a]adelay=300,volume=0.5,pan=stereo|c0=\(centre)*c0|c1=\(centre)*c0[m];"
                + "[t][m]amix=inputs=2:normalize=0:duration=first",
            "-c:a", "aac",
            reference.path,
        ])
        let theirs = try FFmpegTool.samples(of: reference)
        func level(_ samples: [Float], _ frequency: Double, _ from: Double, _ to: Double) -> Double {
            toneAmplitude((Int(from * 48_000)..<Int(to * 48_000)).map { samples[2 * $0] }[...], frequency: frequency)
        }
        // Mono music at gain 0.5 in the centre: 0.5 x 0.5 x 0.707 on each side.
        #expect(abs(level(samples, 1000, 0.81, 0.89) - 0.25 * centre) < 0.05 * 0.25 * centre)
        #expect(abs(level(samples, 1000, 0.81, 0.89) - level(theirs, 1000, 0.81, 0.89)) < 0.05 * 0.25 * centre)
        #expect(abs((Self.beeps(theirs).first ?? 0) - 0.8) < 0.02, "the CLI's beep")
        #expect(abs(level(samples, 400, 1.0, 1.9) - 0.125 * centre) < 0.05 * 0.125 * centre)
    }

    /// The music's point 0.4 s plays at timeline 0 (start 0.4) in a take that starts at 0.25 s (the output starts at
    /// timeline 0.25): the beep at 0.5 s of the file is at timeline 0.1, before the output: none is heard. With
    /// start 0.2 it is at timeline 0.3, output 0.05.
    @Test func positiveStartSkipsIntoTheMusic() async throws {
        let (take, music) = try makeInputs()
        let (skipped, _) = try await compose(
            take, CompositionPlan.Soundtrack(file: music, start: 0.4), takeStart: 0.25, "skip.mp4")
        #expect(Self.beeps(try FFmpegTool.samples(of: skipped)).isEmpty)
        let (early, _) = try await compose(
            take, CompositionPlan.Soundtrack(file: music, start: 0.2), takeStart: 0.25, "early.mp4")
        let beeps = Self.beeps(try FFmpegTool.samples(of: early))
        #expect(beeps.count == 1 && abs((beeps.first ?? 0) - 0.05) < 0.02, "beeps at \(beeps)")
    }

    /// Music of 0.3 s (AAC: its last frame padded with 20 ms of silence) looped under a 2 s take: it starts again
    /// from its beginning each time it ends, after its stated length, so its beep is at 0.1, 0.4, ... 1.9 s (each
    /// within 20 ms: the loop neither drifts nor leaves a gap; with the padding it drifted 20 ms a pass), and the
    /// output still lasts 2 s.
    @Test func loopRepeatsTheMusicToTheEnd() async throws {
        let (take, _) = try makeInputs()
        let music = file("loop.m4a")
        try FFmpegTool.run([
            "-f", "lavfi", "-i", "aevalsrc=exprs='if(between(t,0.1,0.15),0.5*sin(2*PI*1000*t),0)':s=48000:d=0.3",
            "-c:a", "aac", music.path,
        ])
        let (ours, result) = try await compose(take, CompositionPlan.Soundtrack(file: music, loops: true), "loop.mp4")
        #expect(abs(result.duration - 2) < 0.01)
        let beeps = Self.beeps(try FFmpegTool.samples(of: ours))
        let expected = (0..<7).map { 0.1 + 0.3 * Double($0) }
        #expect(beeps.count == expected.count, "beeps at \(beeps)")
        for (beep, expected) in zip(beeps, expected) {
            #expect(abs(beep - expected) < 0.02, "a beep at \(beep) s, expected \(expected) s")
        }
        let (once, _) = try await compose(take, CompositionPlan.Soundtrack(file: music), "once.mp4")
        #expect(Self.beeps(try FFmpegTool.samples(of: once)).count == 1)
    }

    /// Music at gain 0 adds nothing: the output's sound is the take's alone (no 1 kHz at the beep's time).
    @Test func gainZeroIsSilent() async throws {
        let (take, music) = try makeInputs()
        let (ours, _) = try await compose(
            take, CompositionPlan.Soundtrack(file: music, start: 0, gain: 0), "silent.mp4")
        let samples = try FFmpegTool.samples(of: ours)
        let beep = toneAmplitude((24_480..<28_320).map { samples[2 * $0] }[...], frequency: 1000)
        #expect(beep < 0.001, "1 kHz at \(beep) under gain 0")
        #expect(Self.beeps(samples).isEmpty)
    }

    /// A missing music file fails the composition in one line naming it, and nothing is written.
    @Test func missingMusicWritesNothing() async throws {
        let (take, _) = try makeInputs()
        let output = file("none/out.mp4")
        try FileManager.default.createDirectory(
            at: output.deletingLastPathComponent(), withIntermediateDirectories: true)
        var plan = CompositionPlan(
            size: PixelSize(width: 32, height: 32),
            takes: [.init(file: take, region: NormalizedRect(x: 0, y: 0, width: 1, height: 1))])
        plan.soundtrack = CompositionPlan.Soundtrack(file: file("gone.m4a"))
        await #expect {
            _ = try await Composer().compose(plan, to: output)
        } throws: { error in
            String(describing: error) == "music (gone.m4a): no such file"
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: output.deletingLastPathComponent().path).isEmpty)
    }

    /// The onsets, in seconds, of the 1 kHz beeps in the left channel of `samples`, from the 1 kHz level (which the
    /// take's 400 Hz tone does not reach) of 10 ms windows in steps of 5 ms.
    static func beeps(_ samples: [Float]) -> [Double] {
        let frames = samples.count / 2
        var onsets: [Double] = []
        var quietSince = -48_000
        for start in stride(from: 0, to: frames - 480, by: 240) {
            let level = toneAmplitude((start..<(start + 480)).map { samples[2 * $0] }[...], frequency: 1000)
            guard level > 0.05 else { continue }
            // The first window over the threshold holds at least a quarter of the beep: its onset is within 5 ms of
            // the window's centre.
            if start - quietSince > 7_200 { onsets.append(Double(start + 240) / 48_000) }
            quietSince = start
        }
        return onsets
    }
}

import Composition
import Foundation
import Pixels
import Synchronization
import TestSupport
import Testing

/// The composer against the ffmpeg command line composing the same takes with the equivalent filter graph
/// (`tpad` for starts and the hold, `xstack` or `scale`/`pad`/`crop` for tiles, `adelay`, `pan`, `volume` and
/// `amix=normalize=0` for the mix), in a lossless mode (CRF 0 / `-qp 0`) so that frames compare byte for byte.
@Suite("Composer against the ffmpeg CLI", .serialized)
struct ComposerOracleTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder(prefix: "CompositionOracle")
    }

    func file(_ name: String) -> URL { folder.url.appendingPathComponent(name) }

    /// A lossless 30 fps take from a lavfi source.
    func makeTake(_ name: String, video: String?, audio: String? = nil) throws -> URL {
        try Self.lavfiTake(file(name), video: video, audio: audio)
    }

    /// A lossless take at `url` from a lavfi video source, audio source or both.
    static func lavfiTake(_ url: URL, video: String?, audio: String? = nil) throws -> URL {
        var arguments: [String] = []
        if let video { arguments += ["-f", "lavfi", "-i", video] }
        if let audio { arguments += ["-f", "lavfi", "-i", audio] }
        if video != nil { arguments += ["-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p"] }
        if audio != nil { arguments += ["-c:a", "pcm_s16le"] }
        try FFmpegTool.run(arguments + [url.path])
        return url
    }

    func compose(_ plan: CompositionPlan, _ name: String) async throws -> (URL, CompositionResult) {
        let output = file(name)
        let result = try await Composer().compose(plan, to: output)
        return (output, result)
    }

    /// Four moving takes in a 2x2 grid, one starting late, one early (a negative start), with no audio: every frame
    /// equals the CLI's `tpad` + `xstack` byte for byte, so a tile moved by one pixel, a dropped offset or a missing
    /// hold of a shorter take's last frame fails.
    @Test func gridWithOffsetsMatchesXstackExactly() async throws {
        let sources = [
            "testsrc2=size=32x64:rate=30:duration=1", "testsrc=size=32x64:rate=30:duration=1",
            "rgbtestsrc=size=32x64:rate=30:duration=1", "smptebars=size=32x64:rate=30:duration=1",
        ]
        let takes = try sources.enumerated().map { try makeTake("grid-\($0.offset).mkv", video: $0.element) }
        var plan = CompositionPlan(
            files: takes, grid: GridLayout(columns: 2, rows: 2), size: PixelSize(width: 64, height: 128))
        plan.takes[1].start = 0.5
        plan.takes[2].start = -0.2
        plan.video.constantRateFactor = 0
        let (ours, result) = try await compose(plan, "grid-ours.mp4")
        // Origin -0.2 s: the takes start 0.2, 0.7, 0 and 0.2 s into the output, which lasts 1.7 s.
        #expect(result.frameCount == 51)
        // In frames: timestamps made exact (a Matroska take stores milliseconds), then the start padded with black
        // and the end held.
        let delays = [6, 21, 0, 6]
        let padded = delays.enumerated().map { index, delay in
            "[\(index):v]settb=1/30,setpts=N,tpad=start=\(delay):color=black:stop_mode=clone:stop=60[v\(index)]"
        }
        let reference = file("grid-ffmpeg.mp4")
        try FFmpegTool.run(
            takes.flatMap { ["-i", $0.path] } + [
                "-filter_complex",
                padded.joined(separator: ";") + ";[v0][v1][v2][v3]xstack=inputs=4:layout=0_0|w0_0|0_h0|w0_h0",
                "-frames:v", "51", "-c:v", "libx264", "-qp", "0", reference.path,
            ])
        let ourFrames = try FFmpegTool.frames(of: ours, width: 64, height: 128)
        let referenceFrames = try FFmpegTool.frames(of: reference, width: 64, height: 128)
        #expect(ourFrames.count == 51)
        #expect(referenceFrames.count == 51)
        let differing = zip(ourFrames, referenceFrames).enumerated().filter { $0.element.0 != $0.element.1 }.map(
            \.offset)
        #expect(differing.isEmpty, "frames \(differing) differ from ffmpeg's")
    }

    /// A square take fitted (letterboxed on the background) and filled (cropped) into tall tiles: the same pixels as
    /// `scale`+`pad` and `scale`+`crop`.
    @Test func fitAndFillMatchScalePadAndCrop() async throws {
        let take = try makeTake("square.mkv", video: "testsrc2=size=64x64:rate=30:duration=0.5")
        var plan = CompositionPlan(
            size: PixelSize(width: 64, height: 64),
            takes: [
                .init(file: take, region: NormalizedRect(x: 0, y: 0, width: 0.5, height: 1), scaling: .fit),
                .init(file: take, region: NormalizedRect(x: 0.5, y: 0, width: 0.5, height: 1), scaling: .fill),
            ])
        plan.background = RGBColor(red: 0, green: 0, blue: 0)
        plan.video.constantRateFactor = 0
        let (ours, _) = try await compose(plan, "fit-ours.mp4")
        let reference = file("fit-ffmpeg.mp4")
        try FFmpegTool.run([
            "-i", take.path, "-filter_complex",
            "[0:v]split[a][b];[a]scale=32:32:flags=bilinear,pad=32:64:0:16:black[l];"
                + "[b]crop=32:64:16:0[r];[l][r]hstack",
            "-c:v", "libx264", "-qp", "0", reference.path,
        ])
        let ourFrames = try FFmpegTool.frames(of: ours, width: 64, height: 64)
        let referenceFrames = try FFmpegTool.frames(of: reference, width: 64, height: 64)
        #expect(ourFrames.count == referenceFrames.count)
        for (index, (mine, theirs)) in zip(ourFrames, referenceFrames).enumerated() {
            // The fill half is a plain copy: exact. The fitted half is scaled by both with the same bilinear filter
            // (exactly half the take's size: the composer's halving, swscale for the CLI); allow rounding, not a
            // shift (a shifted moving pattern differs by tens on average).
            let difference = zip(mine, theirs).map { abs(Int($0) - Int($1)) }
            let mean = Double(difference.reduce(0, +)) / Double(difference.count)
            #expect(mean < 1.5, "frame \(index): mean difference \(mean)")
            for row in 0..<64 {
                let start = row * 64 + 32
                #expect(mine[start..<(start + 32)] == theirs[start..<(start + 32)], "frame \(index) fill row \(row)")
            }
        }
    }

    /// Three tones with their own gain, pan and start (one take audio only, one without sound): each tone's level in
    /// each channel is the plan's (sum, constant-power pan, no 1/N), as in `adelay`+`pan`+`volume`+`amix=normalize=0`,
    /// and the late tone begins at its start.
    @Test func mixLevelsAndOffsetsMatchAmix() async throws {
        let a = try makeTake(
            "tone-a.mkv", video: "color=red:size=32x32:rate=30:duration=1",
            audio: "sine=frequency=400:sample_rate=48000:duration=1")
        let b = try makeTake(
            "tone-b.mkv", video: "color=blue:size=32x32:rate=30:duration=1",
            audio: "sine=frequency=1000:sample_rate=48000:duration=1")
        let c = try makeTake("tone-c.wav", video: nil, audio: "sine=frequency=2500:sample_rate=48000:duration=1")
        let silent = try makeTake("silent.mkv", video: "color=green:size=32x32:rate=30:duration=1")
        let grid = GridLayout(columns: 2, rows: 2)
        let plan = CompositionPlan(
            size: PixelSize(width: 64, height: 64),
            takes: [
                .init(file: a, region: grid.region(ofTile: 0), gain: 1, pan: -1),
                .init(file: b, region: grid.region(ofTile: 1), start: 0.3, gain: 0.5, pan: 0.5),
                .init(file: c, region: grid.region(ofTile: 2), gain: 2, pan: 0),
                .init(file: silent, region: grid.region(ofTile: 3)),
            ])
        let (ours, _) = try await compose(plan, "mix-ours.mp4")
        let reference = file("mix-ffmpeg.m4a")
        let b1 = AudioMix.panGains(pan: 0.5, channels: 1)
        let c1 = AudioMix.panGains(pan: 0, channels: 1)
        try FFmpegTool.run([
            "-vn", "-i", a.path, "-vn", "-i", b.path, "-i", c.path, "-filter_complex",
            "[0:a]pan=stereo|c0=1*c0|c1=0*c0[a0];"
                + "[1:a]adelay=300|300,pan=stereo|c0=\(b1.left)*c0|c1=\(b1.right)*c0,volume=0.5[a1];"
                + "[2:a]pan=stereo|c0=\(c1.left)*c0|c1=\(c1.right)*c0,volume=2[a2];"
                + "[a0][a1][a2]amix=inputs=3:normalize=0",
            "-c:a", "aac", "-b:a", "128k", reference.path,
        ])
        let mine = try FFmpegTool.samples(of: ours)
        let theirs = try FFmpegTool.samples(of: reference)
        func level(_ samples: [Float], channel: Int, frequency: Double, from: Double, to: Double) -> Double {
            let range = Int(from * 48_000)..<Int(to * 48_000)
            let channelSamples = range.map { samples[2 * $0 + channel] }
            return toneAmplitude(channelSamples[...], frequency: frequency)
        }
        let amplitude = 0.125  // lavfi's sine
        let expected: [(Double, Int, Double)] = [
            (400, 0, amplitude), (400, 1, 0),
            (1000, 0, amplitude * 0.5 * b1.left), (1000, 1, amplitude * 0.5 * b1.right),
            (2500, 0, amplitude * 2 * c1.left), (2500, 1, amplitude * 2 * c1.right),
        ]
        for (frequency, channel, value) in expected {
            let ourLevel = level(mine, channel: channel, frequency: frequency, from: 0.5, to: 0.9)
            let theirLevel = level(theirs, channel: channel, frequency: frequency, from: 0.5, to: 0.9)
            #expect(abs(ourLevel - value) < 0.05 * amplitude, "\(frequency) Hz channel \(channel): \(ourLevel)")
            #expect(abs(ourLevel - theirLevel) < 0.05 * amplitude, "\(frequency) Hz channel \(channel) vs ffmpeg")
        }
        // The late tone: absent before 0.3 s, present from 0.3 s + one frame.
        #expect(level(mine, channel: 1, frequency: 1000, from: 0.05, to: 0.25) < 0.002)
        #expect(level(mine, channel: 1, frequency: 1000, from: 0.34, to: 0.44) > 0.8 * amplitude * 0.5 * b1.right)
    }

    /// A flash and a beep recorded together stay together: after a start of 0.4 s they are both at 0.9 s in the
    /// output, within one frame.
    @Test func flashAndBeepStayAligned() async throws {
        let flash = try makeTake(
            "flash.mkv",
            video: "color=black:size=32x32:rate=30:duration=1.5,drawbox=c=white:t=fill:enable='between(n,15,15)'",
            audio: "aevalsrc=exprs='if(between(t,0.5,0.6),0.5*sin(2*PI*1000*t),0)':s=48000:d=1.5")
        let other = try makeTake("other.mkv", video: "color=gray:size=32x32:rate=30:duration=1")
        let plan = CompositionPlan(
            size: PixelSize(width: 64, height: 32),
            takes: [
                .init(file: other, region: NormalizedRect(x: 0, y: 0, width: 0.5, height: 1)),
                .init(file: flash, region: NormalizedRect(x: 0.5, y: 0, width: 0.5, height: 1), start: 0.4),
            ])
        let (ours, _) = try await compose(plan, "flash-ours.mp4")
        let frames = try FFmpegTool.frames(of: ours, width: 64, height: 32)
        let brightness = frames.map { frame in (0..<32).map { Int(frame[$0 * 64 + 48]) }.reduce(0, +) }
        let flashFrame = brightness.indices.max { brightness[$0] < brightness[$1] }!
        #expect(flashFrame == 27, "the flash is at frame \(flashFrame), expected 27 (0.9 s)")
        let samples = try FFmpegTool.samples(of: ours)
        #expect(samples.count > 2 * 48_000, "\(samples.count) samples")
        let onset = (0..<(samples.count / 2)).first { abs(samples[2 * $0]) > 0.05 }
        let beep = Double(onset ?? 0) / 48_000
        #expect(abs(beep - 0.9) < 1.0 / 30, "the beep starts at \(beep) s")
        #expect(abs(beep - Double(flashFrame) / 30) < 1.0 / 30)
    }

    /// A missing take, a corrupt take and a cancelled composition leave nothing: no output, no temporary file; the
    /// error names the canvas and the file in one line.
    @Test func failuresLeaveNothing() async throws {
        let good = try makeTake("good.mkv", video: "testsrc2=size=32x32:rate=30:duration=1")
        let corrupt = file("corrupt.mp4")
        try Data(repeating: 0x5A, count: 4096).write(to: corrupt)
        let output = file("out/never.mp4")
        try FileManager.default.createDirectory(
            at: output.deletingLastPathComponent(), withIntermediateDirectories: true)
        let grid = GridLayout(columns: 2, rows: 1)
        for (bad, reason) in [(file("missing.mp4"), "no such file"), (corrupt, "")] {
            let plan = CompositionPlan(files: [good, bad], grid: grid, size: PixelSize(width: 64, height: 32))
            await #expect {
                _ = try await Composer().compose(plan, to: output)
            } throws: { error in
                let text = String(describing: error)
                return text.hasPrefix("canvas 1 (\(bad.lastPathComponent)): \(reason)") && !text.contains("\n")
            }
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: output.deletingLastPathComponent().path).isEmpty)
        }
        // Cancelled through the completion handler's job, and through the task.
        let long = try makeTake("long.mkv", video: "testsrc2=size=32x32:rate=30:duration=20")
        let plan = CompositionPlan(
            files: [long], grid: GridLayout(columns: 1, rows: 1), size: PixelSize(width: 32, height: 32))
        let outcome = await withCheckedContinuation { continuation in
            let job = Composer().compose(plan, to: output) { continuation.resume(returning: $0) }
            job.cancel()
        }
        if case .failure(let error) = outcome {
            #expect(error.kind == .cancelled)
        } else {
            Issue.record("a cancelled composition finished")
        }
        let task = Task { try await Composer().compose(plan, to: output) }
        task.cancel()
        await #expect(throws: CompositionError.cancelled) { try await task.value }
        #expect(try FileManager.default.contentsOfDirectory(atPath: output.deletingLastPathComponent().path).isEmpty)
    }

    /// A composition cancelled part-way, while the takes' feeds have frames queued ahead of it, ends cancelled with
    /// nothing written (it used to stop the process: a feed's queue was freed with frames still in it).
    @Test(.timeLimit(.minutes(10))) func cancellingPartWayLeavesNothing() async throws {
        let takes = try ["a.mkv", "b.mkv"].map {
            try makeTake($0, video: "testsrc2=size=32x32:rate=30:duration=10")
        }
        let output = file("part/never.mp4")
        try FileManager.default.createDirectory(
            at: output.deletingLastPathComponent(), withIntermediateDirectories: true)
        let plan = CompositionPlan(
            files: takes, grid: GridLayout(columns: 2, rows: 1), size: PixelSize(width: 64, height: 32))
        let job = Mutex<CompositionJob?>(nil)
        let outcome = await withCheckedContinuation { continuation in
            let started = Composer().compose(
                plan, to: output,
                progress: { progress in
                    if progress.frame >= 10 { job.withLock { $0?.cancel() } }
                }
            ) { continuation.resume(returning: $0) }
            job.withLock { $0 = started }
        }
        if case .failure(let error) = outcome {
            #expect(error.kind == .cancelled)
        } else {
            Issue.record("a cancelled composition finished")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: output.deletingLastPathComponent().path).isEmpty)
    }
}

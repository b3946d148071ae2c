import Foundation
import TestSupport
import Testing

/// `canvas-compose --target` on takes made by the ffmpeg CLI, each output checked by `Tools/check-target.py`, the
/// independent reading of the platforms' requirements (ffprobe and the file's atoms).
@Suite("canvas-compose --target: outputs that meet every published requirement")
struct CanvasComposeTargetTests {
    let tool: BuiltBinary
    let folder: ScratchFolder

    static let checker = BuiltBinary.root.appendingPathComponent("Tools/check-target.py")
    /// The requirements the checker reports, one line each.
    static let requirementCount = 18

    init() throws {
        tool = try BuiltBinary("canvas-compose")
        folder = try ScratchFolder()
    }

    /// A 1080x1920 take of `seconds` with a tone, detailed enough that at CRF 1 its bit rate is over every cap.
    func take(named name: String = "take.mp4", seconds: Double = 3.5) throws -> URL {
        let url = folder.url.appendingPathComponent(name)
        let result = try runTool(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=1080x1920:rate=30", "-f", "lavfi",
                "-i", "sine=frequency=440:sample_rate=48000", "-t", String(seconds), "-c:v", "libx264", "-preset",
                "ultrafast", "-crf", "28", "-c:a", "aac", url.path,
            ])
        #expect(result.status == 0, "\(result.errorText)")
        return url
    }

    /// The checker's verdict on `file` for `target`: its status and its lines.
    func check(_ target: String, _ file: URL) throws -> (status: Int32, lines: [String]) {
        let result = try runTool("python3", [Self.checker.path, target, file.path])
        return (result.status, result.outputText.split(separator: "\n").map(String.init))
    }

    /// Each target at 30 frames a second, and Shorts at 60 (level 4.2, its higher cap): the checker passes every
    /// requirement. CRF 1 would exceed each cap without the VBV.
    @Test(arguments: [("tiktok", "30"), ("reels", "30"), ("shorts", "30"), ("shorts", "60")])
    func outputMeetsEveryRequirement(target: String, fps: String) throws {
        let output = folder.url.appendingPathComponent("\(target).mp4")
        let run = try tool.run([
            try take().path, "-o", output.path, "--target", target, "--fps", fps, "--crf", "1", "--preset",
            "ultrafast",
        ])
        #expect(run.status == 0, "\(run.standardError)")
        let verdict = try check(target, output)
        #expect(verdict.status == 0, "\(verdict.lines.joined(separator: "\n"))")
        #expect(verdict.lines.count == Self.requirementCount)
        #expect(verdict.lines.allSatisfy { $0.hasPrefix("ok ") }, "\(verdict.lines.joined(separator: "\n"))")
    }

    /// The checker is not a rubber stamp: a plain composition at the same size (GOPs of libx264's 250 frames, edit
    /// lists, no bit-rate cap) fails, and so does a target output remuxed by the ffmpeg CLI (index at the end, edit
    /// lists written again).
    @Test func checkerRejectsOutputsThatMissARequirement() throws {
        let source = try take()
        let plain = folder.url.appendingPathComponent("plain.mp4")
        let run = try tool.run([
            source.path, "-o", plain.path, "--size", "1080x1920", "--crf", "1", "--preset", "ultrafast",
        ])
        #expect(run.status == 0, "\(run.standardError)")
        let verdict = try check("reels", plain)
        #expect(verdict.status == 1)
        let failed = verdict.lines.filter { $0.hasPrefix("FAIL") }
        for requirement in ["no edit list", "keyframe every 15 frames", "bit-rate cap"] {
            #expect(failed.contains { $0.contains(requirement) }, "\(requirement): \(verdict.lines)")
        }
        let target = folder.url.appendingPathComponent("target.mp4")
        #expect(
            try tool.run([source.path, "-o", target.path, "--target", "tiktok", "--preset", "ultrafast"]).status == 0)
        let remuxed = folder.url.appendingPathComponent("remuxed.mp4")
        let remux = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-i", target.path, "-c", "copy", remuxed.path])
        #expect(remux.status == 0, "\(remux.errorText)")
        let remuxedVerdict = try check("tiktok", remuxed)
        #expect(remuxedVerdict.status == 1)
        #expect(
            remuxedVerdict.lines.filter { $0.hasPrefix("FAIL") }.map { String($0.prefix(25)) } == [
                "FAIL moov before mdat (+f", "FAIL no edit list (or an ",
            ], "\(remuxedVerdict.lines)")
    }

    /// One requirement missed at a time, by rewriting a Reels output with the ffmpeg CLI (`moov` first, no edit list
    /// kept): the checker fails that requirement and only that one.
    @Test(arguments: [
        (["-c:v", "copy", "-c:a", "aac", "-ar", "44100", "-ac", "1"], "FAIL AAC-LC 48 kHz stereo"),
        (["-c", "copy", "-bsf:v", "h264_metadata=level=4.1"], "FAIL the level size and rate need"),
        (["-c", "copy", "-t", "2"], "FAIL Instagram Reels length"),
        (
            [
                "-c:a", "copy", "-c:v", "libx264", "-preset", "ultrafast", "-bf", "0", "-g", "15", "-x264-params",
                "scenecut=0:8x8dct=1", "-level", "4.0", "-maxrate", "18M", "-bufsize", "6M", "-profile:v", "high",
            ], "FAIL B-frames"
        ),
    ])
    func checkerFailsTheOneRequirementMissed(rewrite: [String], failure: String) throws {
        let source = try take()
        let reel = folder.url.appendingPathComponent("reel.mp4")
        #expect(try tool.run([source.path, "-o", reel.path, "--target", "reels", "--preset", "ultrafast"]).status == 0)
        let rewritten = folder.url.appendingPathComponent("rewritten.mp4")
        let result = try runTool(
            "ffmpeg",
            ["-nostdin", "-v", "error", "-i", reel.path] + rewrite + [
                "-movflags", "+faststart+negative_cts_offsets", "-use_editlist", "0", rewritten.path,
            ])
        #expect(result.status == 0, "\(result.errorText)")
        let verdict = try check("reels", rewritten)
        #expect(verdict.status == 1)
        let failed = verdict.lines.filter { !$0.hasPrefix("ok ") }
        #expect(failed.count == 1 && failed.first?.hasPrefix(failure) == true, "\(verdict.lines)")
    }

    /// A Reel shorter than 3 s and a Short longer than 3 minutes: exit 1, one line naming the length and the limit,
    /// nothing written.
    @Test func lengthLimits() throws {
        let short = try take(named: "short.mp4", seconds: 1)
        let output = folder.url.appendingPathComponent("out.mp4")
        let reel = try tool.run([short.path, "-o", output.path, "--target", "reels"])
        #expect(reel.status == 1)
        #expect(
            reel.errorLines == [
                "canvas-compose: the output would last 1 s: refused, Instagram Reels takes at least 3 s (target reels)"
            ])
        let long = try tool.run([short.path, short.path, "-o", output.path, "--target", "shorts", "--start", "1=179.5"])
        #expect(long.status == 1)
        #expect(
            long.errorLines == [
                "canvas-compose: the output would last 180.5 s: refused, YouTube Shorts takes at most 180 s (target "
                    + "shorts)"
            ])
        #expect(folder.contents == ["short.mp4"])
    }

    /// What contradicts a target is a usage error: exit 2, one line, nothing written.
    @Test(arguments: [
        (["--target", "tiktok", "--size", "720x1280"], "--target and --size cannot be used together"),
        (["--fit", "--target", "reels"], "--target and --fit cannot be used together"),
        (
            ["--target", "shorts", "--fps", "120"],
            "--fps 120 is outside the 23-60 frames per second of --target shorts"
        ),
        (["--target", "reels", "--fps", "15"], "--fps 15 is outside the 23-60 frames per second of --target reels"),
        (["--target", "tiktok", "--crf", "0"], "--crf 0 is lossless, which H.264 High cannot be"),
        (["--target", "vine"], "--target expects tiktok, reels or shorts, got 'vine'"),
    ])
    func contradictionsAreUsageErrors(arguments: [String], message: String) throws {
        let run = try tool.run(["a.mp4", "-o", "x.mp4"] + arguments, in: folder.url)
        #expect(run.status == 2)
        #expect(
            run.errorLines.first == "canvas-compose: \(message)"
                || run.errorLines.first?.hasPrefix("canvas-compose: \(message)") == true, "\(run.errorLines)")
        #expect(folder.contents.isEmpty)
    }
}

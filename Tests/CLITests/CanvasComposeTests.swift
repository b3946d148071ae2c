import Foundation
import TestSupport
import Testing

@Suite("canvas-compose, run as a user runs it")
struct CanvasComposeTests {
    let tool: BuiltBinary
    let folder: URL

    init() throws {
        tool = try BuiltBinary("canvas-compose")
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("canvas-compose-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    static let fixtures = BuiltBinary.root.appendingPathComponent("Fixtures")

    /// Two fixture takes into a 2x1 grid: exit 0, one JSON object with the output, duration, frames and seconds, and
    /// the file there.
    @Test func composesAndPrintsOneJSONObject() throws {
        let output = folder.appendingPathComponent("out.mp4")
        let run = try tool.run([
            Self.fixtures.appendingPathComponent("h264.mp4").path,
            Self.fixtures.appendingPathComponent("rotation-90.mp4").path, "-o", output.path, "--grid", "2x1",
            "--size=320x240", "--fill", "--start", "1=0.5", "--gain", "0=0.5", "--pan", "1=-1", "--preset", "ultrafast",
            "--json",
        ])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.outputLines.count == 1)
        let object = try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any]
        #expect(object?["output"] as? String == output.path)
        #expect((object?["frames"] as? Int ?? 0) > 0)
        #expect((object?["duration"] as? Double ?? 0) > 0.5)
        #expect(object?["seconds"] is Double)
        #expect(FileManager.default.fileExists(atPath: output.path))
        try? FileManager.default.removeItem(at: folder)
    }

    /// A missing and a broken take: exit 1, one line naming the canvas and the file, nothing in the folder.
    @Test func badTakesWriteNothing() throws {
        let output = folder.appendingPathComponent("out.mp4")
        for (take, reason) in [("missing.mp4", "no such file"), ("not-a-video.mp4", "not a media file")] {
            let run = try tool.run([
                Self.fixtures.appendingPathComponent("h264.mp4").path,
                Self.fixtures.appendingPathComponent(take).path, "-o", output.path, "--size", "64x64",
            ])
            #expect(run.status == 1)
            #expect(run.errorLines.count == 1)
            #expect(run.errorLines.first?.hasPrefix("canvas-compose: canvas 1 (\(take)): \(reason)") == true)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        }
        try? FileManager.default.removeItem(at: folder)
    }

    /// An HLS playlist named like a video, posing as a take: exit 1, one line naming the canvas, the file and what it
    /// was, nothing written (FFmpeg never opens the file it lists).
    @Test func playlistPosingAsATakeIsRefused() throws {
        let playlist = folder.appendingPathComponent("take.mp4")
        let secret = Self.fixtures.appendingPathComponent("h264.mp4").path
        try Data("#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\n\(secret)\n#EXT-X-ENDLIST\n".utf8).write(to: playlist)
        let output = folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        let run = try tool.run([
            Self.fixtures.appendingPathComponent("h264.mp4").path, playlist.path, "-o",
            output.appendingPathComponent("board.mp4").path, "--size", "64x32",
        ])
        #expect(run.status == 1)
        #expect(
            run.errorLines == [
                "canvas-compose: canvas 1 (take.mp4): an HLS playlist: refused, it would open other files"
            ])
        #expect(try FileManager.default.contentsOfDirectory(atPath: output.path).isEmpty)
        try? FileManager.default.removeItem(at: folder)
    }

    /// Skipped under the sanitizers, whose runtime dies of SIGBUS under a file-size limit before the tool writes
    /// anything (see the canvas-thumb test).
    @Test(
        "under ulimit -f, a one-line write error naming the output and nothing left",
        .enabled(if: ProcessInfo.processInfo.environment["MULTICANVAS_SANITIZER"] == nil), .timeLimit(.minutes(10)))
    func fileSizeLimit() throws {
        let output = folder.appendingPathComponent("out.mp4")
        let run = try CanvasThumbUntrustedTests.limited(
            tool, [Self.fixtures.appendingPathComponent("h264.mp4").path, "-o", output.path, "--size", "64x64"])
        #expect(run.status == 1, "\(run.standardError)")
        let lines = run.standardError.split(separator: "\n")
        #expect(lines == ["canvas-compose: cannot write \(output.path): File too large"], "\(run.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        try? FileManager.default.removeItem(at: folder)
    }

    /// Usage errors: exit 2, the reason and the pointer to --help, nothing written.
    @Test(arguments: [
        (["a.mp4"], "no output"),
        (["-o", "x.mp4"], "no takes"),
        (["a.mp4", "-o", "x.mp4", "--size", "7x"], "--size expects"),
        (["a.mp4", "-o", "x.mp4", "--size", "721x1280"], "the output size 721x1280 must have even sides"),
        (["a.mp4", "-o", "x.mp4", "--gain", "3=1"], "--gain names take 3"),
        (["a.mp4", "-o", "x.mp4", "--pan", "0=2"], "canvas 0: pan must be"),
        (["a.mp4", "-o", "x.mp4", "--preset", "fastest"], "unknown preset fastest"),
        (["a.mp4", "b.mp4", "-o", "x.mp4", "--grid", "1x1"], "2 takes do not fit a 1x1 grid"),
        (["a.mp4", "-o", "x.mp4", "--bogus"], "unknown option '--bogus'"),
        (["a.mp4", "-o", "x.mp4", "--fps", "0.001"], "--fps expects a rate from 1 to 240"),
        (["a.mp4", "-o", "x.mp4", "--fps=1e-9"], "--fps expects a rate from 1 to 240"),
        (["a.mp4", "-o", "x.mp4", "--fps", "0/1"], "--fps expects a rate from 1 to 240"),
        (["a.mp4", "-o", ""], "-o: the output path is empty"),
        (["a.mp4", "-o", "x.mp4", "--gain", "1=1"], "--gain names take 1, but there is 1 take"),
        (["a.mp4", "-o", "x.mp4", "--fit", "--fill"], "--fit and --fill cannot be used together"),
        (["a.mp4", "-o", "x.mp4", "-o", "y.mp4"], "-o is given more than once"),
        (["a.mp4", "-o", "x.mp4", "--output=y.mp4"], "-o and --output cannot be used together"),
    ])
    func usageErrors(arguments: [String], message: String) throws {
        let run = try tool.run(arguments, in: folder)
        #expect(run.status == 2)
        #expect(run.errorLines.first?.hasPrefix("canvas-compose: \(message)") == true, "\(run.errorLines)")
        #expect(run.standardOutput.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        try? FileManager.default.removeItem(at: folder)
    }

    /// A rate as a fraction is accepted, and is the output's exact rate.
    @Test func fractionalFrameRate() throws {
        let output = folder.appendingPathComponent("out.mp4")
        let run = try tool.run([
            Self.fixtures.appendingPathComponent("h264.mp4").path, "-o", output.path, "--size", "64x64", "--fps",
            "24000/1001", "--preset", "ultrafast",
        ])
        #expect(run.status == 0, "\(run.standardError)")
        let probe = try runTool(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "v", "-show_entries", "stream=r_frame_rate", "-of", "csv=p=0",
                output.path,
            ])
        #expect(probe.outputText.trimmingCharacters(in: .whitespacesAndNewlines) == "24000/1001")
        try? FileManager.default.removeItem(at: folder)
    }

    /// Without a target, every preset writes H.264 High, as the docs say: `ultrafast` turns the 8x8 transform off,
    /// and libx264 would then state Constrained Baseline. Read by ffprobe.
    @Test(arguments: ["ultrafast", "veryfast"])
    func everyPresetWritesHigh(preset: String) throws {
        let output = folder.appendingPathComponent("\(preset).mp4")
        let run = try tool.run([
            Self.fixtures.appendingPathComponent("h264.mp4").path, "-o", output.path, "--size", "64x64", "--preset",
            preset,
        ])
        #expect(run.status == 0, "\(run.standardError)")
        let probe = try runTool(
            "ffprobe",
            ["-v", "error", "-select_streams", "v", "-show_entries", "stream=profile", "-of", "csv=p=0", output.path])
        #expect(probe.outputText.trimmingCharacters(in: .whitespacesAndNewlines) == "High")
        try? FileManager.default.removeItem(at: folder)
    }

    /// `canvas-compose in.mp4 -o in.mp4` (or the same file under another name) is refused and the take kept, as the
    /// ffmpeg command refuses it.
    @Test func outputNeverReplacesATake() throws {
        let take = folder.appendingPathComponent("in.mp4")
        try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent("h264.mp4"), to: take)
        let link = folder.appendingPathComponent("link.mp4")
        try FileManager.default.linkItem(at: take, to: link)
        let before = try Data(contentsOf: take)
        for output in [take, link] {
            let run = try tool.run([take.path, "-o", output.path, "--size", "64x64"])
            #expect(run.status == 1)
            #expect(
                run.errorLines == [
                    "canvas-compose: cannot write \(output.path): it is the file of take 0 (\(take.path)); an output "
                        + "never replaces a take"
                ])
        }
        #expect(try Data(contentsOf: take) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["in.mp4", "link.mp4"])
        try? FileManager.default.removeItem(at: folder)
    }

    /// A malformed plan: one line naming the file and what JSON said, no error-domain dump.
    @Test func malformedPlanIsOneLine() throws {
        let plan = folder.appendingPathComponent("plan.json")
        try Data("{\"takes\": [".utf8).write(to: plan)
        let run = try tool.run(["--plan", plan.path, "-o", folder.appendingPathComponent("x.mp4").path])
        #expect(run.status == 2)
        #expect(run.errorLines.first?.hasPrefix("canvas-compose: \(plan.path): not valid JSON (") == true)
        #expect(!run.standardError.contains("NSCocoaErrorDomain") && !run.standardError.contains("UserInfo"))
        try? FileManager.default.removeItem(at: folder)
    }

    @Test func helpAndVersion() throws {
        let help = try tool.run(["--help"])
        #expect(help.status == 0)
        #expect(help.standardOutput.hasPrefix("usage: canvas-compose TAKE... -o OUT.mp4"))
        let version = try tool.run(["--version"])
        #expect(version.status == 0)
        #expect(version.standardOutput.hasPrefix("canvas-compose "))
    }
}

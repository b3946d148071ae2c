import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The tools that compose (canvas-compose, canvas-sim --compose) stopped by SIGTERM or SIGINT: the temporary file is
/// removed and the status is the shell's (143, 130); and canvas-sim --compose mixes an audio-only take as
/// canvas-compose does.
@Suite("Composing tools: signals clean up, audio-only takes are composed", .serialized)
struct ComposeSignalTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder(prefix: "ComposeSignalTests")
    }

    /// A take long enough (two minutes) that a 720x1280 composition of it is still running when the signal comes.
    func longTake() throws -> URL {
        let take = folder.url.appending(path: "long.mp4")
        let made = try runTool(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30:duration=120", "-c:v",
                "libx264", "-preset", "ultrafast", take.path,
            ])
        try #require(made.status == 0, "\(made.errorText)")
        return take
    }

    @Test(arguments: [
        ("canvas-compose", SIGTERM, Int32(143)), ("canvas-compose", SIGINT, 130), ("canvas-sim", SIGTERM, 143),
        ("canvas-sim", SIGINT, 130),
    ])
    func signalRemovesTheTemporaryFile(tool: String, signal: Int32, status: Int32) throws {
        let take = try longTake()
        let out = folder.url.appending(path: "out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let output = out.appending(path: "board.mp4").path
        let arguments =
            tool == "canvas-compose"
            ? [take.path, "-o", output, "--preset", "veryslow"]
            : ["--events", "tap 0; record; stop \(take.path)", "--cells", "1", "--compose", output]
        let binary = try BuiltBinary(tool)
        let process = try RawProcess(binary.url, arguments.map { Array($0.utf8) })
        // The temporary file appears once the takes are open and the encoder writes.
        var temporary: String?
        for _ in 0..<2400 where temporary == nil {
            temporary = try FileManager.default.contentsOfDirectory(atPath: out.path).first { $0.hasPrefix(".") }
            if temporary == nil { usleep(50_000) }
        }
        try #require(temporary != nil, "no temporary file appeared")
        kill(process.pid, signal)
        let run = try process.wait()
        #expect(run.status == status, "\(run.standardError)")
        #expect(run.errorLines.last?.hasSuffix("cancelled, nothing written") == true, "\(run.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).isEmpty)
    }

    @Test func canvasSimComposesAnAudioOnlyTake() throws {
        let fixtures = BuiltBinary.root.appending(path: "Fixtures")
        let output = folder.url.appending(path: "board.mp4")
        let events =
            "tap 0; record; stop \(fixtures.appending(path: "h264.mp4").path); tap 1; record; "
            + "stop \(fixtures.appending(path: "audio-only.m4a").path)"
        let run = try BuiltBinary("canvas-sim").run(["--events", events, "--cells", "2", "--compose", output.path])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(!run.standardError.contains("leaves out"), "\(run.standardError)")
        #expect(run.outputLines.last?.hasSuffix("2 takes)") == true, "\(run.outputLines.last ?? "")")
    }
}

import Foundation
import Testing

/// The example app of Examples/RecordingScreen, run as a user runs it: its session must end with every visible cell
/// showing what the board says its canvas shows, real covers from the recorded takes, and no reload.
@Suite("The recording-screen example")
struct ExampleTests {
    @Test("the example's wiring (every file but main.swift) stays within 120 lines: the adapter does the rest")
    func wiringIsSmall() throws {
        let folder = BuiltBinary.root.appendingPathComponent("Examples/RecordingScreen")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".swift") && $0 != "main.swift" }
        let lines = try files.map { name in
            try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
                .split(separator: "\n", omittingEmptySubsequences: false).count - 1
        }
        #expect(files.count == 3, "\(files)")
        #expect(lines.reduce(0, +) <= 120, "\(zip(files, lines).map { "\($0): \($1)" })")
    }

    @Test("the example's session runs to the end: covers shown, the screen locked while recording, zero reloads")
    func sessionRuns() throws {
        let run = try BuiltBinary("recording-screen-example").run(["Fixtures/h264.mp4"])
        #expect(run.status == 0, "\(run.standardOutput)\n\(run.standardError)")
        let lines = run.outputLines
        #expect(lines.last == "reloads: 0, cells that showed something else than their canvas: 0")
        #expect(lines.contains("tap 1 while recording -> rejected: locked while recording: canvas 2 is recording"))
        #expect(lines.contains("  canvas 2: cover + cover image"), "the finished take's cover, pulled from its file")
        #expect(lines.contains("  canvas 2: playback + cover image"), "another canvas records: the take plays")
        #expect(lines.contains("  camera: move preview 0 -> 2"), "the preview moves without a reload")
        #expect(lines.contains("  camera: take discarded 0"), "cancel throws the take being recorded away")
    }

    @Test("footage that is not a readable file is refused before the session, naming the path, with exit 3")
    func missingFootage() throws {
        for path in ["Fixtures/no-such-video.mp4", "Fixtures"] {
            let run = try BuiltBinary("recording-screen-example").run([path])
            #expect(run.status == 3)
            #expect(run.standardError == "recording-screen-example: no readable video file at \(path)\n")
            #expect(run.standardOutput.isEmpty, "nothing of the session ran")
        }
    }

    @Test("the example refuses to run without its footage, with a usage line and exit 2")
    func usage() throws {
        let run = try BuiltBinary("recording-screen-example").run([])
        #expect(run.status == 2)
        #expect(run.standardError.hasPrefix("usage: recording-screen-example VIDEO"))
    }
}

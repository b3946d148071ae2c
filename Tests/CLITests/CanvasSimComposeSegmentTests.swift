import Foundation
import TestSupport
import Testing

@Suite("canvas-sim --compose: segments and music")
struct CanvasSimComposeSegmentTests {
    /// A take recorded in two segments (`record`, `stop`, `resume`, `stop`) and the board's music: composed as one
    /// take of 4 s (the two 2 s segments back to back), the looped music under it not lengthening it.
    @Test func composesSegmentsAndMusic() throws {
        let folder = try TemporaryFolder(prefix: "canvas-sim-segments")
        let fixture = BuiltBinary.root.appending(path: "Fixtures/h264.mp4")
        let first = folder.url.appending(path: "a1.mp4")
        let second = folder.url.appending(path: "a2.mp4")
        try FileManager.default.copyItem(at: fixture, to: first)
        try FileManager.default.copyItem(at: fixture, to: second)
        let music = BuiltBinary.root.appending(path: "Fixtures/audio-only.m4a").path
        let output = folder.url.appending(path: "board.mp4")
        let events = "tap 0; record; stop \(first.path); resume; stop \(second.path); music \(music) 0 gain 0.5 loop"
        let run = try BuiltBinary("canvas-sim").run(["--events", events, "--cells", "2", "--compose", output.path])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(!run.standardError.contains("leaves out"), "\(run.standardError)")
        #expect(run.outputLines.last?.hasSuffix("120 frames, 4.00 s, 1 take)") == true, "\(run.outputLines.last ?? "")")
    }

    /// Music the composer cannot read is left out with a warning, and the takes are composed without it.
    @Test func unreadableMusicIsLeftOut() throws {
        let folder = try TemporaryFolder(prefix: "canvas-sim-music")
        let fixture = BuiltBinary.root.appending(path: "Fixtures/h264.mp4").path
        let output = folder.url.appending(path: "board.mp4")
        let gone = folder.url.appending(path: "gone.m4a").path
        let run = try BuiltBinary("canvas-sim").run([
            "--events", "tap 0; record; stop \(fixture); music \(gone)", "--cells", "1", "--compose", output.path,
        ])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.errorLines == ["canvas-sim: warning: --compose leaves out music (gone.m4a): no such file"])
        #expect(FileManager.default.fileExists(atPath: output.path))
    }
}

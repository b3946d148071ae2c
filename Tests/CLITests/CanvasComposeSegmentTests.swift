import Foundation
import TestSupport
import Testing

@Suite("canvas-compose: segments joined by + and --music")
struct CanvasComposeSegmentTests {
    let tool: BuiltBinary
    let folder: URL

    init() throws {
        tool = try BuiltBinary("canvas-compose")
        folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "canvas-compose-segments-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    static let take = BuiltBinary.root.appendingPathComponent("Fixtures/h264.mp4").path

    /// A take of three segments (the 2 s fixture three times) and one of the fixture alone, with music looped under
    /// them at half gain: the output lasts the segmented take's 6 s (the music does not lengthen it).
    @Test func segmentsAndMusicCompose() throws {
        let output = folder.appendingPathComponent("out.mp4")
        let run = try tool.run([
            "\(Self.take)+\(Self.take)+\(Self.take)", Self.take, "-o", output.path, "--size", "64x32", "--preset",
            "ultrafast", "--music", Self.take, "--music-start", "-0.5", "--music-gain", "0.5", "--music-loop", "--json",
        ])
        #expect(run.status == 0, "\(run.standardError)")
        let object = try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any]
        #expect(abs((object?["duration"] as? Double ?? 0) - 6) < 0.01, "\(run.standardOutput)")
        #expect(object?["frames"] as? Int == 180)
        try? FileManager.default.removeItem(at: folder)
    }

    @Test(arguments: [
        (["a.mp4", "-o", "o.mp4", "--music-start", "1"], "--music-start needs --music FILE"),
        (["a.mp4", "-o", "o.mp4", "--music-loop"], "--music-loop needs --music FILE"),
        (["a.mp4", "-o", "o.mp4", "--music", "m.m4a", "--music-gain", "loud"], "--music-gain expects a number"),
        (["a.mp4", "-o", "o.mp4", "--music", "m.m4a", "--music-start", "nan"], "--music-start expects a number"),
        (["a.mp4", "-o", "o.mp4", "--music", "m.m4a", "--music-gain", "-1"], "music: gain must be a number"),
        (["a.mp4", "-o", "o.mp4", "--music", ""], "--music: the file name is empty"),
        (["a.mp4+", "-o", "o.mp4"], "take 'a.mp4+' has an empty segment: segments are joined by +"),
        (["a.mp4++b.mp4", "-o", "o.mp4"], "take 'a.mp4++b.mp4' has an empty segment"),
    ])
    func usageErrors(arguments: [String], message: String) throws {
        let run = try tool.run(arguments, in: folder)
        #expect(run.status == 2)
        #expect(run.errorLines.first?.hasPrefix("canvas-compose: \(message)") == true, "\(run.errorLines)")
        #expect(run.standardOutput.isEmpty)
        try? FileManager.default.removeItem(at: folder)
    }

    /// A missing segment or music file: exit 1, one line naming it, nothing written.
    @Test func missingSegmentOrMusicWritesNothing() throws {
        let output = folder.appendingPathComponent("out.mp4")
        let cases = [
            ([Self.take, "\(Self.take)+\(folder.path)/gone.mp4"], "canvas 1 (gone.mp4): no such file"),
            ([Self.take, "--music", folder.appendingPathComponent("gone.m4a").path], "music (gone.m4a): no such file"),
        ]
        for (arguments, message) in cases {
            let run = try tool.run(arguments + ["-o", output.path, "--size", "64x32"])
            #expect(run.status == 1)
            #expect(run.errorLines == ["canvas-compose: \(message)"])
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        }
        try? FileManager.default.removeItem(at: folder)
    }
}

import Foundation
import Testing

@Suite("canvas-thumb, run as a user runs it")
struct CanvasThumbTests {
    let tool: BuiltBinary

    init() throws {
        tool = try BuiltBinary("canvas-thumb")
    }

    /// Width and height the JSON line reports, after checking the rest of its shape.
    private func coverSize(_ line: String, output: String) throws -> (Int, Int) {
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
        #expect(object["error"] is NSNull)
        #expect(object["output"] as? String == output)
        #expect((object["actualTime"] as? Double).map { $0 >= 0 } == true)
        return (try #require(object["width"] as? Int), try #require(object["height"] as? Int))
    }

    @Test(
        "every codec and rotation gives an upright cover of the right size",
        arguments: [
            ("h264.mp4", 160, 90), ("hevc.mp4", 160, 90), ("vp9.webm", 160, 90), ("mpeg4.avi", 160, 90),
            ("hevc-10bit.mp4", 160, 90), ("offset-timestamps.ts", 160, 90), ("one-frame.mp4", 160, 90),
            ("anamorphic.mp4", 160, 90), ("rotation-90.mp4", 90, 160), ("rotation-minus90.mp4", 90, 160),
            ("rotation-180.mp4", 160, 90), ("black-first-second.mp4", 160, 90),
        ])
    func everyCodecAndRotation(name: String, width: Int, height: Int) throws {
        let scratch = try ScratchFolder()
        let output = scratch.url.appendingPathComponent("cover.png").path
        let run = try tool.run(["Fixtures/\(name)", "-o", output, "--max-size", "160x160", "--json"])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.outputLines.count == 1)
        let size = try coverSize(try #require(run.outputLines.first), output: output)
        #expect(size == (width, height))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: output))
        #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]), "a PNG signature")
        #expect(scratch.contents == ["cover.png"], "no temporary file left")
    }

    @Test(
        "every broken input fails alone with a one-line reason, exit 1, and writes nothing",
        arguments: [
            ("empty.mp4", "empty"), ("not-a-video.mp4", "not a media file"), ("audio-only.m4a", "no video stream"),
            ("truncated-index-at-end.mp4", "moov atom not found"), ("missing.mp4", "missing.mp4"),
        ])
    func brokenInputs(name: String, reasonPart: String) throws {
        let scratch = try ScratchFolder()
        let output = scratch.url.appendingPathComponent("cover.png").path
        let run = try tool.run(["Fixtures/\(name)", "-o", output])
        #expect(run.status == 1)
        #expect(run.standardOutput.isEmpty)
        #expect(run.errorLines.count == 1)
        #expect(run.standardError.hasPrefix("canvas-thumb: "))
        #expect(run.standardError.contains(reasonPart), "\(run.standardError)")
        #expect(scratch.contents.isEmpty, "nothing half-written: \(scratch.contents)")
    }

    @Test("a mixed batch writes every good input, reports every bad one, in input order, exit 1")
    func mixedBatchJSON() throws {
        let scratch = try ScratchFolder()
        let names = ["h264.mp4", "empty.mp4", "vp9.webm", "audio-only.m4a", "rotation-90.mp4", "nothing-here.mp4"]
        let run = try tool.run(
            names.map { "Fixtures/\($0)" } + ["--output-dir", scratch.url.path, "--max-size", "64x64", "--jobs", "3", "--json"])
        #expect(run.status == 1)
        #expect(run.standardError.isEmpty, "JSON mode reports errors in the JSON only")
        let normalized = run.standardOutput.replacingOccurrences(of: scratch.url.path, with: "<out>")
            .replacingOccurrences(of: BuiltBinary.root.path + "/", with: "<root>/")
        let expected = try String(
            contentsOf: BuiltBinary.root.appendingPathComponent("Fixtures/cli/canvas-thumb-mixed-batch.jsonl"), encoding: .utf8)
        #expect(normalized == expected)
        #expect(scratch.contents == ["h264.png", "rotation-90.png", "vp9.png"])
    }

    @Test("an existing output is replaced atomically, and kept as it was when the new cover fails")
    func atomicReplacement() throws {
        let scratch = try ScratchFolder()
        let output = scratch.url.appendingPathComponent("take.png")
        try Data("previous cover".utf8).write(to: output)
        let failed = try tool.run(["Fixtures/not-a-video.mp4", "-o", output.path])
        #expect(failed.status == 1)
        #expect(try Data(contentsOf: output) == Data("previous cover".utf8))
        let replaced = try tool.run(["Fixtures/h264.mp4", "-o", output.path])
        #expect(replaced.status == 0)
        #expect(try Data(contentsOf: output).starts(with: [0x89, 0x50, 0x4E, 0x47]))
        #expect(scratch.contents == ["take.png"])
    }

    @Test("JPEG output, a time, a percentage, exact mode")
    func formatsAndTimes() throws {
        let scratch = try ScratchFolder()
        let jpeg = scratch.url.appendingPathComponent("a.jpg").path
        let run = try tool.run(["Fixtures/h264.mp4", "-o", jpeg, "--percent", "50", "--exact", "--json"])
        #expect(run.status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: jpeg)).starts(with: [0xFF, 0xD8, 0xFF]))
        let line = try #require(
            try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any])
        let time = try #require(line["actualTime"] as? Double)
        #expect(abs(time - 1.0) <= 0.04 + 1e-9, "the exact frame at 50% of 2 s")
        let png = scratch.url.appendingPathComponent("b.out").path
        let forced = try tool.run(["Fixtures/h264.mp4", "-o", png, "--format", "png", "--time", "1.5"])
        #expect(forced.status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: png)).starts(with: [0x89, 0x50, 0x4E, 0x47]))
    }

    @Test("directories and - (paths on stdin) as inputs; names never collide")
    func directoriesAndStandardInput() throws {
        let scratch = try ScratchFolder()
        let run = try tool.run(
            ["-", "Fixtures/h264.mp4", "--output-dir", scratch.url.path, "--max-size", "32x32"],
            input: "Fixtures/h264.mp4\nFixtures/vp9.webm\n")
        #expect(run.status == 0, "\(run.standardError)")
        #expect(scratch.contents == ["h264-2.png", "h264.png", "vp9.png"])
        #expect(run.outputLines.count == 3)
        #expect(run.standardError.isEmpty, "no progress bar when stderr is not a terminal")

        let folder = try ScratchFolder()
        let nested = folder.url.appendingPathComponent("takes/day1")
        try FileManager.default.createDirectory(at: nested, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: BuiltBinary.root.appendingPathComponent("Fixtures/hevc.mp4"), to: nested.appendingPathComponent("x.mp4"))
        try Data("notes".utf8).write(to: folder.url.appendingPathComponent("takes/readme.txt"))
        let out = try ScratchFolder()
        let walked = try tool.run([folder.url.appendingPathComponent("takes").path, "--output-dir", out.url.path])
        #expect(walked.status == 0, "\(walked.standardError)")
        #expect(out.contents == ["x.png"])
    }

    @Test(
        "usage errors exit 2 with a one-line message naming the problem",
        arguments: [
            ([String](), "no input given"),
            (["a.mp4", "b.mp4", "-o", "x.png"], "-o takes a single input"),
            (["a.mp4", "--max-size", "big"], "--max-size takes WxH"),
            (["a.mp4", "--time", "1", "--percent", "5"], "--time and --percent cannot be used together"),
            (["a.mp4", "--percent", "150"], "--percent must be between 0 and 100"),
            (["a.mp4", "--time", "soon"], "--time takes a number"),
            (["a.mp4", "--format", "gif"], "--format takes png or jpeg"),
            (["a.mp4", "--jobs", "0"], "--jobs takes a whole number >= 1"),
            (["a.mp4", "--frobnicate"], "unknown option '--frobnicate'"),
            (["a.mp4", "--output-dir", "/no/such/folder"], "output directory '/no/such/folder' does not exist"),
            (["a.mp4", "-o"], "-o needs a value"),
        ])
    func usageErrors(arguments: [String], message: String) throws {
        let run = try tool.run(arguments)
        #expect(run.status == 2)
        #expect(run.standardOutput.isEmpty)
        #expect(run.errorLines.first == "canvas-thumb: \(message)" || run.errorLines.first?.hasPrefix("canvas-thumb: \(message)") == true,
            "\(run.standardError)")
    }

    @Test("--help prints the usage and exits 0")
    func help() throws {
        let run = try tool.run(["--help"])
        #expect(run.status == 0)
        #expect(run.standardOutput.hasPrefix("usage: canvas-thumb INPUT..."))
    }
}

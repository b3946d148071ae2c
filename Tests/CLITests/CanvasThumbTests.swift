import Foundation
import TestSupport
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
            (
                "truncated-index-at-end.mp4",
                "damaged or truncated file (mov,mp4,m4a,3gp,3g2,mj2): Invalid data found when processing input (moov atom not found)"
            ), ("missing.mp4", "missing.mp4"),
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
            names.map { "Fixtures/\($0)" } + [
                "--output-dir", scratch.url.path, "--max-size", "64x64", "--jobs", "3", "--json",
            ])
        #expect(run.status == 1)
        #expect(run.standardError.isEmpty, "JSON mode reports errors in the JSON only")
        let normalized = run.standardOutput.replacingOccurrences(of: scratch.url.path, with: "<out>")
            .replacingOccurrences(of: BuiltBinary.root.path + "/", with: "<root>/")
        let expected = try String(
            contentsOf: BuiltBinary.root.appendingPathComponent("Fixtures/cli/canvas-thumb-mixed-batch.jsonl"),
            encoding: .utf8)
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
            at: BuiltBinary.root.appendingPathComponent("Fixtures/hevc.mp4"), to: nested.appendingPathComponent("x.mp4")
        )
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
            (["a.mp4", "--max-size", "big"], "--max-size takes N or WxH"),
            (["a.mp4", "--time", "1", "--percent", "5"], "--time and --percent cannot be used together"),
            (["a.mp4", "--percent", "150"], "--percent takes a percentage from 0 to 100"),
            (["a.mp4", "--time", "soon"], "--time takes seconds, HH:MM:SS[.ms] or P%"),
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
        #expect(
            run.errorLines.first == "canvas-thumb: \(message)"
                || run.errorLines.first?.hasPrefix("canvas-thumb: \(message)") == true,
            "\(run.standardError)")
    }

    @Test("--json objects have exactly the seven documented fields; warnings go to stderr, naming the input")
    func jsonFieldsAreExact() throws {
        let scratch = try ScratchFolder()
        let output = scratch.url.appendingPathComponent("cut.png").path
        // The index says 3 s, the data stops at 1.5 s: the cover comes with warnings.
        let input = "Fixtures/truncated-index-at-front.mp4"
        let run = try tool.run([input, "-o", output, "--time", "2.5", "--json"])
        #expect(run.status == 0, "\(run.standardError)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["input", "output", "width", "height", "actualTime", "error", "errorKind"])
        #expect(!run.errorLines.isEmpty)
        for line in run.errorLines {
            #expect(line.hasPrefix("canvas-thumb: warning: \(input): "), "\(line)")
        }
    }

    @Test(
        "an output location that cannot be written is a usage error, before any decoding",
        arguments: [
            (
                ["Fixtures/h264.mp4", "-o", "/no/such/folder/x.png"],
                "output directory '/no/such/folder' does not exist"
            ),
            (
                ["Fixtures/h264.mp4", "--output-dir", "Package.swift"],
                "output directory 'Package.swift' is not a directory"
            ),
            (["Fixtures/h264.mp4", "-o", "Fixtures"], "-o 'Fixtures' is a directory"),
            (["Fixtures", "-o", "/tmp/x.png"], "-o takes a single input, but Fixtures holds"),
        ])
    func unwritableOutputs(arguments: [String], message: String) throws {
        let run = try tool.run(arguments)
        #expect(run.status == 2)
        #expect(run.standardOutput.isEmpty)
        #expect(run.errorLines.count == 1)
        #expect(run.errorLines.first?.hasPrefix("canvas-thumb: \(message)") == true, "\(run.standardError)")
    }

    @Test("no cover ever replaces an input: -o naming the input is refused; a same-named input is kept")
    func inputsAreNeverOverwritten() throws {
        let scratch = try ScratchFolder()
        let video = scratch.url.appendingPathComponent("take.mp4")
        try FileManager.default.copyItem(at: BuiltBinary.root.appendingPathComponent("Fixtures/h264.mp4"), to: video)
        let original = try Data(contentsOf: video)
        let itself = try tool.run([video.path, "-o", video.path, "--format", "png"])
        #expect(itself.status == 2)
        #expect(itself.standardError.contains("is the input itself"), "\(itself.standardError)")
        #expect(try Data(contentsOf: video) == original)

        // A video stored under an image's name, given as input and written beside itself.
        let still = scratch.url.appendingPathComponent("still.png")
        try FileManager.default.copyItem(at: video, to: still)
        let beside = try tool.run([still.path, "--output-dir", scratch.url.path, "--json"])
        #expect(beside.status == 0, "\(beside.standardError)")
        #expect(try Data(contentsOf: still) == original, "the input is untouched")
        #expect(scratch.contents == ["still-2.png", "still.png", "take.mp4"])
    }

    @Test(
        "as an ordinary user: an unlistable folder is reported, an unwritable output folder is a usage error",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") || geteuid() != 0))
    func permissions() throws {
        let scratch = try ScratchFolder()
        let manager = FileManager.default
        let inputs = scratch.url.appendingPathComponent("in")
        let locked = inputs.appendingPathComponent("locked")
        try manager.createDirectory(at: locked, withIntermediateDirectories: true)
        let fixture = BuiltBinary.root.appendingPathComponent("Fixtures/h264.mp4")
        try manager.copyItem(at: fixture, to: inputs.appendingPathComponent("a.mp4"))
        try manager.copyItem(at: fixture, to: locked.appendingPathComponent("b.mp4"))
        let writable = scratch.url.appendingPathComponent("out")
        let readOnly = scratch.url.appendingPathComponent("read-only")
        try manager.createDirectory(at: writable, withIntermediateDirectories: false)
        try manager.createDirectory(at: readOnly, withIntermediateDirectories: false)
        try manager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: scratch.url.path)
        try manager.setAttributes([.posixPermissions: 0o777], ofItemAtPath: writable.path)
        try manager.setAttributes([.posixPermissions: 0o555], ofItemAtPath: readOnly.path)
        try manager.setAttributes([.posixPermissions: 0o000], ofItemAtPath: locked.path)
        defer { try? manager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: locked.path) }

        let listed = try runAsOrdinaryUser([inputs.path, "--output-dir", writable.path, "--json"])
        #expect(listed.status == 1, "the unlistable folder is a failure")
        let lines = listed.outputLines
        #expect(lines.count == 2)
        #expect(
            lines.first?.contains(
                "\"error\":\"\(locked.path): cannot list the directory: Permission denied\",\"errorKind\":\"unreadable\""
            )
                == true)
        #expect(lines.last?.contains("\"error\":null") == true, "the other input is still written")
        #expect(manager.fileExists(atPath: writable.appendingPathComponent("a.png").path))

        let unwritable = try runAsOrdinaryUser([
            inputs.appendingPathComponent("a.mp4").path, "--output-dir", readOnly.path,
        ])
        #expect(unwritable.status == 2)
        #expect(
            unwritable.errorLines == [
                "canvas-thumb: output directory '\(readOnly.path)' is not writable: Permission denied"
            ])
    }

    @Test(
        "as an ordinary user: a walk never skips silently: an entry it cannot examine is a failed input, exit 1",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") || geteuid() != 0))
    func unexaminableEntry() throws {
        let scratch = try ScratchFolder()
        let manager = FileManager.default
        let inputs = scratch.url.appendingPathComponent("in")
        // Readable but not searchable: its names can be listed, but nothing in it can be examined.
        let listOnly = inputs.appendingPathComponent("list-only")
        try manager.createDirectory(at: listOnly, withIntermediateDirectories: true)
        let fixture = BuiltBinary.root.appendingPathComponent("Fixtures/h264.mp4")
        try manager.copyItem(at: fixture, to: inputs.appendingPathComponent("a.mp4"))
        try manager.copyItem(at: fixture, to: listOnly.appendingPathComponent("b.mp4"))
        let out = scratch.url.appendingPathComponent("out")
        try manager.createDirectory(at: out, withIntermediateDirectories: false)
        try manager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: scratch.url.path)
        try manager.setAttributes([.posixPermissions: 0o777], ofItemAtPath: out.path)
        try manager.setAttributes([.posixPermissions: 0o744], ofItemAtPath: listOnly.path)
        defer { try? manager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: listOnly.path) }

        let run = try runAsOrdinaryUser([inputs.path, "--output-dir", out.path, "--json"])
        #expect(run.status == 1, "an entry that could not be examined is a failure")
        let lines = run.outputLines
        #expect(lines.count == 2, "\(run.standardOutput)")
        let entry = listOnly.appendingPathComponent("b.mp4").path
        #expect(
            lines.first?.contains(#""error":"\#(entry): cannot read the directory entry: Permission denied""#) == true,
            "\(lines)")
        #expect(lines.last?.contains("\"error\":null") == true, "the other input is still written")
    }

    /// Runs canvas-thumb as `nobody` when the tests run as root (who may read and write anything).
    private func runAsOrdinaryUser(_ arguments: [String]) throws -> BuiltBinary.Run {
        guard geteuid() == 0 else { return try tool.run(arguments) }
        let result = try runSubprocess(
            URL(fileURLWithPath: "/usr/bin/setpriv"),
            ["--reuid=65534", "--regid=65534", "--clear-groups", tool.url.path] + arguments, in: BuiltBinary.root)
        return BuiltBinary.Run(
            status: result.status, standardOutput: result.outputText, standardError: result.errorText)
    }

    @Test("--help prints the usage and exits 0")
    func help() throws {
        let run = try tool.run(["--help"])
        #expect(run.status == 0)
        #expect(run.standardOutput.hasPrefix("usage: canvas-thumb INPUT..."))
    }
}

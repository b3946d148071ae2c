import Foundation
import Testing

@Suite("canvas-sim, run as a user runs it")
struct CanvasSimTests {
    let tool: BuiltBinary

    init() throws {
        tool = try BuiltBinary("canvas-sim")
    }

    static let folder = BuiltBinary.root.appendingPathComponent("Fixtures/sim")

    /// The scripts with expected transcripts (every `Fixtures/sim/*.script` except the malformed `bad-*` ones).
    static let transcribed: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".script") && !$0.hasPrefix("bad-") }
            .map { String($0.dropLast(".script".count)) }.sorted()
    }()

    /// The options a script asks for on its first line (`# options: --cells 8 --visible 3`).
    private func extraOptions(_ name: String) throws -> [String] {
        let text = try String(contentsOf: Self.folder.appendingPathComponent("\(name).script"), encoding: .utf8)
        let first = text.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? ""
        guard first.hasPrefix("# options: ") else { return [] }
        return first.dropFirst("# options: ".count).split(separator: " ").map(String.init)
    }

    private func expected(_ file: String) throws -> String {
        try String(contentsOf: Self.folder.appendingPathComponent(file), encoding: .utf8)
    }

    @Test("the transcribed scripts are the ones the issue asks for")
    func fixtureSet() {
        for name in [
            "requirement-cover", "requirement-ready", "requirement-switch", "requirement-add-button",
            "locked-while-recording", "switching-preview", "cancel", "delete", "add-remove", "scroll-reuse",
            "disappear-appear", "out-of-range", "covers", "empty", "demo",
        ] {
            #expect(Self.transcribed.contains(name), "Fixtures/sim/\(name).script")
        }
    }

    @Test("text output matches the transcript", arguments: transcribed)
    func textTranscript(name: String) throws {
        let run = try tool.run(["--script", "Fixtures/sim/\(name).script"] + extraOptions(name))
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput == (try expected("\(name).txt")), "regenerate with Tools/update-sim-transcripts.sh")
        #expect(!run.standardOutput.contains(BuiltBinary.root.path), "no absolute path")
        #expect(run.standardOutput.contains("reloads: 0"))
        #expect(run.standardOutput.contains("stale cells: 0"))
        #expect(run.standardOutput.contains("registration violations: 0"))
    }

    @Test("JSON output matches the transcript, one object per step with the contract's fields", arguments: transcribed)
    func jsonTranscript(name: String) throws {
        let run = try tool.run(["--script", "Fixtures/sim/\(name).script", "--format", "json"] + extraOptions(name))
        #expect(run.status == 0, "\(run.standardError)")
        #expect(
            run.standardOutput == (try expected("\(name).jsonl")), "regenerate with Tools/update-sim-transcripts.sh")
        for (offset, line) in run.outputLines.enumerated() {
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not an object: \(line)")
            #expect(
                Set(object.keys) == [
                    "step", "event", "accepted", "reason", "canvases", "effects", "screen", "music", "mic",
                ],
                "exactly the contract's fields")
            let screen = try #require(object["screen"] as? [String: Any])
            #expect(Set(screen.keys) == ["viewport", "preview"])
            #expect(screen["viewport"] is NSNull || (screen["viewport"] as? [Int])?.count == 2)
            #expect(screen["preview"] is NSNull || screen["preview"] is Int)
            #expect(object["step"] as? Int == offset + 1)
            #expect(object["event"] is String)
            let accepted = try #require(object["accepted"] as? Bool)
            #expect(accepted == (object["reason"] is NSNull))
            #expect(object["effects"] is [Any])
            let canvases = try #require(object["canvases"] as? [[String: Any]])
            for (index, canvas) in canvases.enumerated() {
                #expect(Set(canvas.keys) == ["index", "status", "selected", "video", "segments", "undoArmed", "shows"])
                #expect(canvas["index"] as? Int == index)
                #expect(["noPreview", "inPreview", "recording"].contains(canvas["status"] as? String))
                #expect(canvas["selected"] is Bool)
                #expect(canvas["video"] is String || canvas["video"] is NSNull)
                #expect(
                    ["livePreview", "recording", "cover", "playback", "addButton"].contains(canvas["shows"] as? String))
            }
        }
    }

    @Test("--events runs like a script: the exact JSON line of the contract, playback while another canvas records")
    func eventsOption() throws {
        let run = try tool.run(
            ["--events", "tap 0; record; stop Fixtures/h264.mp4; tap 1; record", "--format", "json", "--cells", "2"])
        #expect(run.status == 0)
        #expect(
            run.outputLines.first
                == #"{"step":1,"event":"tap 0","accepted":true,"reason":null,"canvases":[{"index":0,"status":"inPreview","selected":true,"video":null,"segments":[],"undoArmed":false,"shows":"livePreview"},{"index":1,"status":"noPreview","selected":false,"video":null,"segments":[],"undoArmed":false,"shows":"addButton"}],"effects":["attach preview to 0"],"screen":{"viewport":[0,1],"preview":0},"music":null,"mic":true}"#
        )
        #expect(run.outputLines.count == 5)
        #expect(
            run.outputLines.last?.contains(
                #""video":"Fixtures/h264.mp4","segments":["Fixtures/h264.mp4"],"undoArmed":false,"shows":"playback""#)
                == true)
    }

    @Test(
        "a malformed script exits 2 and names the line and column, printing no step",
        arguments: [
            ("bad-unknown-word", "line 3, column 1: unknown event 'tapp' (did you mean 'tap'?)"),
            ("bad-missing-argument", "line 1, column 14: 'delete' needs a canvas index, e.g. 'delete 0'"),
            ("bad-not-a-number", "line 3, column 8: 'remove' expects a canvas index (an integer), got 'two'"),
        ])
    func malformedScript(name: String, message: String) throws {
        for format in ["text", "json"] {
            let run = try tool.run(["--script", "Fixtures/sim/\(name).script", "--format", format])
            #expect(run.status == 2)
            #expect(run.standardOutput.isEmpty)
            #expect(run.errorLines == ["canvas-sim: Fixtures/sim/\(name).script: \(message)"])
        }
    }

    @Test("a malformed --events names the line and column")
    func malformedEvents() throws {
        let run = try tool.run(["--events", "tap 0; stp"])
        #expect(run.status == 2)
        #expect(
            run.errorLines == ["canvas-sim: --events: line 1, column 8: unknown event 'stp' (did you mean 'stop'?)"])
    }

    @Test("a missing script file is a usage error, exit 2")
    func missingScript() throws {
        let run = try tool.run(["--script", "Fixtures/sim/no-such.script"])
        #expect(run.status == 2)
        #expect(run.standardOutput.isEmpty)
        #expect(run.errorLines == ["canvas-sim: cannot read script 'Fixtures/sim/no-such.script': no such file"])
    }

    @Test("a script that is a directory says so; one that is not UTF-8 names the first bad byte's place; exit 2")
    func unreadableScripts() throws {
        let directory = try tool.run(["--script", "Fixtures/sim"])
        #expect(directory.status == 2)
        #expect(directory.standardOutput.isEmpty)
        #expect(directory.errorLines == ["canvas-sim: cannot read script 'Fixtures/sim': it is a directory"])

        let binary = FileManager.default.temporaryDirectory.appendingPathComponent("canvas-sim-\(UUID()).script")
        try Data([0x74, 0x61, 0x70, 0x20, 0xFF, 0xFE, 0x0A]).write(to: binary)
        defer { try? FileManager.default.removeItem(at: binary) }
        let invalid = try tool.run(["--script", binary.path])
        #expect(invalid.status == 2)
        #expect(invalid.standardOutput.isEmpty)
        #expect(
            invalid.errorLines == [
                "canvas-sim: \(binary.path): line 1, column 5: not UTF-8 text: byte 0xFF cannot start or continue a character"
            ])
    }

    @Test("--script reads a pipe too (/dev/stdin)")
    func scriptFromPipe() throws {
        let run = try tool.run(["--script", "/dev/stdin", "--format", "json"], input: "tap 0; tap 9\n")
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.outputLines.count == 2)
        #expect(run.outputLines.first?.hasPrefix(#"{"step":1,"event":"tap 0","accepted":true"#) == true)
    }

    @Test("an empty script is valid: zero steps, a warning, exit 0")
    func emptyScript() throws {
        let run = try tool.run(["--script", "Fixtures/sim/empty.script", "--format", "json"])
        #expect(run.status == 0)
        #expect(run.standardOutput.isEmpty)
        #expect(run.errorLines == ["canvas-sim: warning: Fixtures/sim/empty.script has no events"])
    }

    @Test(
        "usage errors exit 2 with one error line and a one-line hint, never the whole usage",
        arguments: [
            ["--cells", "0", "--events", "tap 0"], ["--cells", "x", "--events", "tap 0"], ["--events"],
            ["--format", "xml", "--events", "tap 0"], ["--script", "a", "--events", "tap 0"], [],
            ["--export-table", "svg"], ["--export-table", "dot", "--events", "tap 0"], ["--bogus"], ["tap", "0"],
            ["--cells", "1000001", "--events", "tap 0"], ["--cells", "99999999999999999999", "--events", "tap 0"],
            ["--cells", "2", "--cells", "3", "--events", "tap 0"],
            ["--format", "json", "--format", "text", "--events", "tap 0"],
            ["--export-table", "dot", "--format", "json"], ["--export-table", "markdown", "--cells", "3"],
        ])
    func usageErrors(arguments: [String]) throws {
        let run = try tool.run(arguments)
        #expect(run.status == 2)
        #expect(run.standardOutput.isEmpty)
        #expect(run.errorLines.count == 2)
        #expect(run.errorLines.first?.hasPrefix("canvas-sim: ") == true)
        #expect(run.errorLines.last == "canvas-sim: run 'canvas-sim --help' for the options and the events")
        #expect(!run.standardError.contains("usage: canvas-sim"))
    }

    @Test("a script saved with a UTF-8 byte-order mark runs")
    func byteOrderMark() throws {
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("canvas-sim-bom-\(UUID()).script")
        try Data([0xEF, 0xBB, 0xBF] + Array("tap 0\ntap 1\n".utf8)).write(to: script)
        defer { try? FileManager.default.removeItem(at: script) }
        let run = try tool.run(["--script", script.path, "--format", "json"])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.outputLines.count == 2)
    }

    @Test("a long token is cut in its error line", arguments: [["--events"], ["--cells"], []])
    func longTokenCut(prefix: [String]) throws {
        let token = String(repeating: "x", count: 100_000)
        let run = try tool.run(prefix + [token] + (prefix.isEmpty ? ["--events", "tap 0"] : []))
        #expect(run.status == 2)
        #expect(run.errorLines.first?.contains("(100000 characters)") == true)
        #expect(run.standardError.count < 400)
    }

    @Test("--help prints the usage, exit 0")
    func help() throws {
        let run = try tool.run(["--help"])
        #expect(run.status == 0)
        #expect(run.standardOutput.hasPrefix("usage: canvas-sim"))
    }

    @Test("--export-table prints the golden tables", arguments: [("markdown", "md"), ("dot", "dot")])
    func exportTable(format: String, fileExtension: String) throws {
        let run = try tool.run(["--export-table", format])
        #expect(run.status == 0)
        let golden = try String(
            contentsOf: BuiltBinary.root.appendingPathComponent("Fixtures/transition-table.\(fileExtension)"),
            encoding: .utf8)
        #expect(run.standardOutput == golden)
    }

    @Test("--render writes a PNG of the board's grid size, atomically")
    func render() throws {
        let scratch = try ScratchFolder()
        let output = scratch.url.appendingPathComponent("board.png")
        let run = try tool.run(["--script", "Fixtures/sim/demo.script", "--render", output.path])
        #expect(run.status == 0, "\(run.standardError)")
        let bytes = [UInt8](try Data(contentsOf: output))
        #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), "a PNG signature")
        // IHDR: width and height, big-endian, at bytes 16..<24. Six canvases: 3 x 2 tiles of 160x120, 12 apart.
        func bigEndian(_ offset: Int) -> Int { bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
        #expect(bigEndian(16) == 12 + 3 * (160 + 12))
        #expect(bigEndian(20) == 12 + 2 * (120 + 12))
        #expect(scratch.contents == ["board.png"], "no temporary file left")
        #expect(run.outputLines.last == "picture: \(output.path) (528x276)")
    }

    @Test("--render into a folder that does not exist exits 1 after printing the steps")
    func renderFailure() throws {
        let run = try tool.run(["--events", "tap 0", "--render", "no-such-folder/board.png", "--format", "json"])
        #expect(run.status == 1)
        #expect(run.outputLines.count == 1)
        #expect(run.standardError.hasPrefix("canvas-sim: cannot write 'no-such-folder/board.png': "))
        #expect(!FileManager.default.fileExists(atPath: BuiltBinary.root.appendingPathComponent("no-such-folder").path))
    }

    @Test("--render of a board too large to draw exits 1 with the picture's size, before allocating it")
    func renderTooLarge() throws {
        let scratch = try ScratchFolder()
        let output = scratch.url.appendingPathComponent("board.png")
        let run = try tool.run(["--cells", "5000", "--events", "tap 0", "--format", "json", "--render", output.path])
        #expect(run.status == 1)
        #expect(run.outputLines.count == 1)
        #expect(
            run.errorLines == [
                "canvas-sim: cannot write '\(output.path)': a picture of 5000 canvases would have 12224x9384 pixels, "
                    + "more than 100 million"
            ])
        #expect(scratch.contents.isEmpty)
    }

    @Test("--interactive without a terminal reads one event per line, with the same output as a script")
    func lineInput() throws {
        let script = try String(
            contentsOf: Self.folder.appendingPathComponent("requirement-switch.script"), encoding: .utf8)
        for (format, file) in [("text", "requirement-switch.txt"), ("json", "requirement-switch.jsonl")] {
            let run = try tool.run(["--interactive", "--format", format], input: script)
            #expect(run.status == 0, "\(run.standardError)")
            #expect(run.standardOutput == (try expected(file)))
        }
    }

    @Test("--interactive without a terminal reports a malformed line with its number, runs the others, exits 2")
    func lineInputErrors() throws {
        let run = try tool.run(["--interactive", "--format", "json"], input: "tap 0\nrecrd\nrecord\nstop\nstop\n")
        #expect(run.status == 2)
        #expect(
            run.errorLines == ["canvas-sim: stdin: line 2, column 1: unknown event 'recrd' (did you mean 'record'?)"])
        #expect(run.outputLines.count == 4)
        #expect(run.outputLines[2].contains(#""event":"stop take-1.mov","accepted":true"#))
        #expect(run.outputLines[3].contains(#""event":"stop take-2.mov","accepted":false"#))
    }
}

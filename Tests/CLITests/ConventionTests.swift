import CommandLineSupport
import Foundation
import Testing

/// The command-line conventions both tools share: `--name=value` as well as `--name value`, `--version`, `-h` and
/// `--help`, and nothing but the requested output on stdout.
@Suite("Command-line conventions")
struct ConventionTests {
    @Test(
        "canvas-thumb reads --name=value exactly as --name value",
        arguments: [
            (["--max-size=64x64"], ["--max-size", "64x64"]),
            (["--format=jpeg", "--time=1"], ["--format", "jpeg", "--time", "1"]),
            (["--percent=50", "--jobs=1"], ["--percent", "50", "--jobs", "1"]),
        ])
    func canvasThumbEqualsForm(equals: [String], spaced: [String]) throws {
        let binary = try BuiltBinary("canvas-thumb")
        var outputs: [String] = []
        for form in [equals, spaced] {
            let folder = FileManager.default.temporaryDirectory.appending(path: "conventions-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let run = try binary.run(["Fixtures/h264.mp4", "--json", "--output-dir=\(folder.path)"] + form)
            #expect(run.status == 0, "\(form): \(run.standardError)")
            outputs.append(run.standardOutput.replacingOccurrences(of: folder.path, with: "OUT"))
        }
        #expect(outputs[0] == outputs[1])
        #expect(outputs[0].contains("\"error\":null"))
    }

    @Test("canvas-sim reads --name=value exactly as --name value")
    func canvasSimEqualsForm() throws {
        let binary = try BuiltBinary("canvas-sim")
        let equals = try binary.run(["--cells=3", "--format=json", "--events=tap 0; tap 2"])
        let spaced = try binary.run(["--cells", "3", "--format", "json", "--events", "tap 0; tap 2"])
        #expect(equals.status == 0, "\(equals.standardError)")
        #expect(equals.standardOutput == spaced.standardOutput)
        #expect(equals.outputLines.count == 2)
    }

    @Test("a flag given a value is named as unknown, and an option given twice is refused in either form")
    func equalsFormErrors() throws {
        let thumb = try BuiltBinary("canvas-thumb").run(["--json=1", "Fixtures/h264.mp4"])
        #expect(thumb.status == 2)
        #expect(thumb.errorLines.first == "canvas-thumb: unknown option '--json=1'")
        let sim = try BuiltBinary("canvas-sim").run(["--cells=3", "--cells", "4", "--events", "tap 0"])
        #expect(sim.status == 2)
        #expect(sim.errorLines.first == "canvas-sim: --cells is given more than once")
        let empty = try BuiltBinary("canvas-thumb").run(["--max-size=", "Fixtures/h264.mp4"])
        #expect(empty.status == 2)
        #expect(empty.errorLines.first?.contains("--max-size takes N or WxH") == true)
    }

    @Test(
        "--version prints the name and release on stdout and exits 0, whatever else is given",
        arguments: [
            "canvas-thumb", "canvas-sim",
        ])
    func version(tool: String) throws {
        let binary = try BuiltBinary(tool)
        let other = tool == "canvas-sim" ? ["--cells", "2"] : ["--json"]
        for arguments in [["--version"], ["--version"] + other, other + ["--version"]] {
            let run = try binary.run(arguments)
            #expect(run.status == 0, "\(arguments): \(run.standardError)")
            #expect(run.standardOutput == "\(tool) \(ToolVersion.current)\n")
            #expect(run.standardError.isEmpty)
        }
    }

    @Test(
        "-h and --help print the same usage on stdout, naming --version and the = form",
        arguments: [
            "canvas-thumb", "canvas-sim",
        ])
    func help(tool: String) throws {
        let binary = try BuiltBinary(tool)
        let short = try binary.run(["-h"])
        let long = try binary.run(["--help"])
        #expect(short.status == 0 && long.status == 0)
        #expect(short.standardOutput == long.standardOutput)
        #expect(long.standardOutput.hasPrefix("usage: \(tool)"))
        #expect(long.standardOutput.contains("--version"))
        #expect(long.standardOutput.contains("after '='"))
        #expect(long.standardError.isEmpty)
    }

    @Test("both tools draw a progress line (count, percentage, rate, time left) on a terminal, never into a pipe")
    func progressOnTerminal() throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "progress-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let script = folder.appending(path: "long.script")
        try (0..<3000).map { "tap \($0 % 4)" }.joined(separator: "\n").write(
            to: script, atomically: true, encoding: .utf8)

        let sim = try BuiltBinary("canvas-sim")
        let steps = folder.appending(path: "steps.jsonl")
        let started = ContinuousClock.now
        let simDrawn = try onTerminal(
            "'\(sim.url.path)' --script '\(script.path)' --format json >'\(steps.path)'")
        let took = ContinuousClock.now - started
        let redraws = simDrawn.components(separatedBy: "\u{1B}[2K[").count - 1
        let allowed = Int(took.components.seconds) * 10 + Int(took.components.attoseconds / 100_000_000_000_000_000) + 2
        #expect(redraws <= allowed, "at most ten redraws a second (and the last): \(redraws) in \(took)")
        #expect(simDrawn.contains("] 3000/3000 100% "), "the last count, drawn before the line is erased")
        #expect(simDrawn.contains("/s "), "a rate")
        #expect(simDrawn.contains(" left"), "the time left while steps remain")
        let written = try String(contentsOf: steps, encoding: .utf8)
        #expect(written.split(separator: "\n").count == 3000)
        #expect(!written.contains("\u{1B}"), "nothing of the progress line reaches the steps' file")

        let thumb = try BuiltBinary("canvas-thumb")
        let inputs = ["h264.mp4", "hevc.mp4", "rotation-90.mp4"].map { "Fixtures/\($0)" }.joined(separator: " ")
        let thumbDrawn = try onTerminal(
            "'\(thumb.url.path)' \(inputs) --max-size 32x32 --output-dir '\(folder.path)' >'\(folder.path)/covers.txt'")
        #expect(thumbDrawn.contains("] 1/3 33% "), "the count after the first cover")
        #expect(thumbDrawn.contains(" left"), "the time left while covers remain")
        #expect(thumbDrawn.contains("] 3/3 100% "))

        // The same runs into pipes: no progress at all.
        let piped = try sim.run(["--script", script.path, "--format", "json"])
        #expect(piped.standardError.isEmpty)
        let pipedThumb = try thumb.run(
            ["Fixtures/h264.mp4", "Fixtures/hevc.mp4", "--max-size", "32x32", "--output-dir", folder.path])
        #expect(pipedThumb.standardError.isEmpty)
    }
}

import Foundation
import Testing

/// What a user coming from ffmpegthumbnailer or a shell script expects of canvas-thumb: the format from `-o`'s name,
/// ffmpegthumbnailer's `-s`, `-t` and `-q`, a warning when `--jobs` is capped, a progress line that keeps still.
@Suite("canvas-thumb, as ffmpegthumbnailer users expect it", .timeLimit(.minutes(1)))
struct CanvasThumbUsabilityTests {
    let tool: BuiltBinary

    init() throws {
        tool = try BuiltBinary("canvas-thumb")
    }

    private static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47]
    private static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF]

    /// The JSON object of a one-input run.
    private func object(_ run: BuiltBinary.Run) throws -> [String: Any] {
        try #require(
            try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any],
            "not one JSON object: \(run.standardOutput) \(run.standardError)")
    }

    @Test(
        "-o's extension picks the format; --format may only agree with it",
        arguments: [
            (["-o", "a.png"], png), (["-o", "a.jpg"], jpeg), (["-o", "a.JPEG"], jpeg),
            (["-o", "a.jpg", "--format", "jpeg"], jpeg), (["-o", "a.PNG", "--format", "png"], png),
            // A name that says no image format takes what --format says; one without an extension is PNG.
            (["-o", "a.cover", "--format", "jpeg"], jpeg), (["-o", "a", "--format", "jpeg"], jpeg), (["-o", "a"], png),
        ])
    func formatFromExtension(arguments: [String], signature: [UInt8]) throws {
        let scratch = try ScratchFolder()
        let input = BuiltBinary.root.appendingPathComponent("Fixtures/h264.mp4").path
        let run = try tool.run([input, "--max-size", "32"] + arguments, in: scratch.url)
        #expect(run.status == 0, "\(run.standardError)")
        let written = try Data(contentsOf: scratch.url.appendingPathComponent(arguments[1]))
        #expect(written.starts(with: signature))
    }

    @Test(
        "a format -o's name and --format disagree on, or an extension canvas-thumb does not write, is a usage error",
        arguments: [
            (["-o", "x.png", "--format", "jpeg"], "-o 'x.png' names a PNG file, but --format is jpeg"),
            (["-o", "x.jpg", "--format", "png"], "-o 'x.jpg' names a JPEG file, but --format is png"),
            (
                ["-o", "x.webp"],
                "-o 'x.webp': canvas-thumb writes .png, .jpg or .jpeg, not .webp (or give --format png|jpeg)"
            ),
        ])
    func formatConflicts(arguments: [String], message: String) throws {
        let scratch = try ScratchFolder()
        let run = try tool.run(
            [BuiltBinary.root.appendingPathComponent("Fixtures/h264.mp4").path] + arguments, in: scratch.url)
        #expect(run.status == 2)
        #expect(run.standardOutput.isEmpty)
        #expect(run.errorLines == ["canvas-thumb: \(message)", "run 'canvas-thumb --help' for usage"])
        #expect(scratch.contents.isEmpty, "nothing written")
    }

    @Test("-s N and --max-size N bound the longest side, as ffmpegthumbnailer's -s does; WxH still fits a box")
    func longestSide() throws {
        let cases: [([String], String, Int, Int)] = [
            (["-s", "64"], "h264.mp4", 64, 36), (["--max-size", "64"], "rotation-90.mp4", 36, 64),
            (["--max-size=64"], "h264.mp4", 64, 36), (["-s", "64x20"], "h264.mp4", 36, 20),
            (["-s", "0"], "h264.mp4", 320, 180),
        ]
        for (arguments, input, width, height) in cases {
            let scratch = try ScratchFolder()
            let output = scratch.url.appendingPathComponent("c.png").path
            let run = try tool.run(["Fixtures/\(input)", "-o", output, "--json"] + arguments)
            #expect(run.status == 0, "\(arguments): \(run.standardError)")
            let line = try object(run)
            #expect(line["width"] as? Int == width && line["height"] as? Int == height, "\(arguments): \(line)")
        }
    }

    @Test("-t takes seconds, HH:MM:SS[.ms] and P%, each the same frame as --time / --percent")
    func timeForms() throws {
        let scratch = try ScratchFolder()
        let output = scratch.url.appendingPathComponent("c.png").path
        func actualTime(_ arguments: [String]) throws -> Double {
            let run = try tool.run(["Fixtures/h264.mp4", "-o", output, "--exact", "--json"] + arguments)
            #expect(run.status == 0, "\(arguments): \(run.standardError)")
            return try #require(try object(run)["actualTime"] as? Double)
        }
        let seconds = try actualTime(["--time", "1.5"])
        #expect(abs(seconds - 1.5) < 0.05)
        for form in [["-t", "1.5"], ["-t", "00:00:01.5"], ["-t", "0:01.5"], ["--time=00:00:01.500"]] {
            #expect(try actualTime(form) == seconds, "\(form)")
        }
        let half = try actualTime(["--percent", "50"])
        #expect(abs(half - 1.0) < 0.05, "50% of 2 s")
        for form in [["-t", "50%"], ["--time", "50%"], ["--percent", "50%"]] {
            #expect(try actualTime(form) == half, "\(form)")
        }
    }

    @Test(
        "a time, percentage or quality that does not parse is a usage error naming it",
        arguments: [
            (["-t", "1:75"], "-t takes seconds, HH:MM:SS[.ms] or P%, not '1:75'"),
            (["-t", "1:2:3:4"], "-t takes seconds, HH:MM:SS[.ms] or P%, not '1:2:3:4'"),
            (["-t", "-1"], "-t takes seconds, HH:MM:SS[.ms] or P%, not '-1'"),
            (["-t", "150%"], "-t takes a percentage from 0 to 100, not '150%'"),
            (["-t", "10%", "--time", "3"], "--time and --percent cannot be used together"),
            (["-q", "101"], "-q takes a whole number from 0 to 100, not '101'"),
            (["--quality", "best"], "--quality takes a whole number from 0 to 100, not 'best'"),
            (["-s", "-5"], "-s takes N or WxH with whole numbers >= 0, not '-5'"),
        ])
    func badForms(arguments: [String], message: String) throws {
        let run = try tool.run(["Fixtures/h264.mp4", "-o", "/tmp/never-written.png"] + arguments)
        #expect(run.status == 2)
        #expect(run.errorLines.first == "canvas-thumb: \(message)", "\(run.standardError)")
    }

    @Test("-q sets the JPEG quality: 11-100 as it is, 0-10 as ffmpegthumbnailer's scale (8 is 80)")
    func quality() throws {
        let scratch = try ScratchFolder()
        func size(_ quality: String) throws -> Int {
            let output = scratch.url.appendingPathComponent("q\(quality).jpg")
            let run = try tool.run(["Fixtures/h264.mp4", "-o", output.path, "-q", quality])
            #expect(run.status == 0, "\(run.standardError)")
            return try Data(contentsOf: output).count
        }
        let (low, middle, high) = (try size("20"), try size("80"), try size("100"))
        #expect(low < middle && middle < high, "\(low) < \(middle) < \(high)")
        #expect(try size("8") == middle, "ffmpegthumbnailer's 8 is quality 80")
        #expect(try size("10") == high)
        let defaultSize = try Data(
            contentsOf: {
                let output = scratch.url.appendingPathComponent("default.jpg")
                _ = try tool.run(["Fixtures/h264.mp4", "-o", output.path])
                return output
            }()
        ).count
        #expect(try size("85") == defaultSize, "the default is 85")
        // PNG is lossless: the quality changes nothing there, as with ffmpegthumbnailer.
        let png = scratch.url.appendingPathComponent("q.png").path
        #expect(try tool.run(["Fixtures/h264.mp4", "-o", png, "-q", "3"]).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: png)).starts(with: Self.png))
    }

    @Test("--jobs beyond 64 is capped with a warning on stderr; within the cap nothing is said")
    func jobsCap() throws {
        let scratch = try ScratchFolder()
        let inputs = ["Fixtures/h264.mp4", "Fixtures/vp9.webm"]
        let capped = try tool.run(inputs + ["--max-size", "16", "--output-dir", scratch.url.path, "--jobs", "100"])
        #expect(capped.status == 0)
        #expect(
            capped.errorLines == [
                "canvas-thumb: warning: --jobs 100 is capped at 64 (each running input holds a decoder and its frames)"
            ])
        #expect(capped.outputLines.count == 2)
        let within = try tool.run(inputs + ["--max-size", "16", "--output-dir", scratch.url.path, "--jobs", "64"])
        #expect(within.status == 0)
        #expect(within.standardError.isEmpty)
    }

    @Test("the progress line keeps still on a terminal: lines are written above it, never into a file or a pipe")
    func steadyProgress() throws {
        let scratch = try ScratchFolder()
        let names = ["h264.mp4", "vp9.webm", "missing.mp4", "rotation-90.mp4", "hevc.mp4"]
        let inputs = names.map { "Fixtures/\($0)" }
        let out = scratch.url.path
        let expectedOutput = [
            "Fixtures/h264.mp4 -> \(out)/h264.png (32x18 at 0.000 s)",
            "Fixtures/vp9.webm -> \(out)/vp9.png (32x18 at 0.000 s)",
            "Fixtures/rotation-90.mp4 -> \(out)/rotation-90.png (18x32 at 0.000 s)",
            "Fixtures/hevc.mp4 -> \(out)/hevc.png (32x18 at 0.000 s)",
        ]
        let expectedError = "canvas-thumb: Fixtures/missing.mp4: no such file"
        let command = "'\(tool.url.path)' \(inputs.joined(separator: " ")) -s 32 --jobs 1 --output-dir '\(out)'"
        let erase = "\r\u{1B}[2K"

        // Results into a file, progress on the terminal: the file has the lines alone; on the terminal, every erase
        // is followed by the bar or by the error line (then the bar again), except the last, at the end.
        let results = scratch.url.appendingPathComponent("results.txt")
        let drawn = try Self.onTerminal(command + " >'\(results.path)'")
        #expect(try String(contentsOf: results, encoding: .utf8) == expectedOutput.map { $0 + "\n" }.joined())
        #expect(drawn.contains("] 5/5 100% "))
        let afterErases = drawn.components(separatedBy: erase).dropFirst()
        #expect(afterErases.last == "", "erased at the end")
        for text in afterErases.dropLast() {
            #expect(
                text.hasPrefix("[") || text.hasPrefix(expectedError + "\r\n["), "a blank line: \(text.debugDescription)"
            )
        }
        #expect(!drawn.contains("h264.png"), "nothing of the results' file on the terminal")

        // Results on the same terminal: each line whole on a line of its own, the bar drawn again below it.
        let both = try Self.onTerminal(command)
        let lines = both.components(separatedBy: "\r\n")
        let written = lines.dropLast().map { line in line.components(separatedBy: erase).last ?? line }
        #expect(written == Array(expectedOutput[0..<2]) + [expectedError] + Array(expectedOutput[2...]))
        for line in lines.dropFirst().dropLast() {
            #expect(line.hasPrefix("[") || line.hasPrefix(erase + "["), "the bar drawn again at once: \(line)")
        }
        #expect(lines.last?.hasSuffix(erase) == true)

        // Neither stream a terminal: no progress at all.
        let piped = try tool.run(inputs + ["-s", "32", "--jobs", "1", "--output-dir", out])
        #expect(piped.outputLines == expectedOutput)
        #expect(piped.errorLines == [expectedError])
    }

    /// Runs `command` with sh on a pseudo-terminal (util-linux's `script`) and returns what was drawn on it.
    private static func onTerminal(_ command: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", command, "/dev/null"]
        process.currentDirectoryURL = BuiltBinary.root
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let drawn = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 1, "\(command): exit \(process.terminationStatus) (one input is missing)")
        return String(decoding: drawn, as: UTF8.self)
    }
}

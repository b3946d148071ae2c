import Foundation
import Testing

/// What a user coming from ffmpegthumbnailer or a shell script expects of canvas-thumb: the format from `-o`'s name,
/// ffmpegthumbnailer's `-s`, `-t` and `-q`, a warning when `--jobs` is capped, a progress line that keeps still.
/// No `.timeLimit`: a hang of the tool is bounded by the runner, which kills a process that runs too long. A time
/// limit counts from the start of each test, and under ThreadSanitizer these tests' bodies once waited more than a
/// minute for a thread of Swift's cooperative pool, the tool never started.
@Suite("canvas-thumb, as ffmpegthumbnailer users expect it")
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

    @Test("--help names each form: -s, -t, -q, the format rule, the cap, errorKind, the walk, progress, exit codes")
    func helpNamesTheForms() throws {
        let help = try tool.run(["--help"]).standardOutput
        for part in [
            "-s, --max-size N", "-t, --time T", "HH:MM:SS[.ms]", "P%", "-q, --quality Q", "its extension",
            "must agree with -o's extension", "at most 64, with a warning", "\"errorKind\"", "each file skipped",
            "progress line is drawn on standard error when it is a terminal", "exit codes: 0", "1 some inputs failed",
            "2 usage",
        ] {
            #expect(help.contains(part), "\(part)")
        }
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
            (["-t", "10%", "--time", "3"], "-t and --time cannot be used together"),
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
        let drawn = try onTerminal(command + " >'\(results.path)'", expectingStatus: 1)
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
        let both = try onTerminal(command, expectingStatus: 1)
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

    @Test("a folder walk takes every video or picture FFmpeg recognises (.gif, raw .h264) and reports each skip")
    func folderWalk() throws {
        let scratch = try ScratchFolder()
        let folder = scratch.url.appendingPathComponent("takes")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("day1"), withIntermediateDirectories: true)
        for (fixture, name) in [
            ("tiny.gif", "intro.gif"), ("one-frame.h264", "day1/camera.h264"), ("audio-only.m4a", "day1/sound.m4a"),
        ] {
            try FileManager.default.copyItem(
                at: BuiltBinary.root.appendingPathComponent("Fixtures/\(fixture)"),
                to: folder.appendingPathComponent(name))
        }
        try Data("notes\n".utf8).write(to: folder.appendingPathComponent("readme.txt"))
        try Data("1\n00:00:01,000 --> 00:00:02,000\nHello\n".utf8).write(
            to: folder.appendingPathComponent("day1/camera.srt"))
        let out = scratch.url.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: false)
        let path = folder.path
        let skips = [
            "canvas-thumb: skipped: \(path)/day1/camera.srt: a subtitle file (srt), not a video",
            "canvas-thumb: skipped: \(path)/readme.txt: not a video or picture FFmpeg recognises",
            "canvas-thumb: skipped: \(path)/day1/sound.m4a: no video stream; it has audio (aac)",
        ]
        for json in [false, true] {
            let run = try tool.run([path, "--output-dir", out.path, "-s", "32"] + (json ? ["--json"] : []))
            #expect(run.status == 0, "skipped files are not failures: \(run.standardError)")
            #expect(run.errorLines == skips)
            #expect(run.outputLines.count == 2)
            if !json {
                #expect(
                    run.outputLines == [
                        "\(path)/day1/camera.h264 -> \(out.path)/camera.png (32x18 at 0.000 s)",
                        "\(path)/intro.gif -> \(out.path)/intro.png (32x18 at 0.000 s)",
                    ])
            }
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        #expect(names == ["camera.png", "intro.png"])

        // Named, the same files are inputs like any other: a .gif and a raw .h264 convert, a text file fails.
        let named = try tool.run(
            ["Fixtures/tiny.gif", "Fixtures/one-frame.h264", "\(path)/readme.txt", "--output-dir", out.path, "--json"])
        #expect(named.status == 1)
        #expect(named.outputLines.count == 3)
        #expect(named.outputLines.last?.hasSuffix(#""errorKind":"notVideo"}"#) == true)

        // A folder in which no file is a candidate is a usage error, after saying what was skipped and why.
        let notes = scratch.url.appendingPathComponent("notes")
        try FileManager.default.createDirectory(at: notes, withIntermediateDirectories: false)
        try Data("notes\n".utf8).write(to: notes.appendingPathComponent("readme.txt"))
        let nothing = try tool.run([notes.path, "--output-dir", out.path])
        #expect(nothing.status == 2)
        #expect(
            nothing.errorLines == [
                "canvas-thumb: skipped: \(notes.path)/readme.txt: not a video or picture FFmpeg recognises",
                "canvas-thumb: no video or picture found in \(notes.path)",
            ])
    }

    /// `Fixtures/h264.mp4` with its sample description's codec code (`avc1`, the last occurrence: the first is a brand in
    /// `ftyp`) replaced by `code`, written to `url`: a damaged header or a codec FFmpeg does not know, made the same
    /// way every time.
    private static func h264(withCodecCode code: [UInt8], to url: URL) throws {
        var bytes = [UInt8](try Data(contentsOf: BuiltBinary.root.appendingPathComponent("Fixtures/h264.mp4")))
        let avc1 = Array("avc1".utf8)
        let at = try #require((0...(bytes.count - 4)).last { Array(bytes[$0..<($0 + 4)]) == avc1 })
        bytes.replaceSubrange(at..<(at + 4), with: code)
        try Data(bytes).write(to: url)
    }

    @Test("a damaged file says so; an unsupported codec is named only when the file names one")
    func damagedOrUnsupported() throws {
        let scratch = try ScratchFolder()
        let noCode = scratch.url.appendingPathComponent("no-code.mp4")
        let unknown = scratch.url.appendingPathComponent("unknown-code.mp4")
        try Self.h264(withCodecCode: [0x00, 0x13, 0x37, 0x00], to: noCode)
        try Self.h264(withCodecCode: Array("zzzz".utf8), to: unknown)
        let cases = [
            (noCode.path, "\(noCode.path): damaged or truncated file (its video stream names no codec)"),
            (unknown.path, "\(unknown.path): unsupported codec 'zzzz' (a codec FFmpeg does not know)"),
            (
                "Fixtures/truncated-index-at-end.mp4",
                "Fixtures/truncated-index-at-end.mp4: damaged or truncated file (mov,mp4,m4a,3gp,3g2,mj2): "
                    + "Invalid data found when processing input (moov atom not found)"
            ),
        ]
        for (input, reason) in cases {
            let run = try tool.run([input, "-o", scratch.url.appendingPathComponent("c.png").path])
            #expect(run.status == 1)
            #expect(run.errorLines == ["canvas-thumb: \(reason)"])
        }
    }

    @Test(
        "--json gives each failure an errorKind: missing, unreadable, notVideo, damaged, unsupported, refused, writeFailed"
    )
    func errorKinds() throws {
        let scratch = try ScratchFolder()
        let unknown = scratch.url.appendingPathComponent("unknown-code.mp4")
        try Self.h264(withCodecCode: Array("zzzz".utf8), to: unknown)
        let playlist = scratch.url.appendingPathComponent("list.m3u8")
        try Data("#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\n/etc/passwd\n#EXT-X-ENDLIST\n".utf8).write(to: playlist)
        let out = scratch.url.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: false)
        let inputs = [
            "Fixtures/h264.mp4", "Fixtures/no-such-file.mp4", "Fixtures/empty.mp4", "Fixtures/audio-only.m4a",
            "Fixtures/truncated-index-at-end.mp4", unknown.path, playlist.path,
        ]
        let run = try tool.run(inputs + ["-s", "16", "--output-dir", out.path, "--json"])
        #expect(run.status == 1)
        let kinds = try run.outputLines.map { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object.count == 7, "\(line)")
            return object["errorKind"] is NSNull ? "null" : object["errorKind"] as? String ?? "?"
        }
        #expect(kinds == ["null", "missing", "notVideo", "notVideo", "damaged", "unsupported", "refused"])

        // A cover that cannot be written: a FIFO where the output goes is never replaced.
        let fifo = scratch.url.appendingPathComponent("cover.png")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let write = try tool.run(["Fixtures/h264.mp4", "-o", fifo.path, "--json"])
        #expect(write.status == 1)
        #expect(write.standardOutput.hasSuffix(#","errorKind":"writeFailed"}"# + "\n"), "\(write.standardOutput)")
    }
}

import CommandLineSupport
import OrderedJSON
import Testing

@Suite("Command-line support")
struct CommandLineSupportTests {
    @Test("JSON lines keep key order and escape strings")
    func jsonLine() {
        var inner = JSONLine()
        inner.add("index", .int(0))
        inner.add("ok", .bool(true))
        var line = JSONLine()
        line.add("input", .string("a \"b\"\\c\n\u{1}é"))
        line.add("output", .nullable(nil))
        line.add("time", .double(0.04))
        line.add("bad", .double(.nan))
        line.add("items", .array([.object(inner), .null]))
        #expect(
            line.description
                == #"{"input":"a \"b\"\\c\n\u0001é","output":null,"time":0.04,"bad":null,"items":[{"index":0,"ok":true},null]}"#
        )
    }

    @Test("the progress line fills in proportion and is invisible when asked")
    func progressLine() {
        let progress = ProgressLine(total: 4, visible: false)
        #expect(!progress.isVisible)
        #expect(
            progress.text(done: 0, failed: 0, elapsed: .seconds(1)) == "[" + String(repeating: "-", count: 30)
                + "] 0/4 0%")
        #expect(
            progress.text(done: 2, failed: 1, elapsed: .seconds(1)).hasPrefix(
                "[" + String(repeating: "#", count: 15) + "-"))
        #expect(progress.text(done: 2, failed: 1, elapsed: .seconds(1)).hasSuffix("2/4 50% 2.0/s 0:01 left (1 failed)"))
        #expect(progress.text(done: 4, failed: 0, elapsed: .seconds(1)).contains(String(repeating: "#", count: 30)))
    }

    @Test("the progress line shows the rate and the time left at that rate, none before the first step or at the end")
    func progressRateAndTimeLeft() {
        let progress = ProgressLine(total: 1000, visible: false)
        #expect(progress.text(done: 0, failed: 0, elapsed: .seconds(5)).hasSuffix("0/1000 0%"))
        #expect(progress.text(done: 10, failed: 0, elapsed: .seconds(4)).hasSuffix("10/1000 1% 2.5/s 6:36 left"))
        #expect(progress.text(done: 1, failed: 0, elapsed: .seconds(10)).hasSuffix("1/1000 0% 0.1/s 2:46:30 left"))
        #expect(
            progress.text(done: 500, failed: 0, elapsed: .milliseconds(1000)).hasSuffix("500/1000 50% 500/s 0:01 left"))
        #expect(progress.text(done: 1000, failed: 3, elapsed: .seconds(8)).hasSuffix("1000/1000 100% 125/s (3 failed)"))
        #expect(progress.text(done: 3, failed: 0, elapsed: .zero).hasSuffix("3/1000 0%"))
        // A line made when the first report comes measures from when the work began: one frame in about 2 s.
        let late = ProgressLine(total: 1000, visible: false, start: .now - .seconds(2))
        #expect(late.text(done: 1, failed: 0).contains("1/1000 0% 0.5/s"), "\(late.text(done: 1, failed: 0))")
    }

    @Test("--version prints the tool's name and the release")
    func versionLine() {
        #expect(ToolVersion.line(for: "canvas-thumb") == "canvas-thumb \(ToolVersion.current)")
        #expect(ToolVersion.current.split(separator: ".").count == 3)
    }
}

@Suite("OptionParser: one set of rules for every tool's options")
struct OptionParserTests {
    let parser = OptionParser([
        .init(["-o", "--output"], takesValue: true), .init(["--fit"], group: "scaling"),
        .init(["--fill"], group: "scaling"), .init(["--gain"], takesValue: true, repeatable: true), .init(["--json"]),
    ])

    @Test func valuesRepeatsAndOperands() throws {
        let parsed = try parser.parse(["a", "--output=x.mp4", "--gain", "0=1", "--gain=1=2", "-", "--json", "--", "-b"])
        #expect(parsed.operands == ["a", "-", "-b"])
        #expect(parsed.value("-o") == "x.mp4")
        #expect(parsed.values["--gain"] == ["0=1", "1=2"])
        #expect(parsed.has("--json") && !parsed.has("--fit"))
    }

    @Test("--name=value is --name value for an option that takes a value: empty, holding '=', as bytes")
    func equalsForm() throws {
        #expect(try parser.parse(["--output="]).value("-o") == "")
        #expect(try parser.parse(["--output=a=b.png"]).value("-o") == "a=b.png")
        #expect(throws: OptionUsageError("unknown option '-o=x'")) { try parser.parse(["-o=x"]) }
        #expect(try parser.parse(["--", "--output=x"]).operands == ["--output=x"])
        let name: [UInt8] = [0x63, 0xFF, 0x2E, 0x70, 0x6E, 0x67]  // "c\xFF.png": not UTF-8
        #expect(try parser.parse(bytes: [Array("--output=".utf8) + name]).value("-o") == name)
    }

    @Test(arguments: [
        (["-o", "x", "-o", "y"], "-o is given more than once"),
        (["-o", "x", "--output", "y"], "-o and --output cannot be used together"),
        (["--fit", "--fill"], "--fit and --fill cannot be used together"),
        (["--bogus"], "unknown option '--bogus'"),
        (["-o"], "-o needs a value"),
        (["--json=1"], "unknown option '--json=1'"),
    ])
    func usageErrors(arguments: [String], message: String) {
        #expect(throws: OptionUsageError(message)) { try parser.parse(arguments) }
    }

    /// An option that excludes others, whatever their group and order, spelled as given.
    @Test func exclusions() throws {
        let parser = OptionParser([
            .init(["--target"], takesValue: true, excludes: ["--size", "--fit"]),
            .init(["-s", "--size"], takesValue: true),
            .init(["--fit"], group: "scaling"), .init(["--fill"], group: "scaling"),
        ])
        #expect(try parser.parse(["--target", "reels", "--fill"]).value("--target") == "reels")
        #expect(try parser.parse(["--size", "2x2", "--fit"]).has("--fit"))
        #expect(throws: OptionUsageError("--target and --fit cannot be used together")) {
            try parser.parse(["--fit", "--target=reels"])
        }
        #expect(throws: OptionUsageError("--target and -s cannot be used together")) {
            try parser.parse(["--target", "reels", "-s", "2x2"])
        }
    }
}

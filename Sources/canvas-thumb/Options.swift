import CommandLineSupport
import CoverBatch
import Foundation
import Thumbnails

/// canvas-thumb's command line, parsed. Parsing only: what the options mean is the Thumbnails
/// module's business.
struct Options {
    enum Output {
        /// `-o FILE`: the one input's cover goes there.
        case file(FileSystemPath)
        /// `--output-dir DIR` (or the current directory): covers named after their inputs.
        case directory(FileSystemPath)
        /// `-o -`: the one input's cover goes to standard output.
        case standardOutput
    }

    enum Time: Equatable {
        case seconds(Double)
        case percent(Double)
    }

    enum Format: String {
        case png
        case jpeg

        /// The format an output name's extension names: `.png`, `.jpg` or `.jpeg` (any case); nil for any other.
        init?(pathExtension: String) {
            switch pathExtension {
            case "png": self = .png
            case "jpg", "jpeg": self = .jpeg
            default: return nil
            }
        }
    }

    /// The inputs as given, as bytes (a file name need not be UTF-8).
    var inputs: [FileSystemPath] = []
    var output: Output = .directory(FileSystemPath("."))
    var maximumWidth = 0
    var maximumHeight = 0
    var time: Time = .seconds(0)
    var exact = false
    var skipDark = false
    var format: Format?
    /// `-q` / `--quality`: the JPEG quality, 1...100; nil for the default (85).
    var quality: Int?
    /// `--jobs`; nil for the default (the number of cores, asked only when covers are made).
    var jobs: Int?
    /// `--timeout`: the most seconds one input may take; nil for the default
    /// (`CoverBatch.defaultTimeout`), 0 for no limit.
    var timeout: Double?
    var json = false
    /// `--allow-playlists`: inputs may be playlists or scripts that open other local files (trusted files only).
    var allowPlaylists = false
    var help = false
    /// `--version`: print the version and exit.
    var version = false

    static let usage = """
        usage: canvas-thumb INPUT... [-o OUT | --output-dir DIR] [-s N | --max-size WxH] [-t TIME | --percent P]
                            [--exact] [--skip-dark] [--format png|jpeg] [-q Q] [--jobs N] [--timeout SECONDS]
                            [--json] [--allow-playlists]
          INPUT            a video or picture file, a directory (every file FFmpeg can open as a video or
                           picture; each file skipped is reported, with why), or - (paths on stdin)
          -o OUT           where the cover of the single INPUT goes (- for standard output); its extension
                           (.png, .jpg, .jpeg) picks the format
          --output-dir DIR where covers go, named after their inputs (default: the current directory)
          -s, --max-size N the longest side at most N pixels, or WxH: fit inside W x H; aspect kept
                           (default 0: natural size)
          -t, --time T     take the frame at T: seconds (1.5), HH:MM:SS[.ms] (00:01:05.5) or P% of the
                           duration (10%) (default 0: the first frame)
          --percent P      take the frame at P percent of the duration (as -t P%)
          --exact          the exact frame at the time (default: the keyframe at or before it, fast)
          --skip-dark      skip black or flat opening frames
          --format F       png or jpeg (default: from -o's extension, else png); must agree with -o's extension
          -q, --quality Q  JPEG quality: 11-100, or 0-10 as ffmpegthumbnailer's scale (8 is 80)
                           (default 85; ignored for PNG)
          --jobs N         inputs decoded at once (default: the number of cores; at most 64, with a warning)
          --timeout S      the most seconds one input may take, then it is stopped and reported
                           (default 60; 0: no limit)
          --json           one JSON object per input on stdout, with "errorKind" for a failure
                           (warnings and skipped files go to stderr)
          --allow-playlists  let trusted inputs be HLS/DASH playlists or concat scripts that open other
                           local files (default: refused; only the file named is read)
          -h, --help       this text; --version: the version
        options that take a value accept it as the next argument or after '=' (--max-size=320x320)
        with several inputs, a progress line is drawn on standard error when it is a terminal (never into a file
        or a pipe); lines printed on the terminal go above it
        exit codes: 0 all covers written (skipped files are not failures),
                    1 some inputs failed (the others are written),
                    2 usage (including an output folder that is missing, not a folder or not writable,
                      -o's extension disagreeing with --format, a folder with no video or picture)
        """

    typealias UsageError = OptionUsageError

    /// The options canvas-thumb accepts: `-o` or `--output-dir`, `--time` or `--percent`; help and version may be
    /// asked for more than once.
    static let parser = OptionParser([
        .init(["-o", "--output"], takesValue: true, group: "output"),
        .init(["--output-dir"], takesValue: true, group: "output"), .init(["-s", "--max-size"], takesValue: true),
        .init(["-t", "--time"], takesValue: true, group: "time"), .init(["--percent"], takesValue: true, group: "time"),
        .init(["--exact"]), .init(["--skip-dark"]), .init(["--format"], takesValue: true),
        .init(["-q", "--quality"], takesValue: true), .init(["--jobs"], takesValue: true),
        .init(["--timeout"], takesValue: true), .init(["--json"]), .init(["--allow-playlists"]),
        .init(["-h", "--help"], repeatable: true), .init(["--version"], repeatable: true),
    ])

    /// An argument's bytes as a path (an argument never holds a NUL byte: it is a C string).
    private static func path(_ bytes: [UInt8]) -> FileSystemPath {
        FileSystemPath(bytes: bytes) ?? FileSystemPath(String(decoding: bytes, as: UTF8.self))
    }

    /// Parses `arguments` (without the program name); `--name=value` is read as `--name value`.
    static func parse(_ arguments: [String]) throws(UsageError) -> Options {
        try parse(bytes: arguments.map { Array($0.utf8) })
    }

    /// Parses the raw bytes of the arguments (without the program name): option names and values
    /// are read as UTF-8, paths (inputs, `-o`, `--output-dir`) are kept as their exact bytes.
    static func parse(bytes: [[UInt8]]) throws(UsageError) -> Options {
        let parsed = try parser.parse(bytes: bytes)
        var options = Options()
        options.help = parsed.has("-h")
        options.version = parsed.has("--version")
        options.inputs = parsed.operands.map(Self.path)
        options.exact = parsed.has("--exact")
        options.skipDark = parsed.has("--skip-dark")
        options.json = parsed.has("--json")
        options.allowPlaylists = parsed.has("--allow-playlists")
        let text = { (name: String) in parsed.value(name).map { String(decoding: $0, as: UTF8.self) } }
        if let size = text("-s") {
            (options.maximumWidth, options.maximumHeight) = try maximumSize(size, for: parsed.spelling("-s"))
        }
        if let time = text("-t") {
            let option = parsed.spelling("-t")
            if let percent = try percentage(time, for: option) {
                options.time = .percent(percent)
            } else {
                options.time = .seconds(try seconds(time, for: option))
            }
        }
        if let value = text("--percent") {
            options.time = .percent(
                try percent(value.hasSuffix("%") ? String(value.dropLast()) : value, of: value, for: "--percent"))
        }
        try readNumbers(text, spelling: parsed.spelling, into: &options)
        if options.help || options.version { return options }
        guard !options.inputs.isEmpty else { throw UsageError("no input given") }
        if let output = parsed.value("-o").map(Self.path) {
            try options.setOutputFile(output)
        } else if let directory = parsed.value("--output-dir").map(Self.path) {
            options.output = .directory(directory)
        }
        return options
    }

    /// Reads `--format`, `--quality`, `--jobs` and `--timeout` (their values as `text` gives them, their names as
    /// `spelling` says they were given) into `options`.
    private static func readNumbers(
        _ text: (String) -> String?, spelling: (String) -> String, into options: inout Options
    ) throws(UsageError) {
        if let value = text("--format") {
            switch value.lowercased() {
            case "png": options.format = .png
            case "jpeg", "jpg": options.format = .jpeg
            default: throw UsageError("--format takes png or jpeg, not '\(value)'")
            }
        }
        if let value = text("-q") {
            guard let quality = Int(value), (0...100).contains(quality) else {
                throw UsageError("\(spelling("-q")) takes a whole number from 0 to 100, not '\(value)'")
            }
            // ffmpegthumbnailer's -q is 0 (bad) ... 10 (best); a JPEG quality that low is never what is meant.
            options.quality = quality <= 10 ? max(1, quality * 10) : quality
        }
        if let value = text("--jobs") {
            guard let jobs = Int(value), jobs >= 1 else {
                throw UsageError("--jobs takes a whole number >= 1, not '\(value)'")
            }
            options.jobs = jobs
        }
        if let value = text("--timeout") {
            guard let seconds = Double(value), seconds.isFinite else {
                throw UsageError("--timeout takes a number, not '\(value)'")
            }
            guard seconds >= 0 else { throw UsageError("--timeout must be >= 0, not \(seconds)") }
            options.timeout = seconds
        }
    }

    /// Writes the one cover to `outputFile` (`-` for standard output), whose extension names its format.
    private mutating func setOutputFile(_ outputFile: FileSystemPath) throws(UsageError) {
        guard inputs.count == 1, inputs[0] != FileSystemPath("-") else {
            throw UsageError("-o takes a single input; use --output-dir for several")
        }
        if outputFile == FileSystemPath("-") {
            guard !json else { throw UsageError("-o - and --json cannot be used together") }
            output = .standardOutput
            format = format ?? .png
            return
        }
        output = .file(outputFile)
        format = try Self.format(of: outputFile, given: format)
    }

    /// The format a cover written to `output` takes: the one its extension names (`.png`, `.jpg`, `.jpeg`), which
    /// `--format`, when `given`, must agree with; `given` for a name whose extension names no image format; PNG for
    /// a name without an extension.
    private static func format(of output: FileSystemPath, given: Format?) throws(UsageError) -> Format {
        let fileExtension = output.pathExtension
        let named = Format(pathExtension: fileExtension)
        switch (given, named) {
        case (let given?, let named?) where given != named:
            throw UsageError(
                "-o \(OptionSyntax.quoted(output.escaped)) names a \(named.rawValue.uppercased()) file, "
                    + "but --format is \(given.rawValue)")
        case (let given?, _): return given
        case (nil, let named?): return named
        case (nil, nil):
            guard fileExtension.isEmpty else {
                throw UsageError(
                    "-o \(OptionSyntax.quoted(output.escaped)): canvas-thumb writes .png, .jpg or .jpeg, "
                        + "not .\(fileExtension) (or give --format png|jpeg)")
            }
            return .png
        }
    }

    /// `-s N` (the longest side at most N: a box of N x N) or `WxH`.
    private static func maximumSize(_ text: String, for option: String) throws(UsageError) -> (Int, Int) {
        if let side = Int(text), side >= 0 { return (side, side) }
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]), width >= 0, height >= 0 else {
            throw UsageError("\(option) takes N or WxH with whole numbers >= 0, not \(OptionSyntax.quoted(text))")
        }
        return (width, height)
    }

    /// The percentage of `P%`, checked to lie in 0...100; nil when `text` does not end with `%`.
    private static func percentage(_ text: String, for option: String) throws(UsageError) -> Double? {
        guard text.hasSuffix("%") else { return nil }
        return try percent(String(text.dropLast()), of: text, for: option)
    }

    /// `number` (the value `text` without its `%`) as a percentage, checked to lie in 0...100.
    private static func percent(_ number: String, of text: String, for option: String) throws(UsageError) -> Double {
        guard let percent = Double(number), percent.isFinite, (0...100).contains(percent) else {
            throw UsageError("\(option) takes a percentage from 0 to 100, not \(OptionSyntax.quoted(text))")
        }
        return percent
    }

    /// Seconds written `1.5` or `HH:MM:SS[.ms]` (also `MM:SS[.ms]`), checked to be >= 0.
    private static func seconds(_ text: String, for option: String) throws(UsageError) -> Double {
        let invalid = UsageError("\(option) takes seconds, HH:MM:SS[.ms] or P%, not \(OptionSyntax.quoted(text))")
        let fields = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(fields.count) else { throw invalid }
        guard let last = Double(fields[fields.count - 1]), last.isFinite, last >= 0,
            fields.last?.first?.isNumber == true
        else { throw invalid }
        guard fields.count > 1 else { return last }
        // The clock form: whole hours and minutes, minutes and seconds below 60.
        guard last < 60 else { throw invalid }
        var total = last
        for (position, field) in fields.dropLast().reversed().enumerated() {
            guard let whole = Int(field), whole >= 0, field.allSatisfy(\.isNumber) else { throw invalid }
            if position == 0 && fields.count == 3 { guard whole < 60 else { throw invalid } }
            total += Double(whole) * (position == 0 ? 60 : 3600)
        }
        return total
    }
}

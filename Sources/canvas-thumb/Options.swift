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
        var fileExtension: String { self == .png ? "png" : "jpg" }
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
        usage: canvas-thumb INPUT... [-o OUT | --output-dir DIR] [--max-size WxH] [--time SECONDS | --percent P]
                            [--exact] [--skip-dark] [--format png|jpeg] [--jobs N] [--timeout SECONDS]
                            [--json] [--allow-playlists]
          INPUT            a video file, a directory (searched for video files), or - (paths on stdin)
          -o OUT           where the cover of the single INPUT goes (- for standard output)
          --output-dir DIR where covers go, named after their inputs (default: the current directory)
          --max-size WxH   fit the cover inside W x H pixels, aspect kept (default 0x0: natural size)
          --time SECONDS   take the frame at this time (default 0: the first frame)
          --percent P      take the frame at P percent of the duration
          --exact          the exact frame at the time (default: the keyframe at or before it, fast)
          --skip-dark      skip black or flat opening frames
          --format F       png or jpeg (default: from -o's extension, else png)
          --jobs N         inputs decoded at once (default: the number of cores; at most 64)
          --timeout S      the most seconds one input may take, then it is stopped and reported
                           (default 60; 0: no limit)
          --json           one JSON object per input on stdout (warnings go to stderr)
          --allow-playlists  let trusted inputs be HLS/DASH playlists or concat scripts that open other
                           local files (default: refused; only the file named is read)
          -h, --help       this text; --version: the version
        options that take a value accept it as the next argument or after '=' (--max-size=320x320)
        exit codes: 0 all covers written, 1 some inputs failed (the others are written),
                    2 usage (including an output folder that is missing, not a folder or not writable)
        """

    struct UsageError: Error {
        let message: String
    }

    /// The options that take a value (the others are flags).
    static let valued: Set<String> = [
        "--output", "--output-dir", "--max-size", "--time", "--percent", "--format", "--jobs", "--timeout",
    ]

    /// An argument's bytes as a path (an argument never holds a NUL byte: it is a C string).
    private static func path(_ bytes: [UInt8]) -> FileSystemPath {
        FileSystemPath(bytes: bytes) ?? FileSystemPath(String(decoding: bytes, as: UTF8.self))
    }

    /// Parses `arguments` (without the program name); `--name=value` is read as `--name value`.
    static func parse(_ arguments: [String]) throws(UsageError) -> Options {
        try parse(bytes: arguments.map { Array($0.utf8) })
    }

    /// ``OptionSyntax/expandingEqualsForm(_:valued:)`` on the arguments' bytes, so that the value
    /// of `--output-dir=DIR` keeps the exact bytes of `DIR`.
    private static func expandingEqualsForm(_ raw: [[UInt8]]) -> [[UInt8]] {
        var expanded: [[UInt8]] = []
        var optionsEnded = false
        for argument in raw {
            let isLong = argument.starts(with: Array("--".utf8))
            if !optionsEnded, argument == Array("--".utf8) { optionsEnded = true }
            if !optionsEnded, isLong, let equals = argument.firstIndex(of: UInt8(ascii: "=")),
                valued.contains(String(decoding: argument[..<equals], as: UTF8.self))
            {
                expanded.append(Array(argument[..<equals]))
                expanded.append(Array(argument[(equals + 1)...]))
            } else {
                expanded.append(argument)
            }
        }
        return expanded
    }

    /// Parses the raw bytes of the arguments (without the program name): option names and values
    /// are read as UTF-8, paths (inputs, `-o`, `--output-dir`) are kept as their exact bytes;
    /// `--name=value` is read as `--name value`.
    static func parse(bytes: [[UInt8]]) throws(UsageError) -> Options {
        let raw = expandingEqualsForm(bytes)
        let arguments = raw.map { String(decoding: $0, as: UTF8.self) }
        var options = Options()
        var outputFile: FileSystemPath?
        var outputDirectory: FileSystemPath?
        var sawTime = false
        var sawPercent = false
        var index = 0
        var onlyInputs = false

        func value(for option: String) throws(UsageError) -> String {
            index += 1
            guard index < arguments.count else { throw UsageError(message: "\(option) needs a value") }
            return arguments[index]
        }
        func path(for option: String) throws(UsageError) -> FileSystemPath {
            _ = try value(for: option)
            return Self.path(raw[index])
        }
        func number(_ text: String, for option: String) throws(UsageError) -> Double {
            guard let number = Double(text), number.isFinite else {
                throw UsageError(message: "\(option) takes a number, not '\(text)'")
            }
            return number
        }

        while index < arguments.count {
            let argument = arguments[index]
            if onlyInputs || argument == "-" || !argument.hasPrefix("-") {
                options.inputs.append(Self.path(raw[index]))
                index += 1
                continue
            }
            switch argument {
            case "--": onlyInputs = true
            case "-h", "--help": options.help = true
            case "--version": options.version = true
            case "-o", "--output": outputFile = try path(for: argument)
            case "--output-dir": outputDirectory = try path(for: argument)
            case "--max-size":
                let text = try value(for: argument)
                let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
                guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]), width >= 0, height >= 0
                else { throw UsageError(message: "--max-size takes WxH with whole numbers >= 0, not '\(text)'") }
                options.maximumWidth = width
                options.maximumHeight = height
            case "--time":
                let seconds = try number(try value(for: argument), for: argument)
                guard seconds >= 0 else { throw UsageError(message: "--time must be >= 0, not \(seconds)") }
                options.time = .seconds(seconds)
                sawTime = true
            case "--percent":
                let percent = try number(try value(for: argument), for: argument)
                guard (0...100).contains(percent) else {
                    throw UsageError(message: "--percent must be between 0 and 100, not \(percent)")
                }
                options.time = .percent(percent)
                sawPercent = true
            case "--exact": options.exact = true
            case "--skip-dark": options.skipDark = true
            case "--format":
                let text = try value(for: argument)
                switch text.lowercased() {
                case "png": options.format = .png
                case "jpeg", "jpg": options.format = .jpeg
                default: throw UsageError(message: "--format takes png or jpeg, not '\(text)'")
                }
            case "--jobs":
                let text = try value(for: argument)
                guard let jobs = Int(text), jobs >= 1 else {
                    throw UsageError(message: "--jobs takes a whole number >= 1, not '\(text)'")
                }
                options.jobs = jobs
            case "--timeout":
                let seconds = try number(try value(for: argument), for: argument)
                guard seconds >= 0 else { throw UsageError(message: "--timeout must be >= 0, not \(seconds)") }
                options.timeout = seconds
            case "--json": options.json = true
            case "--allow-playlists": options.allowPlaylists = true
            default: throw UsageError(message: "unknown option '\(argument)'")
            }
            index += 1
        }
        if options.help || options.version { return options }
        if sawTime && sawPercent { throw UsageError(message: "--time and --percent cannot be used together") }
        if outputFile != nil && outputDirectory != nil {
            throw UsageError(message: "-o and --output-dir cannot be used together")
        }
        guard !options.inputs.isEmpty else { throw UsageError(message: "no input given") }
        if let outputFile {
            guard options.inputs.count == 1, options.inputs[0] != FileSystemPath("-") else {
                throw UsageError(message: "-o takes a single input; use --output-dir for several")
            }
            if outputFile == FileSystemPath("-") {
                guard !options.json else { throw UsageError(message: "-o - and --json cannot be used together") }
                options.output = .standardOutput
                options.format = options.format ?? .png
                return options
            }
            options.output = .file(outputFile)
            if options.format == nil {
                let ext = outputFile.pathExtension
                options.format = (ext == "jpg" || ext == "jpeg") ? .jpeg : .png
            }
        } else if let outputDirectory {
            options.output = .directory(outputDirectory)
        }
        return options
    }
}

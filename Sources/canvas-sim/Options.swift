import CanvasKit
import CanvasSimulation
import CommandLineSupport

/// canvas-sim's command line, parsed. Parsing only: the simulation is CanvasKit's `BoardSimulation`.
struct Options {
    enum Source: Equatable {
        /// `--script FILE`.
        case script(String)
        /// `--events "..."`.
        case events(String)
        /// `--interactive`.
        case interactive
    }

    enum Format: String {
        case text
        case json
    }

    enum Table: String {
        case markdown
        case dot
    }

    var cells = 4
    var visible = 9
    var source: Source?
    var format = Format.text
    var exportTable: Table?
    var render: String?
    /// `--draft FILE`: open or resume a draft.
    var draft: String?
    /// `--snapshot-every N`: records between a draft's snapshots.
    var snapshotEvery = 10_000
    /// `--compose OUT.mp4`: the board's takes composed into one video at the end.
    var compose: String?
    var help = false
    /// `--version`: print the version and exit.
    var version = false

    static let usage = """
        usage: canvas-sim [--cells N] [--visible V] (--script FILE | --events "..." | --interactive)
                          [--format text|json] [--render FILE.png] [--draft FILE] [--compose OUT.mp4]
               canvas-sim --export-table markdown|dot
          --cells N            canvases on the board (default 4, at most 1000000: about 1.9 GB)
          --visible V          canvases the screen shows at once (default 9); scroll N brings one into view
          --script FILE        events from FILE, one per line or separated by ';' ('#' starts a comment);
                               relative take files resolve against FILE's folder
          --events "..."       events from the argument, e.g. "tap 0; record; stop; tap 1"
          --interactive        a terminal UI (arrows and Enter tap, r record, s stop, c cancel, d delete,
                               a add, x remove, q quit); reads one event per line when stdin is not a terminal
          --format text|json   a table per step and a summary (default), or one JSON object per step
          --render FILE.png    draw the final board (real covers for takes that are real files) as a PNG
          --draft FILE         open the draft FILE (created with --cells canvases when missing) or resume it:
                               the events continue from the restored board, each accepted one is journaled,
                               and what the restore found is printed first; --events "" prints the board
          --snapshot-every N   with --draft: compact the journal into a snapshot every N records (default 10000)
          --compose OUT.mp4    compose the final board's takes into one video (720x1280, the board's grid, each
                               take from its start on the board's timeline); takes whose cover failed are left out
          --export-table F     print the transition table, computed from the code, as Markdown or DOT
          -h, --help           this text; --version: the version
        options that take a value accept it as the next argument or after '=' (--cells=9)
        events: tap N, record, stop [FILE], cancel, delete N, add, remove N, scroll N, disappear, appear
        exit codes: 0 the script ran (rejected events are normal), 1 the picture or the video could not be written,
                    2 usage, a malformed script (with its line and column) or an unreadable script file,
                    3 the draft cannot be opened or written (the reason names the file)
        """

    /// The largest `--cells` and `--visible`: a board of a million canvases peaks at 1.86 GB in a release build (see
    /// Docs/canvas-sim.md); a larger one would only end in a failed allocation.
    static let maximumCount = 1_000_000

    struct UsageError: Error {
        let message: String
    }

    /// The options that take a value (the others are flags).
    static let valued: Set<String> = [
        "--cells", "--visible", "--script", "--events", "--format", "--export-table", "--render", "--draft",
        "--snapshot-every", "--compose",
    ]

    /// Parses `arguments` (without the program name); `--name=value` is read as `--name value`.
    static func parse(_ arguments: [String]) throws(UsageError) -> Options {
        let arguments = OptionSyntax.expandingEqualsForm(arguments, valued: valued)
        var options = Options()
        var index = 0

        func value(for option: String) throws(UsageError) -> String {
            index += 1
            guard index < arguments.count else { throw UsageError(message: "\(option) needs a value") }
            return arguments[index]
        }
        func count(_ text: String, for option: String) throws(UsageError) -> Int {
            guard let number = Int(text), (1...maximumCount).contains(number) else {
                throw UsageError(
                    message:
                        "\(option) takes a whole number from 1 to \(maximumCount), not \(OptionSyntax.quoted(text))")
            }
            return number
        }
        func setSource(_ source: Source, _ option: String) throws(UsageError) {
            if options.source != nil {
                throw UsageError(message: "\(option): give only one of --script, --events and --interactive")
            }
            options.source = source
        }

        var given: Set<String> = []
        while index < arguments.count {
            let argument = arguments[index]
            // An option given twice is a conflict (which value was meant?), not a silent "last one wins".
            if argument.hasPrefix("-"), !["-h", "--help", "--version"].contains(argument),
                !given.insert(argument).inserted
            {
                throw UsageError(message: "\(argument) is given more than once")
            }
            switch argument {
            case "-h", "--help":
                options.help = true
            case "--version":
                options.version = true
            case "--cells":
                options.cells = try count(try value(for: argument), for: argument)
            case "--visible":
                options.visible = try count(try value(for: argument), for: argument)
            case "--script":
                try setSource(.script(try value(for: argument)), argument)
            case "--events":
                try setSource(.events(try value(for: argument)), argument)
            case "--interactive":
                try setSource(.interactive, argument)
            case "--format":
                let text = try value(for: argument)
                guard let format = Format(rawValue: text) else {
                    throw UsageError(message: "--format takes text or json, not \(OptionSyntax.quoted(text))")
                }
                options.format = format
            case "--export-table":
                let text = try value(for: argument)
                guard let table = Table(rawValue: text) else {
                    throw UsageError(message: "--export-table takes markdown or dot, not \(OptionSyntax.quoted(text))")
                }
                options.exportTable = table
            case "--render":
                let path = try value(for: argument)
                guard !path.isEmpty else { throw UsageError(message: "--render needs a file name") }
                options.render = path
            case "--snapshot-every":
                options.snapshotEvery = try count(try value(for: argument), for: argument)
            case "--draft":
                let path = try value(for: argument)
                guard !path.isEmpty else { throw UsageError(message: "--draft needs a file name") }
                options.draft = path
            case "--compose":
                let path = try value(for: argument)
                guard !path.isEmpty else { throw UsageError(message: "--compose needs a file name") }
                options.compose = path
            default:
                if argument.hasPrefix("-") {
                    throw UsageError(message: "unknown option \(OptionSyntax.quoted(argument))")
                }
                throw UsageError(
                    message: "unexpected argument \(OptionSyntax.quoted(argument)) (events go in --events \"...\")")
            }
            index += 1
        }
        guard !options.help, !options.version else { return options }
        if options.exportTable != nil {
            let others = given.subtracting(["--export-table"]).sorted()
            guard others.isEmpty else {
                throw UsageError(
                    message:
                        "--export-table prints the table only; it takes no other option (got \(others.joined(separator: ", ")))"
                )
            }
            return options
        }
        if given.contains("--snapshot-every"), options.draft == nil {
            throw UsageError(message: "--snapshot-every needs --draft")
        }
        guard options.source != nil else {
            throw UsageError(message: "give the events: --script FILE, --events \"...\" or --interactive")
        }
        return options
    }
}

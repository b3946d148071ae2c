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
    /// `--max-take SECONDS`: the board's maximum take length.
    var maxTake: Double?
    var help = false
    /// `--version`: print the version and exit.
    var version = false

    static let usage = """
        usage: canvas-sim [--cells N] [--visible V] (--script FILE | --events "..." | --interactive)
                          [--format text|json] [--render FILE.png] [--draft FILE] [--compose OUT.mp4]
                          [--max-take SECONDS]
               canvas-sim --export-table markdown|dot
          --cells N            canvases on the board (default 4, at most 1000000: about 1.9 GB)
          --visible V          canvases the screen shows at once (default 9); scroll N brings one into view
          --script FILE        events from FILE, one per line or separated by ';' ('#' starts a comment);
                               relative take files resolve against FILE's folder
          --events "..."       events from the argument, e.g. "tap 0; record; stop; tap 1"
          --interactive        a terminal UI (arrows and Enter tap, r record, e resume, s stop, c cancel,
                               u undo, d delete, a add, x remove, m music on/off, i mic on/off, w wait 1 s,
                               q quit); reads one event per line when stdin is not a terminal
          --format text|json   a table per step and a summary (default), or one JSON object per step
          --render FILE.png    draw the final board (real covers for takes that are real files) as a PNG
          --draft FILE         open the draft FILE (created with --cells canvases when missing) or resume it:
                               the events continue from the restored board, each accepted one is journaled,
                               and what the restore found is printed first; --events "" prints the board
          --snapshot-every N   with --draft: compact the journal into a snapshot every N records (default 10000)
          --compose OUT.mp4    compose the final board's takes into one video (720x1280, the board's grid, each
                               take from its start on the board's timeline); a take the composer cannot read is
                               left out with a warning
          --max-take SECONDS   the board's maximum take length: a recording that reaches it stops by itself
                               (as stop, into limit-N.mov), and resume is refused on a take that has it
          --export-table F     print the transition table, computed from the code, as Markdown or DOT
          -h, --help           this text; --version: the version
        options that take a value accept it as the next argument or after '=' (--cells=9)
        events: tap N, record, resume, stop [FILE], cancel, delete N, undo N, add, remove N, scroll N, disappear,
                appear, music FILE [START] [gain G] [loop], music off, mic on, mic off, wait SECONDS
        exit codes: 0 the script ran (rejected events are normal), 1 the picture or the video could not be written,
                    2 usage, a malformed script (with its line and column) or an unreadable script file,
                    3 the draft cannot be opened or written (the reason names the file)
        """

    /// The largest `--cells` and `--visible`: a board of a million canvases peaks at 1.86 GB in a release build (see
    /// Docs/canvas-sim.md); a larger one would only end in a failed allocation.
    static let maximumCount = 1_000_000

    typealias UsageError = OptionUsageError

    /// The options canvas-sim accepts; the three sources of events exclude each other, and help and version may be
    /// asked for more than once.
    static let parser = OptionParser([
        .init(["--cells"], takesValue: true), .init(["--visible"], takesValue: true),
        .init(["--script"], takesValue: true, group: "source"), .init(["--events"], takesValue: true, group: "source"),
        .init(["--interactive"], group: "source"), .init(["--format"], takesValue: true),
        .init(["--export-table"], takesValue: true), .init(["--render"], takesValue: true),
        .init(["--draft"], takesValue: true), .init(["--snapshot-every"], takesValue: true),
        .init(["--compose"], takesValue: true), .init(["--max-take"], takesValue: true),
        .init(["-h", "--help"], repeatable: true),
        .init(["--version"], repeatable: true),
    ])

    /// Parses `arguments` (without the program name).
    static func parse(_ arguments: [String]) throws(UsageError) -> Options {
        let parsed = try parser.parse(arguments)
        var options = Options()
        options.help = parsed.has("-h")
        options.version = parsed.has("--version")
        if let operand = parsed.operands.first {
            throw UsageError("unexpected argument \(OptionSyntax.quoted(operand)) (events go in --events \"...\")")
        }
        options.cells = try count(parsed, "--cells") ?? options.cells
        options.visible = try count(parsed, "--visible") ?? options.visible
        options.snapshotEvery = try count(parsed, "--snapshot-every") ?? options.snapshotEvery
        options.source =
            parsed.value("--script").map(Source.script) ?? parsed.value("--events").map(Source.events)
            ?? (parsed.has("--interactive") ? .interactive : nil)
        if let text = parsed.value("--format") {
            guard let format = Format(rawValue: text) else {
                throw UsageError("--format takes text or json, not \(OptionSyntax.quoted(text))")
            }
            options.format = format
        }
        if let text = parsed.value("--export-table") {
            guard let table = Table(rawValue: text) else {
                throw UsageError("--export-table takes markdown or dot, not \(OptionSyntax.quoted(text))")
            }
            options.exportTable = table
        }
        options.render = try fileName(parsed, "--render")
        options.draft = try fileName(parsed, "--draft")
        options.compose = try fileName(parsed, "--compose")
        if let text = parsed.value("--max-take") {
            guard let seconds = Double(text), seconds.isFinite, seconds > 0 else {
                throw UsageError("--max-take takes a number of seconds above 0, not \(OptionSyntax.quoted(text))")
            }
            options.maxTake = seconds
        }
        guard !options.help, !options.version else { return options }
        try options.checkCombination(given: Set(parsed.values.keys))
        return options
    }

    /// The whole number `option` was given, from 1 to ``maximumCount``; nil when it was not given.
    private static func count(_ parsed: OptionParser.Parsed<String>, _ option: String) throws(UsageError) -> Int? {
        guard let text = parsed.value(option) else { return nil }
        guard let number = Int(text), (1...maximumCount).contains(number) else {
            throw UsageError(
                "\(option) takes a whole number from 1 to \(maximumCount), not \(OptionSyntax.quoted(text))")
        }
        return number
    }

    /// The file name `option` was given, never empty; nil when it was not given.
    private static func fileName(_ parsed: OptionParser.Parsed<String>, _ option: String) throws(UsageError) -> String?
    {
        guard let path = parsed.value(option) else { return nil }
        guard !path.isEmpty else { throw UsageError("\(option) needs a file name") }
        return path
    }

    /// Refuses options that do not go together: `--export-table` with any other, `--snapshot-every` without
    /// `--draft`, and no source of events.
    private func checkCombination(given: Set<String>) throws(UsageError) {
        if exportTable != nil {
            let others = given.subtracting(["--export-table"]).sorted()
            guard others.isEmpty else {
                throw UsageError(
                    "--export-table prints the table only; it takes no other option (got \(others.joined(separator: ", ")))"
                )
            }
            return
        }
        if given.contains("--snapshot-every"), draft == nil {
            throw UsageError("--snapshot-every needs --draft")
        }
        guard source != nil else {
            throw UsageError("give the events: --script FILE, --events \"...\" or --interactive")
        }
    }
}

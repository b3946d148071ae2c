import CanvasKit
import Foundation

/// A parsed script in the event language (Docs/CanvasKit.md), used by `canvas-sim`.
///
/// Syntax: events one per line or separated by `;`; `#` starts a comment that runs to the end of the line; words are
/// separated by spaces or tabs. The words are `tap N`, `record`, `resume`, `stop [FILE]`, `cancel`, `delete N`,
/// `undo N`, `add`, `remove N`, `music FILE [START] [gain G] [loop]`, `music off`, `mic on`, `mic off` (board
/// events), `started`, `failed` and `cut-short` (the recorder's answers), `scroll N`, `disappear`, `appear` (host-only
/// commands) and `wait SECONDS` (the simulation's clock). `N` is a decimal integer
/// (an out-of-range or negative index is not a syntax error: the board rejects it; only a number beyond `Int`'s range,
/// which no event can carry, is). A `FILE` containing a space, `;`, `#`, `"` or `\` is written in double quotes with
/// `\"` and `\\` escapes.
///
/// `stop` without a file still finishes a take: the n-th bare `stop` of the script (in script order, counting from 1,
/// rejected ones included) gets the synthetic file `take-n.mov`, skipping any name the script writes explicitly. Files
/// are file URLs relative to the base directory given to the parser (the current directory by default), so
/// `description` prints them as written.
public struct CanvasScript: Sendable, Hashable, CustomStringConvertible {
    /// One command of a script.
    public enum Command: Sendable, Hashable, CustomStringConvertible {
        /// An event for the board.
        case event(CanvasEvent)
        /// Host only: scroll the collection so that the item at the index is visible.
        case scroll(Int)
        /// Host only: the screen disappears.
        case disappear
        /// Host only: the screen appears again.
        case appear
        /// Simulation only: the simulation's clock moves this many seconds on (a recording that reaches the board's
        /// maximum take length meanwhile is stopped by its recorder).
        case wait(Double)

        /// The command in the script language, e.g. `tap 2`, `stop take-1.mov` or `scroll 10`.
        public var description: String {
            switch self {
            case .event(let event): event.description
            case .scroll(let index): "scroll \(index)"
            case .disappear: "disappear"
            case .appear: "appear"
            case .wait(let seconds):
                "wait \(seconds == seconds.rounded() && seconds < 1e15 ? String(Int64(seconds)) : "\(seconds)")"
            }
        }
    }

    /// A command and where it starts in the source (1-based line and column, columns counted in characters).
    public struct Step: Sendable, Hashable {
        /// The command.
        public var command: Command
        /// The line of the command's first word.
        public var line: Int
        /// The column of the command's first word.
        public var column: Int
        /// Whether the command is a bare `stop` whose take file the parser made up (`take-n.mov`): a simulated take
        /// with no file behind it, so a host does not ask for its cover.
        public var takeIsSynthetic = false

        /// A step at the given place.
        public init(command: Command, line: Int, column: Int) {
            self.command = command
            self.line = line
            self.column = column
        }
    }

    /// The steps, in script order.
    public var steps: [Step]

    /// The commands, in script order.
    public var commands: [Command] { steps.map(\.command) }

    /// A script made of the given steps.
    public init(steps: [Step]) {
        self.steps = steps
    }

    /// Parses `source`.
    ///
    /// - Parameters:
    ///   - source: the script's text: events one per line or separated by `;`, `#` starting a comment.
    ///   - baseDirectory: the directory that relative take files are resolved against; nil means the current
    ///     directory. Descriptions print relative files as written either way.
    /// - Throws: `CanvasScript.ParseError` for the first malformed command: an unknown word, a missing, non-numeric or
    ///   extra argument, or an unterminated quote. The error names the line and column.
    public init(parsing source: String, baseDirectory: URL? = nil) throws(ParseError) {
        var parser = Parser(baseDirectory: baseDirectory)
        try parser.parse(source)
        self.steps = parser.finish()
    }

    /// Parses a script file's bytes, which must be UTF-8 text.
    ///
    /// - Parameters:
    ///   - data: the file's bytes.
    ///   - baseDirectory: as in ``init(parsing:baseDirectory:)``.
    /// - Throws: `CanvasScript.ParseError`: `.notUTF8` at the line and column of the first byte that is not UTF-8 (the
    ///   column counts the characters before it on its line, plus one), or any error of ``init(parsing:baseDirectory:)``.
    public init(parsing data: some Collection<UInt8>, baseDirectory: URL? = nil) throws(ParseError) {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = data.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar):
                offset += scalar.count
                continue
            case .emptyInput:
                try self.init(parsing: String(decoding: data, as: UTF8.self), baseDirectory: baseDirectory)
                return
            case .error:
                let before = String(decoding: data.prefix(offset), as: UTF8.self)
                let lines = before.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
                let byte = data.dropFirst(offset).first ?? 0
                throw ParseError(
                    line: lines.count, column: (lines.last?.count ?? 0) + 1, reason: .notUTF8(byte: byte))
            }
        }
    }

    /// The synthetic file of the n-th bare `stop`: `take-n.mov`, relative to `baseDirectory` (nil: the current
    /// directory).
    public static func syntheticTake(number: Int, baseDirectory: URL? = nil) -> URL {
        takeURL("take-\(number).mov", baseDirectory: baseDirectory)
    }

    /// A take is a file: its URL is made with `isDirectory: false`, so parsing never asks the file system whether the
    /// path is a directory, and `stop dir/` prints as `stop dir`, which reads back as the same URL.
    static func takeURL(_ path: String, baseDirectory: URL?) -> URL {
        if let baseDirectory { return URL(fileURLWithPath: path, isDirectory: false, relativeTo: baseDirectory) }
        return URL(fileURLWithPath: path, isDirectory: false)
    }

    /// The commands in the script language, one per line. Parsing it with the same base directory gives this script's
    /// commands back.
    public var description: String {
        steps.map { $0.command.description + "\n" }.joined()
    }
}

import CanvasKit
import Foundation

/// The words of the script language and the argument each takes.
enum Keyword: String, CaseIterable {
    case tap, record, stop, cancel, delete, add, remove, scroll, disappear, appear
    // The recorder's answers (CanvasKit's `RecorderAnswers` sends them in an app).
    case started, failed
    case cutShort = "cut-short"
    // Segments, the soundtrack, the microphone and the simulation's clock.
    case resume, undo, disarm, music, mic, wait
    // A take whose files are missing (a restore marks it) or back.
    case missing, relink

    enum Arity { case none, index, optionalFile, recorderAnswer, music, toggle, seconds, indexAndFile }

    var arity: Arity {
        switch self {
        case .tap, .delete, .remove, .scroll, .undo, .relink: .index
        case .missing: .indexAndFile
        case .stop: .optionalFile
        case .record, .cancel, .add, .disappear, .appear, .resume, .disarm: .none
        case .started, .failed, .cutShort: .recorderAnswer
        case .music: .music
        case .mic: .toggle
        case .wait: .seconds
        }
    }

    /// How the argument is named in messages, without an article.
    var argumentNoun: String {
        switch self {
        case .scroll: "item index"
        case .stop: "file"
        case .started: "host time in seconds"
        case .failed, .cutShort: "recorder problem"
        case .music: "sound file or 'off'"
        case .mic: "'on' or 'off'"
        case .wait: "number of seconds"
        case .missing: "canvas index and file"
        default: "canvas index"
        }
    }

    /// How the argument is named in messages, with an article.
    var argumentName: String {
        switch self {
        case .scroll: "an item index"
        case .music, .mic, .missing: argumentNoun
        default: "a \(argumentNoun)"
        }
    }

    var example: String {
        switch arity {
        case .none: rawValue
        case .index: "\(rawValue) 0"
        case .optionalFile: "\(rawValue) take.mov"
        case .music: "music song.m4a 0 gain 0.5 loop"
        case .toggle: "mic off"
        case .seconds: "wait 2.5"
        case .indexAndFile: "missing 0 take.mov"
        case .recorderAnswer:
            switch self {
            case .started: "started 12.5"
            case .failed: "failed notAuthorized"
            default: "cut-short call take.mov"
            }
        }
    }

    /// The known word closest to `word` (case-insensitive match, prefix, or at most two edits), if any.
    static func suggestion(for word: String) -> String? {
        let lowered = word.lowercased()
        if let exact = Keyword(rawValue: lowered) { return exact.rawValue }
        if lowered.count >= 2, let prefixed = allCases.first(where: { $0.rawValue.hasPrefix(lowered) }) {
            return prefixed.rawValue
        }
        let scored = allCases.map { ($0, editDistance(Array(lowered), Array($0.rawValue))) }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= 2, best.1 < best.0.rawValue.count else {
            return nil
        }
        return best.0.rawValue
    }

    private static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        var previous = Array(0...b.count)
        for (i, ca) in a.enumerated() {
            var current = [i + 1]
            for (j, cb) in b.enumerated() {
                current.append(Swift.min(previous[j + 1] + 1, current[j] + 1, previous[j] + (ca == cb ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}

extension CanvasScript {
    /// A word of the source and where it starts.
    struct Token {
        var text: String
        var line: Int
        var column: Int
        var quoted: Bool
        /// The column just after the token.
        var endColumn: Int
    }

    /// A one-pass parser; bare `stop`s are numbered in `finish()`, once every explicit file name is known.
    struct Parser {
        let baseDirectory: URL?
        private var steps: [Step] = []
        /// Indexes in `steps` of bare `stop`s, waiting for their synthetic file.
        private var bareStops: [Int] = []
        var explicitFiles: Set<String> = []

        init(baseDirectory: URL?) {
            self.baseDirectory = baseDirectory
        }

        mutating func parse(_ source: String) throws(ParseError) {
            // A byte-order mark (what some editors put at the start of a UTF-8 file) is not part of the script;
            // columns on the first line count from after it, as the editor shows them.
            let source = source.unicodeScalars.first == "\u{FEFF}" ? String(source.unicodeScalars.dropFirst()) : source
            let lines = source.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
            for (offset, line) in lines.enumerated() {
                try parseLine(line, number: offset + 1)
            }
        }

        mutating func finish() -> [Step] {
            var number = 0
            for index in bareStops {
                repeat { number += 1 } while explicitFiles.contains("take-\(number).mov")
                let url = CanvasScript.syntheticTake(number: number, baseDirectory: baseDirectory)
                steps[index].command = .event(.stop(url))
                steps[index].takeIsSynthetic = true
            }
            bareStops = []
            return steps
        }

        private mutating func parseLine(_ line: Substring, number: Int) throws(ParseError) {
            var statement: [Token] = []
            var characters = Array(line)[...]
            var column = 1
            while let character = characters.first {
                if character == "#" { break }
                if character == ";" {
                    try finishStatement(statement)
                    statement = []
                    characters.removeFirst()
                    column += 1
                } else if character.isWhitespace {
                    characters.removeFirst()
                    column += 1
                } else if character == "\"" {
                    let token = try quotedToken(&characters, line: number, column: &column)
                    statement.append(token)
                } else {
                    let start = column
                    var text = ""
                    while let next = characters.first, !next.isWhitespace, next != ";", next != "#" {
                        text.append(next)
                        characters.removeFirst()
                        column += 1
                    }
                    statement.append(Token(text: text, line: number, column: start, quoted: false, endColumn: column))
                }
            }
            try finishStatement(statement)
        }

        private func quotedToken(
            _ characters: inout ArraySlice<Character>, line: Int, column: inout Int
        ) throws(ParseError) -> Token {
            let start = column
            characters.removeFirst()
            column += 1
            var text = ""
            while true {
                guard let character = characters.first else {
                    throw ParseError(line: line, column: start, reason: .unterminatedQuote)
                }
                characters.removeFirst()
                column += 1
                if character == "\"" { break }
                if character == "\\", let escaped = characters.first, escaped == "\"" || escaped == "\\" {
                    text.append(escaped)
                    characters.removeFirst()
                    column += 1
                } else {
                    text.append(character)
                }
            }
            if let next = characters.first, !next.isWhitespace, next != ";", next != "#" {
                let rest = String(characters.prefix { !$0.isWhitespace && $0 != ";" && $0 != "#" })
                throw ParseError(line: line, column: column, reason: .textAfterQuote(rest))
            }
            return Token(text: text, line: line, column: start, quoted: true, endColumn: column)
        }

        private mutating func finishStatement(_ tokens: [Token]) throws(ParseError) {
            guard let head = tokens.first else { return }
            guard !head.quoted, let keyword = Keyword(rawValue: head.text) else {
                throw ParseError(
                    line: head.line, column: head.column,
                    reason: .unknownWord(head.text, suggestion: head.quoted ? nil : Keyword.suggestion(for: head.text)))
            }
            let arguments = Array(tokens.dropFirst())
            let command: Command
            switch keyword.arity {
            case .none:
                try Self.expectNoMore(arguments, after: 0, keyword)
                command = Self.plainCommand(keyword)
            case .index:
                let index = try Self.index(arguments, keyword, head: head)
                command =
                    switch keyword {
                    case .tap: .event(.tap(index))
                    case .delete: .event(.delete(index))
                    case .remove: .event(.remove(index))
                    case .undo: .event(.undo(index))
                    case .relink: .event(.relink(index))
                    default: .scroll(index)
                    }
            case .recorderAnswer:
                command = .event(try recorderAnswer(keyword, head: head, arguments: arguments))
            case .optionalFile:
                command = try stopCommand(arguments, keyword)
            case .music:
                command = .event(.setSoundtrack(try soundtrack(arguments, head: head)))
            case .toggle:
                command = .event(.setMicrophone(try Self.toggle(arguments, keyword, head: head)))
            case .seconds:
                command = .wait(try Self.seconds(arguments, keyword, head: head))
            case .indexAndFile:
                let index = try Self.index(Array(arguments.prefix(1)), keyword, head: head)
                guard let file = arguments.dropFirst().first else {
                    throw ParseError(
                        line: arguments[0].line, column: arguments[0].endColumn,
                        reason: .missingArgument(word: keyword.rawValue))
                }
                try Self.expectNoMore(arguments, after: 2, keyword)
                command = .event(.markMissing(index, try fileURL(file)))
            }
            steps.append(Step(command: command, line: head.line, column: head.column))
        }

        /// The command of a word that takes no argument.
        private static func plainCommand(_ keyword: Keyword) -> Command {
            switch keyword {
            case .record: .event(.record)
            case .cancel: .event(.cancel)
            case .add: .event(.add)
            case .resume: .event(.resume)
            case .disarm: .event(.disarmUndo)
            case .disappear: .disappear
            default: .appear
            }
        }

        /// Refuses an argument after the first `count`.
        static func expectNoMore(_ arguments: [Token], after count: Int, _ keyword: Keyword) throws(ParseError) {
            guard arguments.count > count else { return }
            let extra = arguments[count]
            throw ParseError(
                line: extra.line, column: extra.column,
                reason: .extraArgument(word: keyword.rawValue, argument: extra.text))
        }

        /// The one integer argument of `tap`, `delete`, `remove`, `undo`, `relink` and `scroll` (and the first of
        /// `missing`).
        private static func index(_ arguments: [Token], _ keyword: Keyword, head: Token) throws(ParseError) -> Int {
            guard let argument = arguments.first else {
                throw ParseError(
                    line: head.line, column: head.endColumn, reason: .missingArgument(word: keyword.rawValue))
            }
            guard !argument.quoted, let index = Int(argument.text) else {
                let text = argument.text
                let digits = text.first == "-" || text.first == "+" ? text.dropFirst() : text[...]
                let isInteger = !argument.quoted && !digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber }
                throw ParseError(
                    line: argument.line, column: argument.column,
                    reason: isInteger
                        ? .numberOutOfRange(word: keyword.rawValue, argument: argument.text)
                        : .notANumber(word: keyword.rawValue, argument: argument.text))
            }
            try expectNoMore(arguments, after: 1, keyword)
            return index
        }

        /// `stop [FILE]`: a bare `stop` gets its synthetic file in `finish()`.
        private mutating func stopCommand(_ arguments: [Token], _ keyword: Keyword) throws(ParseError) -> Command {
            try Self.expectNoMore(arguments, after: 1, keyword)
            guard let file = arguments.first else {
                bareStops.append(steps.count)
                // A placeholder: `finish()` gives it its synthetic file.
                return .event(.cancel)
            }
            return .event(.stop(try fileURL(file)))
        }

        /// The URL of a file argument, which must be a name a file can have.
        mutating func fileURL(_ file: Token) throws(ParseError) -> URL {
            guard !file.text.isEmpty else {
                throw ParseError(line: file.line, column: file.column, reason: .emptyFileName)
            }
            guard !file.text.unicodeScalars.contains("\0") else {
                throw ParseError(line: file.line, column: file.column, reason: .nulInFileName)
            }
            explicitFiles.insert(file.text)
            return CanvasScript.takeURL(file.text, baseDirectory: baseDirectory)
        }
    }
}

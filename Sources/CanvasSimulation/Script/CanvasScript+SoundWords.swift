import CanvasKit
import Foundation

extension CanvasScript.Parser {
    /// `music FILE [START] [gain G] [loop]` (START: the second of the file at timeline 0; G: a gain of at least 0) or
    /// `music off`.
    mutating func soundtrack(_ arguments: [Token], head: Token) throws(ParseError) -> Soundtrack? {
        guard let file = arguments.first else {
            throw ParseError(line: head.line, column: head.endColumn, reason: .missingArgument(word: "music"))
        }
        if !file.quoted, file.text == "off" {
            try Self.expectNoMore(arguments, after: 1, .music)
            return nil
        }
        var soundtrack = Soundtrack(url: try fileURL(file))
        var rest = arguments.dropFirst()[...]
        if let start = rest.first, !start.quoted, let seconds = Double(start.text) {
            guard seconds.isFinite else { throw Self.invalid(start, .music, expected: "a finite start in seconds") }
            soundtrack.start = seconds
            rest = rest.dropFirst()
        }
        if let word = rest.first, !word.quoted, word.text == "gain" {
            guard let value = rest.dropFirst().first else {
                throw ParseError(line: word.line, column: word.endColumn, reason: .missingArgument(word: "music"))
            }
            guard !value.quoted, let gain = Double(value.text), gain.isFinite, gain >= 0 else {
                throw Self.invalid(value, .music, expected: "a gain (a number at least 0)")
            }
            soundtrack.gain = gain
            rest = rest.dropFirst(2)
        }
        if let word = rest.first, !word.quoted, word.text == "loop" {
            soundtrack.loops = true
            rest = rest.dropFirst()
        }
        if let extra = rest.first {
            throw Self.invalid(extra, .music, expected: "a start in seconds, 'gain G' or 'loop' after the file")
        }
        return soundtrack
    }

    /// `mic on` or `mic off`.
    static func toggle(_ arguments: [Token], _ keyword: Keyword, head: Token) throws(ParseError) -> Bool {
        guard let argument = arguments.first else {
            throw ParseError(line: head.line, column: head.endColumn, reason: .missingArgument(word: keyword.rawValue))
        }
        try expectNoMore(arguments, after: 1, keyword)
        switch (argument.quoted, argument.text) {
        case (false, "on"): return true
        case (false, "off"): return false
        default: throw invalid(argument, keyword, expected: "'on' or 'off'")
        }
    }

    /// `wait SECONDS`: a finite number of seconds, at least 0.
    static func seconds(_ arguments: [Token], _ keyword: Keyword, head: Token) throws(ParseError) -> Double {
        guard let argument = arguments.first else {
            throw ParseError(line: head.line, column: head.endColumn, reason: .missingArgument(word: keyword.rawValue))
        }
        try expectNoMore(arguments, after: 1, keyword)
        guard !argument.quoted, let seconds = Double(argument.text), seconds.isFinite, seconds >= 0 else {
            throw invalid(argument, keyword, expected: "a number of seconds (at least 0)")
        }
        return seconds
    }

    private static func invalid(_ token: Token, _ keyword: Keyword, expected: String) -> ParseError {
        ParseError(
            line: token.line, column: token.column,
            reason: .invalidArgument(word: keyword.rawValue, argument: token.text, expected: expected))
    }
}

import CanvasKit
import Foundation

extension CanvasScript.Parser {
    typealias ParseError = CanvasScript.ParseError
    typealias Token = CanvasScript.Token

    /// The recorder's answers: `started SECONDS` (the host time of the first sample), `failed PROBLEM` and
    /// `cut-short PROBLEM [FILE]` (a playable file ends the recording as `stop`, none as `cancel`), PROBLEM one of
    /// `RecorderProblem`'s names.
    mutating func recorderAnswer(_ keyword: Keyword, head: Token, arguments: [Token]) throws(ParseError) -> CanvasEvent
    {
        guard let argument = arguments.first else {
            throw ParseError(line: head.line, column: head.endColumn, reason: .missingArgument(word: keyword.rawValue))
        }
        let allowed = keyword == .cutShort ? 2 : 1
        if arguments.count > allowed {
            let extra = arguments[allowed]
            throw ParseError(
                line: extra.line, column: extra.column,
                reason: .extraArgument(word: keyword.rawValue, argument: extra.text))
        }
        if keyword == .started {
            guard !argument.quoted, let seconds = Double(argument.text), seconds.isFinite else {
                throw ParseError(
                    line: argument.line, column: argument.column,
                    reason: .invalidArgument(word: keyword.rawValue, argument: argument.text, expected: "a number"))
            }
            return .recordingStarted(at: HostTime(seconds: seconds))
        }
        guard !argument.quoted, let problem = RecorderProblem(rawValue: argument.text) else {
            let names = RecorderProblem.allCases.map(\.rawValue).joined(separator: ", ")
            throw ParseError(
                line: argument.line, column: argument.column,
                reason: .invalidArgument(word: keyword.rawValue, argument: argument.text, expected: "one of \(names)"))
        }
        guard keyword == .cutShort else { return .recordingFailed(problem) }
        guard let file = arguments.dropFirst().first else { return .recordingCutShort(problem, file: nil) }
        return .recordingCutShort(problem, file: try fileURL(file))
    }
}

import CanvasKit

extension CanvasScript {
    /// Why a script could not be parsed, and where.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        /// What is wrong.
        public enum Reason: Sendable, Hashable {
            /// The first word of a command is not an event word; `suggestion` is a close known word, if any.
            case unknownWord(String, suggestion: String?)
            /// The word needs an argument that is not there.
            case missingArgument(word: String)
            /// The word needs an integer and got something else.
            case notANumber(word: String, argument: String)
            /// The word got a decimal integer too large (or too small) for `Int`: no board has such an index, and no
            /// event can carry it, so the script is malformed rather than the step rejected.
            case numberOutOfRange(word: String, argument: String)
            /// The word's argument is not one it takes; `expected` says what it takes.
            case invalidArgument(word: String, argument: String, expected: String)
            /// The word got more arguments than it takes.
            case extraArgument(word: String, argument: String)
            /// A quoted file name has no closing quote on its line.
            case unterminatedQuote
            /// A quoted file name is empty.
            case emptyFileName
            /// A closing quote is followed by something other than a space, `;`, `#` or the end of the line.
            case textAfterQuote(String)
            /// A file name contains the NUL character, which no file system path can hold (the file could not be
            /// named, and the printed script would not read back as the same file).
            case nulInFileName
            /// The script's bytes are not UTF-8 text; the place is that of the first byte that is not.
            case notUTF8(byte: UInt8)
        }

        /// The 1-based line of the problem.
        public var line: Int
        /// The 1-based column (in characters) of the problem.
        public var column: Int
        /// What is wrong.
        public var reason: Reason

        /// An error at the given place.
        public init(line: Int, column: Int, reason: Reason) {
            self.line = line
            self.column = column
            self.reason = reason
        }

        /// The longest piece of the script a message quotes whole; a longer one is cut (see ``message``).
        public static let quotedLengthLimit = 40

        /// The one-line message without the place, e.g. `unknown event 'tapp' (did you mean 'tap'?)`. Control and
        /// format characters from the script (a NUL, an escape sequence, a line separator) are written as `\u{1B}`, so
        /// the message stays one printable line, and a quoted piece longer than ``quotedLengthLimit`` characters is
        /// cut to its start with its length: `'aaaaaaaa...' (100000 characters)`.
        public var message: String {
            func quoted(_ text: String) -> String {
                guard text.count > Self.quotedLengthLimit else { return "'" + escaped(text) + "'" }
                return "'" + escaped(String(text.prefix(Self.quotedLengthLimit))) + "...' (\(text.count) characters)"
            }
            func escaped(_ text: String) -> String {
                text.unicodeScalars.map { scalar in
                    switch scalar.properties.generalCategory {
                    case .control, .format, .lineSeparator, .paragraphSeparator:
                        "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
                    default: String(scalar)
                    }
                }.joined()
            }
            return switch reason {
            case .unknownWord(let word, let suggestion?):
                "unknown event \(quoted(word)) (did you mean '\(suggestion)'?)"
            case .unknownWord(let word, nil):
                "unknown event \(quoted(word)); expected one of \(Keyword.allCases.map(\.rawValue).joined(separator: ", "))"
            case .missingArgument(let word):
                if let keyword = Keyword(rawValue: word) {
                    "'\(word)' needs \(keyword.argumentName), e.g. '\(keyword.example)'"
                } else {
                    "'\(word)' needs an argument"
                }
            case .notANumber(let word, let argument):
                "'\(word)' expects \(Keyword(rawValue: word)?.argumentName ?? "an integer") (an integer), got \(quoted(argument))"
            case .numberOutOfRange(let word, let argument):
                "'\(word)' got \(argument.count > Self.quotedLengthLimit ? quoted(argument) : argument), beyond any index (from \(Int.min) to \(Int.max))"
            case .invalidArgument(let word, let argument, let expected):
                "'\(word)' expects \(expected), got \(quoted(argument))"
            case .extraArgument(let word, let argument):
                switch Keyword(rawValue: word) {
                case let keyword?
                where keyword.arity == .index || keyword.arity == .toggle || keyword.arity == .seconds
                    || keyword == .started || keyword == .failed:
                    "'\(word)' takes one \(keyword.argumentNoun), got an extra \(quoted(argument))"
                case let keyword? where keyword.arity == .optionalFile || keyword == .cutShort:
                    "'\(word)' takes at most \(keyword == .cutShort ? "a problem and a file" : "one \(keyword.argumentNoun)"), got an extra \(quoted(argument))"
                default:
                    "'\(word)' takes no argument, got \(quoted(argument))"
                }
            case .unterminatedQuote:
                "unterminated quoted file name (missing closing '\"')"
            case .emptyFileName:
                "empty file name"
            case .textAfterQuote(let text):
                "unexpected \(quoted(text)) right after a quoted file name"
            case .nulInFileName:
                "a file name cannot contain the NUL character (U+0000)"
            case .notUTF8(let byte):
                "not UTF-8 text: byte 0x\(String(byte, radix: 16, uppercase: true)) cannot start or continue a character"
            }
        }

        /// `line L, column C: message`.
        public var description: String { "line \(line), column \(column): \(message)" }
    }
}

/// How the tools quote an argument in a message.
public enum OptionSyntax {}

extension OptionSyntax {
    /// The longest argument a message quotes whole.
    public static let quotedLengthLimit = 40

    /// `text` in single quotes for a one-line message: control characters written as `\u{1B}`, and an argument
    /// longer than ``quotedLengthLimit`` characters cut to its start with its length, `'aaaa...' (100000 characters)`.
    public static func quoted(_ text: String) -> String {
        func escaped(_ text: Substring) -> String {
            text.unicodeScalars.map { scalar in
                switch scalar.properties.generalCategory {
                case .control, .format, .lineSeparator, .paragraphSeparator:
                    "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
                default: String(scalar)
                }
            }.joined()
        }
        guard text.count > quotedLengthLimit else { return "'" + escaped(text[...]) + "'" }
        return "'" + escaped(text.prefix(quotedLengthLimit)) + "...' (\(text.count) characters)"
    }
}

/// The version both tools print for `--version` (the package's release, as in CHANGELOG.md).
public enum ToolVersion {
    /// The release, in semantic-versioning form.
    public static let current = "0.1.0"

    /// The line `--version` prints: the tool's name and the release, e.g. `canvas-thumb 0.1.0`.
    public static func line(for tool: String) -> String {
        "\(tool) \(current)"
    }
}

/// The option spellings both tools accept, beyond what each tool's own parser knows.
///
/// Long options take their value either as the next argument (`--max-size 320x320`) or after an equals sign
/// (`--max-size=320x320`), as GNU `getopt_long` and swift-argument-parser do. Each tool's parser reads the first
/// form; ``expandingEqualsForm(_:valued:)`` turns the second into the first before parsing.
public enum OptionSyntax {
    /// `arguments` with every `--name=value` whose `--name` is in `valued` split into `--name` and `value`.
    ///
    /// A `--name=value` whose name takes no value is kept as it is, so the tool's parser names it as an unknown
    /// option; an argument after `--` (the end of options) or one that does not start with `--` is never split. The
    /// value may be empty (`--render=`) and may itself contain `=`: only the first one separates.
    public static func expandingEqualsForm(_ arguments: [String], valued: Set<String>) -> [String] {
        var expanded: [String] = []
        expanded.reserveCapacity(arguments.count)
        var optionsEnded = false
        for argument in arguments {
            if optionsEnded || !argument.hasPrefix("--") {
                expanded.append(argument)
            } else if argument == "--" {
                optionsEnded = true
                expanded.append(argument)
            } else if let equals = argument.firstIndex(of: "="), valued.contains(String(argument[..<equals])) {
                expanded.append(String(argument[..<equals]))
                expanded.append(String(argument[argument.index(after: equals)...]))
            } else {
                expanded.append(argument)
            }
        }
        return expanded
    }
}

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

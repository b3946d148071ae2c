/// A command line read against a declared list of options: which take a value, which may be repeated, which exclude
/// each other. Everything else (the arguments that are not options, and everything after `--`) is an operand.
///
/// The rules, the same for every tool: `--name value` and `--name=value`; an unknown option (a flag given a value,
/// `--json=1`, is one), a missing value, an option given twice (unless declared repeatable), two options of one
/// group (`--fit` with `--fill`, `-o` with `--output`) and an option with one it excludes (`--target` with `--size`)
/// are each a ``OptionUsageError`` with a one-line message naming them. A lone `-` is an operand (standard input or output, as the tool says).
public struct OptionParser: Sendable {
    /// One option the tool accepts.
    public struct Option: Sendable {
        /// Its spellings (`["-o", "--output"]`); the first is the name the parsed result files it under.
        public var names: [String]
        /// Whether it takes a value.
        public var takesValue: Bool
        /// Whether it may be given more than once (each value is kept, in order).
        public var repeatable: Bool
        /// Options of one group exclude each other (nil: its own group).
        public var group: String?
        /// Other options (by any of their spellings) this one cannot be given with, whatever their group.
        public var excludes: [String]

        /// An option spelled `names`; see the properties.
        public init(
            _ names: [String], takesValue: Bool = false, repeatable: Bool = false, group: String? = nil,
            excludes: [String] = []
        ) {
            self.names = names
            self.takesValue = takesValue
            self.repeatable = repeatable
            self.group = group
            self.excludes = excludes
        }
    }

    /// What a command line held: each option given (by its first name) with its values, and the operands, each as
    /// the `Argument` it was given as (a `String`, or the exact bytes of ``OptionParser/parse(bytes:)``).
    public struct Parsed<Argument: Sendable>: Sendable {
        /// The values of each option given, by its first name (empty for an option without a value).
        public var values: [String: [Argument]] = [:]
        /// The arguments that are not options, in order.
        public var operands: [Argument] = []
        /// How each option given was spelled (`-t` or `--time`), by its first name, for messages about its value.
        public var spellings: [String: String] = [:]

        /// How the option named `name` was spelled when given (its first name when it was not).
        public func spelling(_ name: String) -> String { spellings[name] ?? name }

        /// Whether the option named `name` was given.
        public func has(_ name: String) -> Bool { values[name] != nil }
        /// The value of the option named `name` (its last, for a repeatable one), nil when it was not given.
        public func value(_ name: String) -> Argument? { values[name]?.last }
    }

    private let options: [Option]
    private let byName: [String: Int]

    /// A parser of `options`. - Precondition: no spelling is declared twice.
    public init(_ options: [Option]) {
        self.options = options
        var byName: [String: Int] = [:]
        for (index, option) in options.enumerated() {
            for name in option.names {
                precondition(byName[name] == nil, "option \(name) declared twice")
                byName[name] = index
            }
        }
        self.byName = byName
    }

    /// Reads `arguments` (without the program's name).
    ///
    /// - Throws: ``OptionUsageError`` for an unknown option, a missing or unexpected value, a repeat or a conflict.
    public func parse(_ arguments: [String]) throws(OptionUsageError) -> Parsed<String> {
        let splitting = { (argument: String) -> (String, String)? in
            guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else { return nil }
            return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
        }
        return try parse(arguments, text: { $0 }, splitting: splitting)
    }

    /// Reads the raw bytes of the arguments (without the program's name): option names are read as UTF-8, values
    /// and operands are kept as their exact bytes (a file name need not be UTF-8).
    ///
    /// - Throws: as ``parse(_:)``.
    public func parse(bytes arguments: [[UInt8]]) throws(OptionUsageError) -> Parsed<[UInt8]> {
        let splitting = { (argument: [UInt8]) -> (String, [UInt8])? in
            guard argument.starts(with: Array("--".utf8)), let equals = argument.firstIndex(of: UInt8(ascii: "="))
            else { return nil }
            return (String(decoding: argument[..<equals], as: UTF8.self), Array(argument[(equals + 1)...]))
        }
        return try parse(arguments, text: { String(decoding: $0, as: UTF8.self) }, splitting: splitting)
    }

    /// The parse of `arguments`, each read as `text` to tell options from operands, and split by `splitting` into
    /// the name and value of a `--name=value`.
    private func parse<Argument>(
        _ arguments: [Argument], text: (Argument) -> String, splitting: (Argument) -> (String, Argument)?
    ) throws(OptionUsageError) -> Parsed<Argument> {
        var parsed = Parsed<Argument>()
        var given: [String: String] = [:]
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            let spelled = text(argument)
            index += 1
            if optionsEnded || !spelled.hasPrefix("-") || spelled == "-" {
                parsed.operands.append(argument)
                continue
            }
            if spelled == "--" {
                optionsEnded = true
                continue
            }
            let split = splitting(argument)
            let name = split?.0 ?? spelled
            guard let position = byName[name] else {
                throw OptionUsageError("unknown option \(OptionSyntax.quoted(spelled))")
            }
            let option = options[position]
            try Self.checkRepeat(of: name, option: option, given: &given)
            var value: [Argument] = []
            if option.takesValue {
                if let inline = split?.1 {
                    value = [inline]
                } else {
                    guard index < arguments.count else { throw OptionUsageError("\(name) needs a value") }
                    value = [arguments[index]]
                    index += 1
                }
            } else if split != nil {
                // A flag given a value is not a spelling of any option.
                throw OptionUsageError("unknown option \(OptionSyntax.quoted(spelled))")
            }
            parsed.values[option.names[0], default: []] += value
            parsed.spellings[option.names[0]] = name
        }
        try checkExclusions(in: parsed)
        return parsed
    }

    /// Throws when an option was given with one it excludes.
    private func checkExclusions<Argument>(in parsed: Parsed<Argument>) throws(OptionUsageError) {
        for option in options where parsed.has(option.names[0]) {
            // An excluded option may be named by any of its spellings; what was given is filed under its first.
            let excluded = option.excludes.map { name in byName[name].map { options[$0].names[0] } ?? name }
            if let other = excluded.first(where: { parsed.has($0) }) {
                throw OptionUsageError(
                    "\(parsed.spelling(option.names[0])) and \(parsed.spelling(other)) cannot be used together")
            }
        }
    }

    /// Throws when `name` repeats an option not declared repeatable, or joins another of its group.
    private static func checkRepeat(
        of name: String, option: Option, given: inout [String: String]
    ) throws(OptionUsageError) {
        guard !option.repeatable else { return }
        let group = option.group ?? option.names[0]
        if let earlier = given[group] {
            throw OptionUsageError(
                earlier == name ? "\(name) is given more than once" : "\(earlier) and \(name) cannot be used together")
        }
        given[group] = name
    }
}

/// A command line that does not follow a tool's options: one line naming what was wrong. Each tool prints it after
/// its name and exits with its usage status (2).
public struct OptionUsageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The one-line message, e.g. `--fit and --fill cannot be used together`.
    public let message: String

    /// An error saying `message`.
    public init(_ message: String) { self.message = message }

    /// The ``message``.
    public var description: String { message }
}

/// One JSON object written on one line, with its keys in the order they were added.
///
/// The command-line tools print one object per line (`--json`, `--format json`) with the field
/// order of the interface they document; Foundation's `JSONEncoder` does not keep key order, so
/// the tools build their lines with this type instead.
public struct JSONLine: Sendable, CustomStringConvertible {
    /// A JSON value.
    public indirect enum Value: Sendable {
        /// `null`.
        case null
        /// `true` or `false`.
        case bool(Bool)
        /// An integer.
        case int(Int)
        /// A number; a non-finite one is written as `null`.
        case double(Double)
        /// A string, escaped as JSON requires.
        case string(String)
        /// An array.
        case array([Value])
        /// A nested object.
        case object(JSONLine)
    }

    private var fields: [(key: String, value: Value)] = []

    /// An empty object.
    public init() {}

    /// Adds `key` with `value` after the keys already added.
    public mutating func add(_ key: String, _ value: Value) {
        fields.append((key, value))
    }

    /// The object as compact JSON text, without a line break.
    public var description: String {
        var text = ""
        Self.write(.object(self), into: &text)
        return text
    }

    private static func write(_ value: Value, into text: inout String) {
        switch value {
        case .null: text += "null"
        case .bool(let flag): text += flag ? "true" : "false"
        case .int(let number): text += String(number)
        case .double(let number): text += number.isFinite ? String(number) : "null"
        case .string(let string): writeString(string, into: &text)
        case .array(let values):
            text += "["
            for (offset, element) in values.enumerated() {
                if offset > 0 { text += "," }
                write(element, into: &text)
            }
            text += "]"
        case .object(let object):
            text += "{"
            for (offset, field) in object.fields.enumerated() {
                if offset > 0 { text += "," }
                writeString(field.key, into: &text)
                text += ":"
                write(field.value, into: &text)
            }
            text += "}"
        }
    }

    private static func writeString(_ string: String, into text: inout String) {
        text += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}

extension JSONLine.Value {
    /// `.string(string)`, or `.null` when `string` is nil.
    public static func nullable(_ string: String?) -> JSONLine.Value {
        string.map { .string($0) } ?? .null
    }
}

import Foundation

/// How take URLs are written in descriptions and in the script language.
enum TakeName {
    /// A file URL as its path relative to its base (`take-1.mov`), any other URL as its absolute string.
    static func describe(_ url: URL) -> String {
        url.isFileURL ? url.relativePath : url.absoluteString
    }

    /// The take as one word of the script language: quoted when it contains a space, `;`, `#`, `"` or `\`.
    static func scriptWord(for url: URL) -> String {
        let text = describe(url)
        let needsQuotes =
            text.isEmpty || text.contains { $0.isWhitespace || $0 == ";" || $0 == "#" || $0 == "\"" || $0 == "\\" }
        guard needsQuotes else { return text }
        var quoted = "\""
        for character in text {
            if character == "\"" || character == "\\" { quoted.append("\\") }
            quoted.append(character)
        }
        return quoted + "\""
    }
}

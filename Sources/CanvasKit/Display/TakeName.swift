import Foundation

/// How take URLs are written in descriptions, transcripts and the script language, so that every tool prints a take
/// the same way (for example the `video` field of `canvas-sim`'s JSON).
public enum TakeName {
    /// A file URL as its path relative to its base (`take-1.mov` for a file the script named `take-1.mov`, an absolute
    /// path for a file given as one), any other URL as its absolute string.
    public static func describe(_ url: URL) -> String {
        url.isFileURL ? url.relativePath : url.absoluteString
    }

    /// The take as one word of the script language: `describe(url)`, in double quotes (with `\"` and `\\` escapes)
    /// when it contains a space, `;`, `#`, `"` or `\`. `CanvasScript` parses it back to the same file (file URLs).
    public static func scriptWord(for url: URL) -> String {
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

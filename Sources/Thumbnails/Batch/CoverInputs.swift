import Foundation

/// Turns command-line style input arguments into the list of files to make covers from.
///
/// An argument is a file path (kept even when it does not exist, so that its own error is reported
/// per input), a directory (searched recursively for files whose extension is in
/// ``videoFileExtensions``, in path order), or `-` (one path per line from standard input,
/// blank lines ignored). The order of the arguments is kept; nothing is deduplicated.
public enum CoverInputs {
    /// The file extensions (lowercase, without the dot) taken from a directory.
    public static let videoFileExtensions: Set<String> = [
        "3g2", "3gp", "avi", "flv", "m2ts", "m4v", "mkv", "mov", "mp4", "mpeg", "mpg", "mts", "mxf", "ogv", "ts",
        "webm", "wmv",
    ]

    /// Expands `arguments` into input files.
    ///
    /// - Parameters:
    ///   - arguments: paths, directories, or `-`.
    ///   - readStandardInput: called once for the first `-` (later ones add nothing); returns all of
    ///     standard input as text.
    /// - Returns: the files in argument order, each directory's files sorted by path.
    /// - Throws: ``ThumbnailError`` with kind `.notReadable` when a directory cannot be listed.
    public static func expand(
        _ arguments: [String],
        readStandardInput: () -> String = { String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self) }
    ) throws(ThumbnailError) -> [URL] {
        var files: [URL] = []
        var readStdin = false
        for argument in arguments {
            if argument == "-" {
                guard !readStdin else { continue }
                readStdin = true
                files += readStandardInput().split(whereSeparator: \.isNewline)
                    .map { $0.trimmingCharacters(in: .whitespaces) }
                    .filter { !$0.isEmpty }
                    .map { URL(fileURLWithPath: $0) }
                continue
            }
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory), isDirectory.boolValue {
                files += try videoFiles(under: argument)
            } else {
                files.append(URL(fileURLWithPath: argument))
            }
        }
        return files
    }

    /// The video files below `directory`, recursively, sorted by path; relative paths stay
    /// relative (so reports show them as the user typed them).
    static func videoFiles(under directory: String) throws(ThumbnailError) -> [URL] {
        let manager = FileManager.default
        guard let walker = manager.enumerator(atPath: directory) else {
            throw ThumbnailError(.notReadable, reason: "\(directory): the directory cannot be listed")
        }
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        var found: [String] = []
        while let relative = walker.nextObject() as? String {
            let ext = (relative as NSString).pathExtension.lowercased()
            guard videoFileExtensions.contains(ext) else { continue }
            let path = prefix + relative
            var isDirectory: ObjCBool = false
            if manager.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
                found.append(path)
            }
        }
        return found.sorted().map { URL(fileURLWithPath: $0) }
    }
}

import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Turns command-line style input arguments into the list of files to make covers from.
///
/// An argument is a file path (kept even when it does not exist, so that its own error is reported
/// per input), a directory (searched recursively for files whose extension is in
/// ``videoFileExtensions``, in path order), or `-` (one path per line from standard input,
/// blank lines ignored). The order of the arguments is kept; nothing is deduplicated.
///
/// Inside a directory, symbolic links to files are followed and links to directories are not
/// (so a link to a parent cannot loop); a folder that cannot be listed is reported in
/// ``Expansion/unlistedDirectories``, never skipped silently, and the files found elsewhere are
/// still listed.
public enum CoverInputs {
    /// The file extensions (lowercase, without the dot) taken from a directory.
    public static let videoFileExtensions: Set<String> = [
        "3g2", "3gp", "avi", "flv", "m2ts", "m4v", "mkv", "mov", "mp4", "mpeg", "mpg", "mts", "mxf", "ogv", "ts",
        "webm", "wmv",
    ]

    /// The files the arguments name, and the directories that could not be searched.
    public struct Expansion: Sendable {
        /// The files in argument order, each directory's files sorted by path.
        public var files: [URL] = []
        /// The directories (given, or met while recursing) that could not be listed.
        public var unlistedDirectories: [UnlistedDirectory] = []
    }

    /// A directory that could not be searched for videos.
    public struct UnlistedDirectory: Sendable {
        /// Its path, as given or as reached from the given directory.
        public var path: String
        /// `.notReadable`, naming it and giving the system's reason.
        public var error: ThumbnailError
    }

    /// Expands `arguments` into input files.
    ///
    /// - Parameters:
    ///   - arguments: paths, directories, or `-`.
    ///   - readStandardInput: called once for the first `-` (later ones add nothing); returns all of
    ///     standard input as text.
    public static func expand(
        _ arguments: [String],
        readStandardInput: () -> String = {
            String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
        }
    ) -> Expansion {
        var expansion = Expansion()
        var readStdin = false
        for argument in arguments {
            if argument == "-" {
                guard !readStdin else { continue }
                readStdin = true
                expansion.files += readStandardInput().split(whereSeparator: \.isNewline)
                    .map { $0.trimmingCharacters(in: .whitespaces) }
                    .filter { !$0.isEmpty }
                    .map { URL(fileURLWithPath: $0) }
                continue
            }
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory), isDirectory.boolValue {
                var found: [String] = []
                collectVideoFiles(under: argument, into: &found, problems: &expansion.unlistedDirectories)
                expansion.files += found.sorted().map { URL(fileURLWithPath: $0) }
            } else {
                expansion.files.append(URL(fileURLWithPath: argument))
            }
        }
        return expansion
    }

    /// Appends the video files below `directory`, recursively (relative paths stay relative, so
    /// reports show them as the user typed them), and a problem for each folder that cannot be
    /// listed.
    private static func collectVideoFiles(
        under directory: String,
        into found: inout [String],
        problems: inout [UnlistedDirectory]
    ) {
        guard let handle = opendir(directory) else {
            let message = String(cString: strerror(errno))
            let error = ThumbnailError(.notReadable, reason: "\(directory): cannot list the directory: \(message)")
            problems.append(UnlistedDirectory(path: directory, error: error))
            return
        }
        defer { closedir(handle) }
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name != ".", name != ".." else { continue }
            let path = prefix + name
            var status = stat()
            guard lstat(path, &status) == 0 else { continue }
            switch status.st_mode & S_IFMT {
            case S_IFDIR:
                collectVideoFiles(under: path, into: &found, problems: &problems)
            case S_IFLNK:
                // A link to a directory is not followed; a dangling one is kept, to be reported.
                var target = stat()
                let isDirectory = stat(path, &target) == 0 && target.st_mode & S_IFMT == S_IFDIR
                if !isDirectory, isVideoFile(name) { found.append(path) }
            default:
                if isVideoFile(name) { found.append(path) }
            }
        }
    }

    private static func isVideoFile(_ name: String) -> Bool {
        videoFileExtensions.contains((name as NSString).pathExtension.lowercased())
    }
}

import Foundation
import MediaCore
import Thumbnails

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
/// ``videoFileExtensions``, in byte order of their paths), or `-` (paths from standard input: one
/// per line, surrounding spaces, tabs and carriage returns trimmed and blank lines ignored; or,
/// when the input holds a NUL byte, separated by NUL bytes and taken exactly, as `find -print0`
/// writes them). The order of the arguments is kept; nothing is deduplicated.
///
/// Paths are bytes (``FileSystemPath``): a name that is not UTF-8 is found, listed and opened like
/// any other. Inside a directory, symbolic links to files are followed and links to directories
/// are not (so a link to a parent cannot loop). Nothing is skipped silently: a folder that cannot
/// be listed, or an entry whose type cannot be read, is reported in ``Expansion/unreadable``, and
/// the files found elsewhere are still listed.
public enum CoverInputs {
    /// The file extensions (lowercase, without the dot) taken from a directory.
    public static let videoFileExtensions: Set<String> = [
        "3g2", "3gp", "avi", "flv", "m2ts", "m4v", "mkv", "mov", "mp4", "mpeg", "mpg", "mts", "mxf", "ogv", "ts",
        "webm", "wmv",
    ]

    /// The files the arguments name, and what could not be searched.
    public struct Expansion: Sendable {
        /// The files in argument order, each directory's files sorted by path.
        public var files: [FileSystemPath] = []
        /// The folders (given, or met while recursing) that could not be listed, and the entries
        /// whose type could not be read, in the order they were met.
        public var unreadable: [UnreadableEntry] = []
    }

    /// A folder that could not be searched for videos, or an entry of one that could not be read.
    public struct UnreadableEntry: Sendable {
        /// Its path, as given or as reached from the given directory.
        public var path: FileSystemPath
        /// `.notReadable`, naming it and giving the system's reason.
        public var error: ThumbnailError

        /// An entry at `path` that could not be read, and why.
        public init(path: FileSystemPath, error: ThumbnailError) {
            self.path = path
            self.error = error
        }
    }

    /// Expands `arguments` into input files.
    ///
    /// - Parameters:
    ///   - arguments: paths, directories, or `-`.
    ///   - readStandardInput: called once for the first `-` (later ones add nothing); returns all of
    ///     standard input.
    public static func expand(
        _ arguments: [FileSystemPath],
        readStandardInput: () -> [UInt8] = { Array(FileHandle.standardInput.readDataToEndOfFile()) }
    ) -> Expansion {
        var expansion = Expansion()
        var readStdin = false
        for argument in arguments {
            if argument.bytes == [UInt8(ascii: "-")] {
                guard !readStdin else { continue }
                readStdin = true
                expansion.files += paths(inList: readStandardInput())
                continue
            }
            if case .directory = FileStatus(path: argument) {
                var found: [FileSystemPath] = []
                collectVideoFiles(under: argument, into: &found, problems: &expansion.unreadable)
                expansion.files += found.sorted()
            } else {
                expansion.files.append(argument)
            }
        }
        return expansion
    }

    /// The paths of a list read from standard input.
    static func paths(inList list: [UInt8]) -> [FileSystemPath] {
        if list.contains(0) {
            return list.split(separator: 0).map { FileSystemPath(unchecked: Array($0)) }
        }
        let blank: Set<UInt8> = [UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r")]
        return list.split(separator: UInt8(ascii: "\n")).compactMap { line in
            let trimmed = line.drop { blank.contains($0) }.reversed().drop { blank.contains($0) }.reversed()
            return trimmed.isEmpty ? nil : FileSystemPath(unchecked: Array(trimmed))
        }
    }

    /// Appends the video files below `directory`, recursively (relative paths stay relative, so
    /// reports show them as the user typed them), and a problem for each folder that cannot be
    /// listed and each entry that cannot be examined.
    private static func collectVideoFiles(
        under directory: FileSystemPath,
        into found: inout [FileSystemPath],
        problems: inout [UnreadableEntry]
    ) {
        guard let handle = directory.withCString({ opendir($0) }) else {
            problems.append(unreadable(directory, "cannot list the directory"))
            return
        }
        defer { closedir(handle) }
        while true {
            errno = 0
            guard let entry = readdir(handle) else {
                // NULL with errno set is a failed read, not the end: what is left is unknown.
                if errno != 0 { problems.append(unreadable(directory, "cannot list the whole directory")) }
                return
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
            guard name != [UInt8(ascii: ".")], name != [UInt8(ascii: "."), UInt8(ascii: ".")] else { continue }
            let path = directory.appending(component: name)
            var status = stat()
            guard path.withCString({ lstat($0, &status) }) == 0 else {
                problems.append(unreadable(path, "cannot read the directory entry"))
                continue
            }
            switch status.st_mode & S_IFMT {
            case S_IFDIR:
                collectVideoFiles(under: path, into: &found, problems: &problems)
            case S_IFLNK:
                // A link to a directory is not followed; a dangling one is kept, to be reported.
                var target = stat()
                let isDirectory = path.withCString({ stat($0, &target) }) == 0 && target.st_mode & S_IFMT == S_IFDIR
                if !isDirectory, isVideoFile(path) { found.append(path) }
            default:
                if isVideoFile(path) { found.append(path) }
            }
        }
    }

    /// A `.notReadable` entry for `path`, with `errno`'s message.
    private static func unreadable(_ path: FileSystemPath, _ action: String) -> UnreadableEntry {
        let message = String(cString: strerror(errno))
        return UnreadableEntry(
            path: path, error: ThumbnailError(.notReadable, reason: "\(path.escaped): \(action): \(message)"))
    }

    private static func isVideoFile(_ path: FileSystemPath) -> Bool {
        videoFileExtensions.contains(path.pathExtension)
    }
}

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
/// per input), a directory (walked recursively, in byte order of the paths), or `-` (paths from standard input: one
/// per line, surrounding spaces, tabs and carriage returns trimmed and blank lines ignored; or,
/// when the input holds a NUL byte, separated by NUL bytes and taken exactly, as `find -print0`
/// writes them). The order of the arguments is kept; nothing is deduplicated.
///
/// A folder walk has one rule: every file FFmpeg can open as a video or a picture is a candidate, whatever its name
/// (`.mp4`, `.gif`, a raw `.h264` stream, a `.jpg`). Which ones those are is FFmpeg's probe's answer on each file's
/// first 64 KiB (its format signatures; no demuxer or decoder runs here): a file whose start no format claims, a
/// subtitle, text or metadata file, an empty file, or something that is not a regular file (a FIFO, a socket, a
/// device) is not a candidate, and neither is a PNG or JPEG lying in the output folder (`skippingCoversIn`: covers
/// are written there). A candidate that turns out to hold no video (audio only) is skipped when its cover is tried
/// (``Expansion/walked``). Each skipped file is listed in ``Expansion/skipped`` with the reason, so a tool reports
/// it: nothing is skipped silently. A file named as an argument is always a candidate.
///
/// Paths are bytes (``FileSystemPath``): a name that is not UTF-8 is found, listed and opened like
/// any other. Inside a directory, symbolic links to files are followed and links to directories
/// are not (so a link to a parent cannot loop; each is listed as skipped); a dangling link is a candidate, reported
/// as missing. A folder that cannot be listed, or an entry whose type cannot be read, is reported in
/// ``Expansion/unreadable``, and the files found elsewhere are still listed.
public enum CoverInputs {
    /// The files the arguments name, and what could not be searched.
    public struct Expansion: Sendable {
        /// The files in argument order, each directory's files sorted by path.
        public var files: [FileSystemPath] = []
        /// The folders (given, or met while recursing) that could not be listed, and the entries
        /// whose type could not be read, in the order they were met.
        public var unreadable: [UnreadableEntry] = []
        /// The files of folder walks that are not candidates, with why, each directory's sorted by path.
        public var skipped: [SkippedFile] = []
        /// The positions in ``files`` of the files found by walking a folder (not named): a failure of theirs saying
        /// they hold no video (`.notAMediaFile`, `.noVideoStream`) is a skip, not a failure (see
        /// `CoverBatchReporter`).
        public var walked: Set<Int> = []
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

    /// A file a folder walk did not take, and why.
    public struct SkippedFile: Sendable, Hashable {
        /// Its path, as reached from the given directory.
        public var path: FileSystemPath
        /// One line naming it and why it is no candidate: "takes/notes.txt: not a video or picture FFmpeg
        /// recognises", "takes/clip.srt: a subtitle file (srt), not a video".
        public var reason: String

        /// A file at `path` skipped for `reason`.
        public init(path: FileSystemPath, reason: String) {
            self.path = path
            self.reason = reason
        }
    }

    /// Expands `arguments` into input files.
    ///
    /// - Parameters:
    ///   - arguments: paths, directories, or `-`.
    ///   - outputFolder: the folder covers are written to, whose PNG and JPEG pictures a walk skips; nil for none.
    ///   - readStandardInput: called once for the first `-` (later ones add nothing); returns all of
    ///     standard input.
    public static func expand(
        _ arguments: [FileSystemPath],
        skippingCoversIn outputFolder: FileSystemPath? = nil,
        readStandardInput: () -> [UInt8] = { Array(FileHandle.standardInput.readDataToEndOfFile()) }
    ) -> Expansion {
        var expansion = Expansion()
        var readStdin = false
        let coverFolder = outputFolder.flatMap(FileNode.init)
        for argument in arguments {
            if argument.bytes == [UInt8(ascii: "-")] {
                guard !readStdin else { continue }
                readStdin = true
                expansion.files += paths(inList: readStandardInput())
                continue
            }
            if case .directory = FileStatus(path: argument) {
                var found: [Entry] = []
                collectEntries(under: argument, coverFolder: coverFolder, into: &found, problems: &expansion.unreadable)
                for entry in found.sorted(by: { $0.path < $1.path }) {
                    if let reason = skipReason(entry) {
                        expansion.skipped.append(
                            SkippedFile(path: entry.path, reason: "\(entry.path.escaped): \(reason)"))
                    } else {
                        expansion.walked.insert(expansion.files.count)
                        expansion.files.append(entry.path)
                    }
                }
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

    /// A directory entry met in a walk, before it is examined.
    private struct Entry {
        enum Kind {
            /// A file, or a link to one (or to nothing).
            case file
            /// A link to a directory, not followed.
            case linkToFolder
        }
        var path: FileSystemPath
        var kind: Kind
        /// Whether it lies in the folder covers are written to.
        var inCoverFolder: Bool
    }

    /// Why a walk does not take `entry`, or nil when it is a candidate.
    private static func skipReason(_ entry: Entry) -> String? {
        if entry.kind == .linkToFolder { return "a link to a folder, not followed" }
        if let problem = InputFileProblem(FileStatus(path: entry.path)) {
            switch problem {
            case .special, .empty: return problem.reason
            case .missing, .unreadable, .failed, .directory:
                // Its own error is reported when its cover is tried (a dangling link: missing).
                return nil
            }
        }
        guard let probe = FormatContext.probe(fileAt: entry.path), probe.score >= FormatContext.recognisedScore else {
            return "not a video or picture FFmpeg recognises"
        }
        if let what = InputPolicy.notVideo(demuxer: probe.demuxer) { return "\(what), not a video" }
        if entry.inCoverFolder, probe.demuxer == "png_pipe" || probe.demuxer == "jpeg_pipe" {
            return
                "a \(probe.demuxer == "png_pipe" ? "PNG" : "JPEG") picture in the output folder (covers are written there)"
        }
        return nil
    }

    /// Appends the entries below `directory`, recursively (relative paths stay relative, so
    /// reports show them as the user typed them), and a problem for each folder that cannot be
    /// listed and each entry that cannot be examined.
    private static func collectEntries(
        under directory: FileSystemPath,
        coverFolder: FileNode?,
        into found: inout [Entry],
        problems: inout [UnreadableEntry]
    ) {
        guard let handle = directory.withCString({ opendir($0) }) else {
            problems.append(unreadable(directory, "cannot list the directory"))
            return
        }
        defer { closedir(handle) }
        let inCoverFolder = coverFolder != nil && FileNode(directory) == coverFolder
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
                collectEntries(under: path, coverFolder: coverFolder, into: &found, problems: &problems)
            case S_IFLNK:
                // A link to a directory is not followed; a dangling one is kept, to be reported.
                var target = stat()
                let isDirectory = path.withCString({ stat($0, &target) }) == 0 && target.st_mode & S_IFMT == S_IFDIR
                found.append(Entry(path: path, kind: isDirectory ? .linkToFolder : .file, inCoverFolder: inCoverFolder))
            default:
                found.append(Entry(path: path, kind: .file, inCoverFolder: inCoverFolder))
            }
        }
    }

    /// A `.notReadable` entry for `path`, with `errno`'s message.
    private static func unreadable(_ path: FileSystemPath, _ action: String) -> UnreadableEntry {
        let message = String(cString: strerror(errno))
        return UnreadableEntry(
            path: path, error: ThumbnailError(.notReadable, reason: "\(path.escaped): \(action): \(message)"))
    }
}

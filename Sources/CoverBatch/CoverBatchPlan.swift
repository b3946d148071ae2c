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

/// Where a command-line batch writes its covers.
public enum CoverDestination: Sendable, Hashable {
    /// `-o FILE`: the one input's cover goes there.
    case file(FileSystemPath)
    /// `--output-dir DIR` (or the current directory): covers named after their inputs.
    case directory(FileSystemPath)
}

/// Why a batch cannot start: a usage error, reported before any input is decoded (a command-line
/// tool exits 2 with ``message``).
public struct CoverPlanError: Error, Sendable, Hashable {
    /// One line naming what is wrong.
    public let message: String

    /// An error saying `message`.
    public init(_ message: String) {
        self.message = message
    }
}

/// Turns a command line's inputs and destination into a batch's jobs, checking first everything
/// that would make every input fail the same way after being decoded.
public enum CoverBatchPlan {
    /// The jobs that write the covers of `inputs` (expanded from `arguments` by
    /// ``CoverInputs/expand(_:readStandardInput:)``) to `destination`, covers named by
    /// ``CoverOutputNamer`` with `fileExtension` in a directory.
    ///
    /// - Throws: ``CoverPlanError`` when the output folder (the directory, or the folder of the
    ///   file) is missing, not a folder or not writable; when `-o` is given an argument that holds
    ///   several videos, names a directory, or names the input itself (the same file, through a
    ///   link too).
    public static func jobs(
        for inputs: [FileSystemPath],
        arguments: [FileSystemPath],
        destination: CoverDestination,
        fileExtension: String
    ) throws(CoverPlanError) -> [CoverJob] {
        switch destination {
        case .file(let output):
            guard inputs.count <= 1 else {
                let argument = arguments.first?.escaped ?? ""
                throw CoverPlanError(
                    "-o takes a single input, but \(argument) holds \(inputs.count) videos; use --output-dir")
            }
            try requireWritableFolder(output.directory)
            if case .directory = FileStatus(path: output) {
                throw CoverPlanError("-o '\(output.escaped)' is a directory; use --output-dir to write covers into it")
            }
            guard let input = inputs.first else { return [] }
            if let outputFile = FileNode(output), outputFile == FileNode(input) {
                throw CoverPlanError("-o '\(output.escaped)' is the input itself; it would be overwritten")
            }
            return [CoverJob(input: input, output: output)]
        case .directory(let folder):
            try requireWritableFolder(folder)
            var namer = CoverOutputNamer(directory: folder, fileExtension: fileExtension, protecting: inputs)
            return inputs.map { CoverJob(input: $0, output: namer.outputPath(for: $0)) }
        }
    }

    /// Checks that covers can be written into `folder`.
    ///
    /// - Throws: ``CoverPlanError`` "output directory 'DIR' does not exist" (or "is not a
    ///   directory", "is not writable: REASON").
    public static func requireWritableFolder(_ folder: FileSystemPath) throws(CoverPlanError) {
        var status = stat()
        let problem: String? =
            if folder.withCString({ stat($0, &status) }) != 0 {
                errno == ENOENT || errno == ENOTDIR ? "does not exist" : String(cString: strerror(errno))
            } else if status.st_mode & S_IFMT != S_IFDIR {
                "is not a directory"
            } else if folder.withCString({ access($0, W_OK | X_OK) }) != 0 {
                "is not writable: \(String(cString: strerror(errno)))"
            } else {
                nil
            }
        if let problem { throw CoverPlanError("output directory '\(folder.escaped)' \(problem)") }
    }
}

/// The file or folder a path leads to (links followed): its device and inode, to tell whether two paths are one file
/// (an output that is its input) or one folder (a walk in the output folder).
struct FileNode: Equatable {
    let device: UInt64
    let inode: UInt64

    init?(_ path: FileSystemPath) {
        var status = stat()
        guard path.withCString({ stat($0, &status) }) == 0 else { return nil }
        device = UInt64(truncatingIfNeeded: status.st_dev)
        inode = UInt64(truncatingIfNeeded: status.st_ino)
    }
}

/// Why an output could not be written: a neutral value with one wording (``detail``), which each library makes an
/// error of its own type once (a cover's `ThumbnailError`, a composition's `CompositionError`).
package struct OutputFailure: Error, Sendable, Hashable {
    /// What went wrong.
    package enum Problem: Sendable, Hashable {
        /// The path is empty or ends with `/`: it names a folder, not a file.
        case namesAFolder
        /// A folder is at the path.
        case isAFolder
        /// A device, FIFO or socket is at the path (never replaced). Names what it is ("a FIFO").
        case special(String)
        /// The file at the path is input number `index` of the same job (the same file under any name): an output
        /// never replaces an input.
        case isAnInput(index: Int)
        /// The temporary file could not be created in `folder`; the system's message.
        case cannotCreate(folder: FileSystemPath, message: String)
        /// Writing failed (a full disk, a file-size limit); the system's message.
        case cannotWrite(String)
        /// The rename over the output failed; the system's message.
        case cannotReplace(String)
        /// The process is ending (a termination signal): no output is started any more.
        case ending
    }

    /// What went wrong.
    package let problem: Problem

    package init(_ problem: Problem) {
        self.problem = problem
    }

    /// One clause, to follow the output's name: "cannot write: No space left on device", "is a FIFO, not a regular
    /// file: refused to replace it", "names a folder, not a file".
    package var detail: String {
        switch problem {
        case .namesAFolder: "names a folder, not a file"
        case .isAFolder: "is a folder, not a file"
        case .special(let kind): "is \(kind), not a regular file: refused to replace it"
        case .isAnInput: "is an input of the same job: an output never replaces an input"
        case .cannotCreate(let folder, let message): "cannot create a temporary file in \(folder.escaped): \(message)"
        case .cannotWrite(let message): "cannot write: \(message)"
        case .cannotReplace(let message): "cannot replace: \(message)"
        case .ending: "not written: the process is ending"
        }
    }

    /// Whether the request itself is wrong (a path naming a folder) rather than the writing.
    package var isInvalidPath: Bool { problem == .namesAFolder }
}

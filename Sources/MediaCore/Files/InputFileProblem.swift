/// Why a path cannot be read as an input, decided before FFmpeg sees it: the first step of every guarded opening (a
/// cover's input, a composition's take, a folder walk's candidate). A neutral value with one wording (``reason``);
/// each caller makes it an error of its own type once.
package enum InputFileProblem: Sendable, Hashable {
    /// Nothing at the path.
    case missing
    /// A directory where a file was expected.
    case directory
    /// A FIFO, a device, a socket: opening it could block or never end. Names what it is ("a FIFO").
    case special(String)
    /// The file exists but this process may not read it.
    case unreadable
    /// `stat` failed otherwise; the system's message.
    case failed(String)
    /// A regular file of 0 bytes.
    case empty

    /// The problem of what `status` says is at a path, or nil for a readable, non-empty regular file.
    package init?(_ status: FileStatus) {
        switch status {
        case .missing: self = .missing
        case .directory: self = .directory
        case .special(let kind): self = .special(kind)
        case .unreadable: self = .unreadable
        case .failed(let message): self = .failed(message)
        case .file(size: 0): self = .empty
        case .file: return nil
        }
    }

    /// The one-clause reason, to follow the input's name: "no such file", "is a directory, not a media file", "is a
    /// FIFO, not a regular file", "permission denied", "the file is empty (0 bytes)".
    package var reason: String {
        switch self {
        case .missing: "no such file"
        case .directory: "is a directory, not a media file"
        case .special(let kind): "is \(kind), not a regular file"
        case .unreadable: "permission denied"
        case .failed(let message): message
        case .empty: "the file is empty (0 bytes)"
        }
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why a draft could not be opened, restored or written.
///
/// Every case has a one-line ``description`` naming the file and what was wrong with it. Nothing in a draft file can
/// crash a restore: a file that is empty, truncated inside its header, corrupt, from a newer version of this library,
/// or not a draft at all is one of these errors. (A torn or corrupt *tail* of the journal is not an error: it is what
/// a kill or a power loss leaves, and the restore drops it and reports how many records it dropped.)
public enum DraftError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file exists but holds no byte.
    case empty(path: String)
    /// The file does not start with the draft signature: it is not a draft.
    case notADraft(path: String)
    /// The file is a draft of a format version newer than this library reads; it is refused, never misread.
    case newerVersion(path: String, found: Int, supported: Int)
    /// The file is a draft, but its header or snapshot is damaged (the reason says where), or a journal record that
    /// passed its checksum does not make sense.
    case corrupt(path: String, reason: String)
    /// The journal continues a snapshot that is missing or belongs to another draft.
    case snapshotMismatch(path: String, reason: String)
    /// Another board (in this process or another) has the draft open: one opener at a time.
    case inUse(path: String)
    /// The draft's path is not a regular file (a folder, a FIFO, a device, a link): refused before anything is read.
    case notAFile(path: String, kind: String)
    /// A file operation failed: `operation` (`open`, `write`, `sync`, `rename`, ...) with the system's error number.
    case io(path: String, operation: String, errno: Int32)
    /// More than `limit` bytes of records waited for a slow disk (``DraftOptions/pendingLimit``): they were dropped,
    /// and the draft's next write rewrites it whole from the board in memory.
    case fellBehind(path: String, limit: Int)

    /// A one-line reason, e.g. `draft 'a.draft' is from a newer version (format 3; this library reads up to 1)`.
    public var description: String {
        switch self {
        case .empty(let path):
            "draft '\(path)' is empty"
        case .notADraft(let path):
            "'\(path)' is not a draft (no draft signature at its start)"
        case .newerVersion(let path, let found, let supported):
            "draft '\(path)' is from a newer version (format \(found); this library reads up to \(supported))"
        case .corrupt(let path, let reason):
            "draft '\(path)' is corrupt: \(reason)"
        case .snapshotMismatch(let path, let reason):
            "draft '\(path)' cannot be restored: \(reason)"
        case .inUse(let path):
            "draft '\(path)' is in use: another board has it open"
        case .notAFile(let path, let kind):
            "draft '\(path)' is \(kind), not a regular file"
        case .io(let path, let operation, let errno):
            "draft '\(path)': \(operation) failed: \(String(cString: strerror(errno)))"
        case .fellBehind(let path, let limit):
            "draft '\(path)' fell behind: more than \(limit) bytes waited for the disk; it is rewritten whole next"
        }
    }
}

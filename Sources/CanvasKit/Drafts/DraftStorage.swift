import Foundation
import Locking

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How far a sync pushes a file's bytes: the draft asks for ``full`` unless ``DraftOptions/sync`` says otherwise.
public enum DraftSync: Sendable, Hashable {
    /// Through the drive's own cache to stable storage, so a power loss cannot lose them: `F_FULLFSYNC` on Apple
    /// platforms (falling back to `fsync` on a file system that refuses it), `fsync` elsewhere (on Linux `fsync`
    /// flushes the drive's cache itself).
    case full
    /// Handed to the drive (`fsync`): on Apple platforms the drive may still hold them in its volatile cache, so a
    /// power loss may lose the last groups; a kill never does. Cheaper on Apple hardware.
    case system
}

/// Where a draft's bytes go: the few file operations a draft needs, each as the system does it.
///
/// ``FileDraftStorage`` (the default) is the file system. An app may supply its own (a file coordinator, an
/// encrypted container), as long as each operation keeps the promise written on it: the draft's guarantees rest on
/// them. Operations are called from the draft's writer, one at a time, never from the thread that sends events, and
/// from the restore when a board is opened.
public protocol DraftStorage: Sendable {
    /// The whole file at `path`, or nil when there is no such file.
    func contents(of path: String) throws(DraftError) -> [UInt8]?
    /// The file at `path` opened for reading in pieces, or nil when there is no such file: a restore reads every
    /// draft file through it, from the start to the end, and a listing the first 32 bytes of each file of the
    /// folder. The default implementation reads the whole file with ``contents(of:)``; implement it to read a part of
    /// a file at a time, so that a restore holds at most one piece and one record of a file, never the whole file, and
    /// a listing does not read a folder's takes whole.
    func openForReading(_ path: String) throws(DraftError) -> (any DraftReadableFile)?
    /// The names of the entries of the folder at `folder` (not `.` and `..`), in any order: what
    /// ``BoardDraft/drafts(in:options:)`` looks through. The default implementation lists the folder on the file
    /// system (`FileManager`). - Throws: `.io` when the folder cannot be listed.
    func entries(of folder: String) throws(DraftError) -> [String]
    /// Appends `bytes` at the end of the file at `path`, which exists. They survive the process being killed once this
    /// returns; a power loss may drop them until ``sync(_:_:)`` returns.
    func append(_ bytes: [UInt8], to path: String) throws(DraftError)
    /// Makes everything written to the file at `path` survive a power loss, as far as `level` says.
    func sync(_ path: String, _ level: DraftSync) throws(DraftError)
    /// Creates the file at `path` holding exactly `bytes`, replacing any file there (a temporary file, made durable
    /// by ``sync(_:_:)`` and put in place by ``rename(_:to:)``).
    func write(_ bytes: [UInt8], to path: String) throws(DraftError)
    /// Gives the file at `path`, just created by ``write(_:to:)``, the data protection `protection` (Apple
    /// platforms: whether the app can write it while the device is locked). A storage without data protection does
    /// nothing (the default implementation).
    func protect(_ path: String, _ protection: DraftProtection) throws(DraftError)
    /// Renames `source` to `destination`, atomically replacing it: a reader sees the old file or the new one. The
    /// rename survives a power loss once ``syncFolder(of:_:)`` returns.
    func rename(_ source: String, to destination: String) throws(DraftError)
    /// Makes the entries of the folder holding `path` (creations, renames) survive a power loss, as far as `level`
    /// says.
    func syncFolder(of path: String, _ level: DraftSync) throws(DraftError)
    /// Gives the file at `path` a second name, `destination` (a hard link), so it stays when `path` is replaced;
    /// throws `.io` with `EEXIST` when `destination` exists: it never replaces a file.
    func keep(_ path: String, as destination: String) throws(DraftError)
    /// Removes the file at `path`; nothing when there is none.
    func remove(_ path: String) throws(DraftError)
    /// Takes the exclusive lock of the draft at `path`, held until the returned lock is released: one opener at a
    /// time, across processes. - Throws: ``DraftError/inUse(path:)`` when another opener holds it.
    func lock(_ path: String) throws(DraftError) -> DraftLock
}

/// A draft's exclusive lock, held until ``release()`` or until it is deallocated.
public final class DraftLock: Sendable {
    private let releaser: @Sendable () -> Void
    private let released: LockedValue<Bool> = LockedValue(false)

    /// A lock that `release` gives back (once).
    public init(release: @escaping @Sendable () -> Void) {
        releaser = release
    }

    /// Gives the lock back; later calls do nothing.
    public func release() {
        let first = released.withLock { released in
            defer { released = true }
            return !released
        }
        if first { releaser() }
    }

    deinit { release() }
}

/// A draft on the file system, through POSIX calls: `write` in a loop until every byte is written, `F_FULLFSYNC` or
/// `fsync` for a file (see ``DraftSync``), `rename`, and the same sync of the folder for its entries.
public struct FileDraftStorage: DraftStorage {
    /// The file system.
    public init() {}

    /// Reads the whole file (``openForReading(_:)``, then every piece); nil when it does not exist.
    public func contents(of path: String) throws(DraftError) -> [UInt8]? {
        guard let file = try openForReading(path) else { return nil }
        var bytes: [UInt8] = []
        while bytes.count < file.size {
            let piece = try file.read(at: bytes.count, count: file.size - bytes.count)
            if piece.isEmpty { break }
            bytes += piece
        }
        return bytes
    }

    /// Opens the file with `O_NOFOLLOW | O_NONBLOCK` (a link, a FIFO never block or lead elsewhere) and checks it
    /// with `fstat` before any read: anything but a regular file is ``DraftError/notAFile(path:kind:)``, a file
    /// larger than a draft can be (256 MiB) is refused unread (`.corrupt`). Each piece is one `pread`.
    public func openForReading(_ path: String) throws(DraftError) -> (any DraftReadableFile)? {
        try DraftDescriptorFile(path: path)
    }

    /// What a file of mode `mode` is when it is not a regular file ("a folder", "a FIFO", ...); nil for a regular
    /// file.
    static func kind(of mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: nil
        case S_IFDIR: "a folder"
        case S_IFIFO: "a FIFO"
        case S_IFCHR, S_IFBLK: "a device"
        case S_IFLNK: "a symbolic link"
        case S_IFSOCK: "a socket"
        default: "not a regular file"
        }
    }

    /// Opens the file with `O_APPEND` and writes every byte.
    public func append(_ bytes: [UInt8], to path: String) throws(DraftError) {
        try withDescriptor(path, flags: O_WRONLY | O_APPEND | O_NOFOLLOW) { descriptor throws(DraftError) in
            try writeAll(bytes, to: descriptor, path: path)
        }
    }

    /// Opens the file and syncs it (``DraftSync``).
    public func sync(_ path: String, _ level: DraftSync) throws(DraftError) {
        try withDescriptor(path, flags: O_RDONLY | O_NOFOLLOW) { descriptor throws(DraftError) in
            guard Self.flush(descriptor, level) else { throw .io(path: path, operation: "sync", errno: errno) }
        }
    }

    /// The system calls a sync makes, in order until one succeeds.
    enum SyncCall: Equatable {
        case fullFsync, fsync
    }

    /// The calls for `level` on an Apple platform or another.
    static func calls(for level: DraftSync, onApple: Bool) -> [SyncCall] {
        level == .full && onApple ? [.fullFsync, .fsync] : [.fsync]
    }

    #if canImport(Darwin)
        static let isApple = true
    #else
        static let isApple = false
    #endif

    private static func flush(_ descriptor: Int32, _ level: DraftSync) -> Bool {
        for call in calls(for: level, onApple: isApple) {
            switch call {
            case .fullFsync:
                #if canImport(Darwin)
                    // Refused by some file systems (network, FAT): then `fsync`, as SQLite and LevelDB do.
                    if fcntl(descriptor, F_FULLFSYNC) == 0 { return true }
                #endif
            case .fsync:
                return fsync(descriptor) == 0
            }
        }
        return false
    }

    /// Removes whatever is at `path` (a link planted there is removed, never followed), then creates the file
    /// exclusively (`O_CREAT | O_EXCL | O_NOFOLLOW`, mode 0600) and writes every byte.
    public func write(_ bytes: [UInt8], to path: String) throws(DraftError) {
        try remove(path)
        try withDescriptor(path, flags: O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW) { descriptor throws(DraftError) in
            try writeAll(bytes, to: descriptor, path: path)
        }
    }

    /// `link(2)`: a second name, never replacing one.
    public func keep(_ path: String, as destination: String) throws(DraftError) {
        guard link(path, destination) == 0 else { throw .io(path: destination, operation: "link", errno: errno) }
    }

    /// `unlink(2)`; nothing when there is no file.
    public func remove(_ path: String) throws(DraftError) {
        guard unlink(path) == 0 || errno == ENOENT else { throw .io(path: path, operation: "remove", errno: errno) }
    }

    /// `flock(LOCK_EX | LOCK_NB)` on `<path>.lock` (created 0600 when missing, never through a link), as LevelDB
    /// locks its LOCK file: released when the descriptor is closed, also by the system when the process dies.
    public func lock(_ path: String) throws(DraftError) -> DraftLock {
        var status = stat()
        if lstat(path, &status) == 0, let kind = Self.kind(of: status.st_mode) {
            throw .notAFile(path: path, kind: kind)
        }
        let lockPath = path + ".lock"
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .io(path: lockPath, operation: "open", errno: errno) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let error = errno
            close(descriptor)
            if error == EWOULDBLOCK { throw .inUse(path: path) }
            throw .io(path: lockPath, operation: "lock", errno: error)
        }
        return DraftLock { close(descriptor) }
    }

    /// `rename(2)`: atomic on the same file system.
    public func rename(_ source: String, to destination: String) throws(DraftError) {
        guard Foundation.rename(source, destination) == 0 else {
            throw .io(path: destination, operation: "rename", errno: errno)
        }
    }

    /// Opens the folder holding `path` and syncs it (``DraftSync``).
    public func syncFolder(of path: String, _ level: DraftSync) throws(DraftError) {
        let folder = (path as NSString).deletingLastPathComponent
        try withDescriptor(folder.isEmpty ? "." : folder, flags: O_RDONLY) { descriptor throws(DraftError) in
            guard Self.flush(descriptor, level) else { throw .io(path: folder, operation: "sync folder", errno: errno) }
        }
    }

    private func withDescriptor(
        _ path: String, flags: Int32, _ body: (Int32) throws(DraftError) -> Void
    ) throws(DraftError) {
        let descriptor = open(path, flags | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .io(path: path, operation: "open", errno: errno) }
        defer { close(descriptor) }
        try body(descriptor)
    }

    private func writeAll(_ bytes: [UInt8], to descriptor: Int32, path: String) throws(DraftError) {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes {
                Foundation.write(descriptor, $0.baseAddress! + written, $0.count - written)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw .io(path: path, operation: "write", errno: errno)
            }
            written += count
        }
    }
}

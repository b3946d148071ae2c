#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What identifies one version of a file: where it is (device and inode), how big it is, and
/// when it was last modified (to the nanosecond). A file rewritten in place changes its size or
/// modification time; a file replaced by a rename changes its inode.
package struct FileIdentity: Sendable, Hashable {
    package var device: UInt64
    package var inode: UInt64
    package var size: Int64
    package var modificationSeconds: Int64
    package var modificationNanoseconds: Int64
    /// The file's type bits (`st_mode & S_IFMT`: a regular file, a directory, a FIFO, ...), so
    /// that opening the file for its cover needs no second `stat` (``FileStatus/init(identity:path:)``).
    package var fileType: UInt32

    /// The identity of the file at `path` now (one `stat` call, about a microsecond), or nil
    /// when there is no such file.
    package init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        fileType = UInt32(status.st_mode & S_IFMT)
        device = UInt64(truncatingIfNeeded: status.st_dev)
        inode = UInt64(truncatingIfNeeded: status.st_ino)
        size = Int64(status.st_size)
        #if canImport(Darwin)
            modificationSeconds = Int64(status.st_mtimespec.tv_sec)
            modificationNanoseconds = Int64(status.st_mtimespec.tv_nsec)
        #else
            modificationSeconds = Int64(status.st_mtim.tv_sec)
            modificationNanoseconds = Int64(status.st_mtim.tv_nsec)
        #endif
    }
}

/// What a path is, from one `stat` and one `access` call: cheaper than `FileManager`, whose
/// attribute read also looks up the owner's and group's names in /etc/passwd and /etc/group.
package enum FileStatus {
    /// A readable regular file of `size` bytes.
    case file(size: Int64)
    /// A directory.
    case directory
    /// Something that is neither a regular file nor a directory: a FIFO (opening it blocks until
    /// a writer comes), a device (`/dev/zero` never ends), a socket. Named for messages.
    case special(String)
    /// The file exists but this process may not read it.
    case unreadable
    /// Nothing at the path (or a component of it is not a directory).
    case missing
    /// `stat` failed otherwise; the system's message.
    case failed(String)

    package init(path: String) {
        self.init(path: FileSystemPath(path))
    }

    /// What is at `path` (its bytes, so a name that is not UTF-8 is found).
    package init(path: FileSystemPath) {
        var status = stat()
        guard path.withCString({ stat($0, &status) }) == 0 else {
            let code = errno
            switch code {
            case ENOENT, ENOTDIR: self = .missing
            case EACCES: self = .unreadable
            default: self = .failed(String(cString: strerror(code)))
            }
            return
        }
        guard let checked = Self.kind(UInt32(status.st_mode & S_IFMT)) else {
            self = Self.readable(path, size: Int64(status.st_size))
            return
        }
        self = checked
    }

    /// What the file `identity` was read from is, without another `stat`: only the `access`
    /// check of a regular file's readability is made (a cover's cache key has already read the
    /// file's status; a miss would otherwise read it twice).
    package init(identity: FileIdentity, path: FileSystemPath) {
        self = Self.kind(identity.fileType) ?? Self.readable(path, size: identity.size)
    }

    /// What the type bits `type` say, or nil for a regular file (whose readability is checked apart).
    private static func kind(_ type: UInt32) -> FileStatus? {
        switch type {
        case UInt32(S_IFDIR): .directory
        case UInt32(S_IFREG): nil
        case UInt32(S_IFIFO): .special("a FIFO")
        case UInt32(S_IFCHR), UInt32(S_IFBLK): .special("a device")
        case UInt32(S_IFSOCK): .special("a socket")
        default: .special("a special file")
        }
    }

    /// A regular file of `size` bytes at `path`: `.file`, or `.unreadable` when this process may
    /// not read it.
    private static func readable(_ path: FileSystemPath, size: Int64) -> FileStatus {
        path.withCString({ access($0, R_OK) }) != 0 ? .unreadable : .file(size: size)
    }
}

extension FileSystemPath {
    /// The first `count` bytes of the file at this path (fewer when it is shorter), or none when it cannot be read:
    /// what a refused input is named by.
    package func prefix(count: Int) -> [UInt8] {
        let descriptor = withCString { open($0, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }
        guard descriptor >= 0 else { return [] }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let read = bytes.withUnsafeMutableBytes { buffer in
                Glibc.read(descriptor, buffer.baseAddress! + filled, count - filled)
            }
            if read < 0 && errno == EINTR { continue }
            guard read > 0 else { break }
            filled += read
        }
        return Array(bytes.prefix(filled))
    }
}

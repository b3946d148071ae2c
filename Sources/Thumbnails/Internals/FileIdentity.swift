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
struct FileIdentity: Sendable, Hashable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modificationSeconds: Int64
    var modificationNanoseconds: Int64

    /// The identity of the file at `path` now (one `stat` call, about a microsecond), or nil
    /// when there is no such file.
    init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
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
enum FileStatus {
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

    init(path: String) {
        self.init(path: FileSystemPath(path))
    }

    /// What is at `path` (its bytes, so a name that is not UTF-8 is found).
    init(path: FileSystemPath) {
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
        switch status.st_mode & S_IFMT {
        case S_IFDIR:
            self = .directory
            return
        case S_IFREG:
            break
        case S_IFIFO:
            self = .special("a FIFO")
            return
        case S_IFCHR, S_IFBLK:
            self = .special("a device")
            return
        case S_IFSOCK:
            self = .special("a socket")
            return
        default:
            self = .special("a special file")
            return
        }
        if path.withCString({ access($0, R_OK) }) != 0 {
            self = .unreadable
        } else {
            self = .file(size: Int64(status.st_size))
        }
    }
}

import Foundation
import MediaCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes a file so that readers see either the old contents or the complete new ones, and
/// cleans up after writers that were killed.
///
/// The bytes go to a hidden temporary file in the destination's folder (same file system, so
/// the rename is atomic), written in full and closed, then renamed over the destination. Every
/// failure path removes the temporary file; a write that fails mid-file (a full disk) leaves
/// the destination as it was.
///
/// Links are never followed: the temporary file is created with `O_CREAT | O_EXCL | O_NOFOLLOW`
/// (a link planted at its name makes the creation fail, and another name is tried), and the
/// rename replaces a link at the destination itself, never the file it points to.
///
/// Only a regular file or a link is ever replaced: a device, FIFO or socket at the destination (`/dev/null`, a pipe
/// another program reads) makes the write fail with `.writeFailed` before anything is written, and again just before
/// the rename, so a node created in between is not replaced either.
///
/// The temporary file is named `.NAME.cover-tmp-PID-XXXXXX`: the destination's name, the
/// writer's process id, six random letters or digits. Its writer holds an exclusive `flock` on
/// it while writing. A process killed mid-write (`SIGKILL`) leaves it behind, hidden;
/// ``removeAbandoned(in:)`` removes it later, only once it is provably abandoned: named so, owned
/// by this user, a regular file, its process gone, and no lock on it.
///
/// Versions before these names wrote `.NAME.tmp-XXXXXX` (no process id, no lock). Those carry
/// nothing that proves their writer gone, so their age does: such a file is removed once it has
/// not been modified for ``staleAge`` (an hour; a cover is written in milliseconds, so no live
/// writer leaves its file untouched that long), and only when `NAME` is a cover's name (ending in
/// `.png`, `.jpg` or `.jpeg`), so another program's temporary files of the same shape are left
/// alone.
package enum AtomicFile {
    /// What ends a temporary file's name before the process id: `.NAME` + marker + `PID-XXXXXX`.
    package static let marker = Array(".cover-tmp-".utf8)
    /// The destination's name is kept to at most this many bytes in the temporary name (which
    /// adds up to 31 bytes and must fit in the 255 a name may have).
    package static let keptNameBytes = 200
    /// How long an old-style temporary file (`.NAME.tmp-XXXXXX`) must have gone unmodified before
    /// ``removeAbandoned(in:)`` removes it.
    package static let staleAge: Int64 = 3600

    /// Writes `data` to `path`, replacing any file (or link) there.
    ///
    /// - Parameters:
    ///   - write: the `write(2)` the bytes go through (a test's seam to fail mid-file).
    ///   - randomSuffix: the six characters that make a temporary name unique (a test's seam).
    /// - Throws: ``ThumbnailError`` `.writeFailed` with the system's reason (a file-size limit: "File too large",
    ///   when `SIGXFSZ` is ignored, as canvas-thumb does) or naming the device, FIFO or socket at `path`,
    ///   `.invalidArgument` for a path naming a folder.
    package static func replace(
        _ path: FileSystemPath,
        with data: Data,
        write: (Int32, UnsafeRawBufferPointer) -> Int = AtomicFile.systemWrite,
        randomSuffix: () -> [UInt8] = AtomicFile.randomSuffix
    ) throws(ThumbnailError) {
        let name = path.lastComponent
        guard !name.isEmpty, path.bytes.last != UInt8(ascii: "/") else {
            throw ThumbnailError(.invalidArgument, reason: "\(path.escaped): names a folder, not a file")
        }
        try refuseSpecialFile(at: path)
        let folder = path.directory
        var descriptor: Int32 = -1
        var temporary = path
        // A name taken (by an earlier writer's file, or a planted link) is not ours: try another.
        for _ in 0..<100 {
            temporary = folder.appending(component: temporaryName(for: name, suffix: randomSuffix()))
            descriptor = temporary.withCString {
                open($0, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            }
            if descriptor >= 0 || errno != EEXIST { break }
        }
        guard descriptor >= 0 else {
            throw failure(path, "cannot create a temporary file in \(folder.escaped)")
        }
        // Held until the descriptor is closed: tells a later clean-up that a writer is alive.
        _ = flock(descriptor, LOCK_EX)
        var closed = false
        var renamed = false
        defer {
            if !closed { _ = close(descriptor) }
            if !renamed { _ = temporary.withCString { unlink($0) } }
        }
        let complete = data.withUnsafeBytes { raw -> Bool in
            var offset = 0
            while offset < raw.count {
                let written = write(descriptor, UnsafeRawBufferPointer(rebasing: raw[offset...]))
                if written < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                if written == 0 {
                    errno = ENOSPC
                    return false
                }
                offset += written
            }
            return true
        }
        guard complete else { throw failure(path, "cannot write") }
        closed = true
        guard close(descriptor) == 0 else { throw failure(path, "cannot write") }
        try refuseSpecialFile(at: path)
        let moved = temporary.withCString { from in path.withCString { to in rename(from, to) } }
        guard moved == 0 else { throw failure(path, "cannot replace") }
        renamed = true
    }

    /// Removes the temporary files in `folder` that writers killed mid-write left behind, and
    /// returns how many it removed. A file is removed only when all of these hold: its name is
    /// `.NAME.cover-tmp-PID-XXXXXX` and no process `PID` exists, or its name is the old-style
    /// `.NAME.tmp-XXXXXX` with `NAME` a cover's name and it was last modified at least
    /// ``staleAge`` ago; it is a regular file owned by this user; no process holds a lock on it
    /// (so a writer in another PID namespace, whose id means nothing here, is safe); and the name
    /// still refers to the file checked. Anything else is left alone, and a folder that cannot be
    /// listed is left as it is.
    @discardableResult
    package static func removeAbandoned(in folder: FileSystemPath) -> Int {
        guard let handle = folder.withCString({ opendir($0) }) else { return 0 }
        defer { closedir(handle) }
        var removed = 0
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
            let path = folder.appending(component: name)
            if let process = writerProcess(ofTemporaryName: name) {
                if !processExists(process), removeIfUnlocked(path, modifiedBefore: nil) { removed += 1 }
            } else if isOldStyleTemporaryName(name) {
                var now = timespec()
                clock_gettime(CLOCK_REALTIME, &now)
                if removeIfUnlocked(path, modifiedBefore: Int64(now.tv_sec) - staleAge) { removed += 1 }
            }
        }
        return removed
    }

    /// The temporary name for a destination named `name`.
    package static func temporaryName(for name: [UInt8], suffix: [UInt8]) -> [UInt8] {
        // Whole characters when the name is UTF-8: the cut may not fall before a continuation
        // byte (at most 3 of them follow a character's first byte).
        var end = min(name.count, keptNameBytes)
        var backed = 0
        while end > 0, end < name.count, name[end] & 0xC0 == 0x80, backed < 3 {
            end -= 1
            backed += 1
        }
        let kept = name[..<end]
        return [UInt8(ascii: ".")] + kept + marker + Array(String(getpid()).utf8) + [UInt8(ascii: "-")] + suffix
    }

    /// The writer's process id in a temporary name, or nil when `name` is not one.
    package static func writerProcess(ofTemporaryName name: [UInt8]) -> pid_t? {
        guard name.first == UInt8(ascii: "."), name.count > 1 + marker.count + 8 else { return nil }
        let suffix = name.suffix(7)
        guard suffix.first == UInt8(ascii: "-"), suffix.dropFirst().allSatisfy(isSuffixCharacter) else { return nil }
        let beforeSuffix = name.dropLast(7)
        guard let digitsStart = beforeSuffix.lastIndex(where: { !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        let digits = beforeSuffix[(digitsStart + 1)...]
        let head = beforeSuffix[...digitsStart]
        guard !digits.isEmpty, digits.count <= 10, head.count > marker.count + 1,
            head.suffix(marker.count).elementsEqual(marker),
            let process = pid_t(String(decoding: digits, as: UTF8.self)), process > 0
        else { return nil }
        return process
    }

    /// Whether `name` is `.NAME.tmp-XXXXXX` (what versions before the process id in the name
    /// wrote: `mkstemp`'s six letters or digits) with `NAME` ending in `.png`, `.jpg` or `.jpeg`.
    package static func isOldStyleTemporaryName(_ name: [UInt8]) -> Bool {
        let marker = Array(".tmp-".utf8)
        guard name.first == UInt8(ascii: "."), name.count > 1 + marker.count + 6 else { return false }
        let suffix = name.suffix(6)
        let beforeSuffix = name.dropLast(6)
        guard suffix.allSatisfy(isSuffixCharacter), beforeSuffix.suffix(marker.count).elementsEqual(marker) else {
            return false
        }
        let coverName = String(decoding: beforeSuffix.dropFirst().dropLast(marker.count), as: UTF8.self).lowercased()
        return [".png", ".jpg", ".jpeg"].contains { coverName.hasSuffix($0) && coverName.count > $0.count }
    }

    /// `write(2)`.
    package static func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawBufferPointer) -> Int {
        write(descriptor, buffer.baseAddress, buffer.count)
    }

    /// Six random letters and digits.
    package static func randomSuffix() -> [UInt8] {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
        var generator = SystemRandomNumberGenerator()
        return (0..<6).map { _ in alphabet[Int(generator.next(upperBound: UInt(alphabet.count)))] }
    }

    private static func isSuffixCharacter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    /// Whether a process with this id exists (one this user may not signal exists too) and has not ended: a zombie (a
    /// process that was killed or exited and that its parent has not waited for yet, as a killed batch's workers are
    /// until they are reaped) has ended, and the file it was writing is abandoned.
    private static func processExists(_ process: pid_t) -> Bool {
        guard kill(process, 0) == 0 || errno != ESRCH else { return false }
        #if os(Linux)
            return !hasEnded(process)
        #else
            return true
        #endif
    }

    #if os(Linux)
        /// Whether the process is a zombie or dead (its state is `Z` or `X`).
        private static func hasEnded(_ process: pid_t) -> Bool {
            let state = processState(process)
            return state == "Z" || state == "X"
        }

        /// The process's state letter in `/proc/PID/stat` (the field after the name in parentheses, which may hold
        /// spaces), or nil when there is no such process.
        package static func processState(_ process: pid_t) -> Character? {
            guard let stat = try? String(contentsOfFile: "/proc/\(process)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            return stat[stat.index(after: close)...].drop { $0 == " " }.first
        }
    #endif

    /// Unlinks `path` if it is a regular file of this user that nobody holds a lock on (and, with
    /// `modifiedBefore`, last modified before that many seconds since 1970).
    private static func removeIfUnlocked(_ path: FileSystemPath, modifiedBefore: Int64?) -> Bool {
        let descriptor = path.withCString { open($0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }
        guard descriptor >= 0 else { return false }
        defer { _ = close(descriptor) }
        var opened = stat()
        guard fstat(descriptor, &opened) == 0, opened.st_mode & S_IFMT == S_IFREG, opened.st_uid == geteuid(),
            flock(descriptor, LOCK_EX | LOCK_NB) == 0
        else { return false }
        if let modifiedBefore {
            #if canImport(Darwin)
                let modified = Int64(opened.st_mtimespec.tv_sec)
            #else
                let modified = Int64(opened.st_mtim.tv_sec)
            #endif
            guard modified < modifiedBefore else { return false }
        }
        var named = stat()
        guard path.withCString({ lstat($0, &named) }) == 0, named.st_dev == opened.st_dev,
            named.st_ino == opened.st_ino
        else { return false }
        return path.withCString { unlink($0) } == 0
    }

    /// Throws `.writeFailed` when `path` names a device, FIFO or socket (never replaced); a regular file, a link or
    /// nothing passes.
    package static func refuseSpecialFile(at path: FileSystemPath) throws(ThumbnailError) {
        var status = stat()
        guard path.withCString({ lstat($0, &status) }) == 0 else { return }
        let what: String
        switch UInt32(status.st_mode & S_IFMT) {
        case UInt32(S_IFCHR): what = "a character device"
        case UInt32(S_IFBLK): what = "a block device"
        case UInt32(S_IFIFO): what = "a FIFO"
        case UInt32(S_IFSOCK): what = "a socket"
        default: return
        }
        throw ThumbnailError(
            .writeFailed, reason: "\(path.escaped): is \(what), not a regular file: refused to replace it")
    }

    /// A `.writeFailed` error carrying `errno`'s message.
    private static func failure(_ path: FileSystemPath, _ action: String) -> ThumbnailError {
        let message = String(cString: strerror(errno))
        return ThumbnailError(.writeFailed, reason: "\(path.escaped): \(action): \(message)")
    }
}

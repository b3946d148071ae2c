import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Cleaning up after writers that were killed mid-write.
///
/// Versions before ``AtomicOutput/marker`` wrote covers to `.NAME.cover-tmp-PID-XXXXXX` (the same shape, another
/// marker), recognised the same way; and before that to `.NAME.tmp-XXXXXX` (no process id, no lock). Those carry
/// nothing that proves their writer gone, so their age does: such a file is removed once it has not been modified for
/// ``AtomicOutput/staleAge`` (an hour; a cover is written in milliseconds, so no live writer leaves its file untouched
/// that long), and only when `NAME` is a cover's name (ending in `.png`, `.jpg` or `.jpeg`), so another program's
/// temporary files of the same shape are left alone.
extension AtomicOutput {
    /// The marker of covers' temporary files in earlier versions, recognised by ``removeAbandoned(in:)``.
    package static let earlierMarker = Array(".cover-tmp-".utf8)
    /// How long an old-style temporary file (`.NAME.tmp-XXXXXX`) must have gone unmodified before
    /// ``removeAbandoned(in:)`` removes it.
    package static let staleAge: Int64 = 3600

    /// Removes the temporary files in `folder` that writers killed mid-write left behind, and returns how many it
    /// removed. A file is removed only when all of these hold: its name is `.NAME.writing-PID-XXXXXX` (or an earlier
    /// version's `.NAME.cover-tmp-PID-XXXXXX`) and no process `PID` exists, or its name is the old-style
    /// `.NAME.tmp-XXXXXX` with `NAME` a cover's name and it was last modified at least ``staleAge`` ago; it is a
    /// regular file owned by this user; no process holds a lock on it (so a writer in another PID namespace, whose id
    /// means nothing here, is safe); and the name still refers to the file checked. Anything else is left alone, and a
    /// folder that cannot be listed is left as it is.
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

    /// The writer's process id in a temporary name (this version's or an earlier one's with a process id), or nil
    /// when `name` is not one.
    package static func writerProcess(ofTemporaryName name: [UInt8]) -> pid_t? {
        guard name.first == UInt8(ascii: "."), name.count > 1 + marker.count + 8 else { return nil }
        let suffix = name.suffix(7)
        guard suffix.first == UInt8(ascii: "-"), suffix.dropFirst().allSatisfy(isSuffixCharacter) else { return nil }
        let beforeSuffix = name.dropLast(7)
        guard let digitsStart = beforeSuffix.lastIndex(where: { !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        let digits = beforeSuffix[(digitsStart + 1)...]
        let head = beforeSuffix[...digitsStart]
        guard !digits.isEmpty, digits.count <= 10,
            [marker, earlierMarker].contains(where: {
                head.count > $0.count + 1 && head.suffix($0.count).elementsEqual($0)
            }),
            let process = pid_t(String(decoding: digits, as: UTF8.self)), process > 0
        else { return nil }
        return process
    }

    /// Whether `name` is `.NAME.tmp-XXXXXX` (what versions before the process id in the name wrote: `mkstemp`'s six
    /// letters or digits) with `NAME` ending in `.png`, `.jpg` or `.jpeg`.
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

    private static func isSuffixCharacter(_ byte: UInt8) -> Bool {
        suffixAlphabet.contains(byte)
    }

    /// Whether a process with this id exists (one this user may not signal exists too) and has not ended: a zombie (a
    /// process that was killed or exited and that its parent has not waited for yet, as a killed batch's workers are
    /// until they are reaped) has ended, and the file it was writing is abandoned.
    private static func processExists(_ process: pid_t) -> Bool {
        guard kill(process, 0) == 0 || errno != ESRCH else { return false }
        #if os(Linux)
            let state = processState(process)
            return state != "Z" && state != "X"
        #else
            return true
        #endif
    }

    #if os(Linux)
        /// The process's state letter in `/proc/PID/stat` (the field after the name in parentheses, which may hold
        /// spaces), or nil when there is no such process.
        package static func processState(_ process: pid_t) -> Character? {
            guard let stat = try? String(contentsOfFile: "/proc/\(process)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            return stat[stat.index(after: close)...].drop { $0 == " " }.first
        }
    #endif

    /// Unlinks `path` if it is a regular file of this user that nobody holds a lock on (and, with `modifiedBefore`,
    /// last modified before that many seconds since 1970).
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
}

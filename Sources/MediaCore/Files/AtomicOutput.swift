import Foundation
import Locking

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One output written atomically: readers of the output see either what was there before or the complete new file,
/// never a part of it. The one writer of every media output of the package (covers, compositions, canvas-sim's
/// pictures).
///
/// Making one creates a hidden temporary file in the output's folder (same file system, so the rename is atomic),
/// `.NAME.writing-PID-XXXXXX` (the output's name, this process's id, six random letters or digits), with
/// `O_CREAT | O_EXCL | O_NOFOLLOW`: only where nothing exists, so a link planted at its name makes the creation fail
/// and another name is tried. The writer holds an exclusive `flock` on it until it is renamed or removed. The bytes go
/// to it through ``write(_:)``, or a muxer writes it by its name (``temporary``); ``commit()`` renames it over
/// the output. An output that is not committed (an error, a cancellation, the owner freed) has its temporary file
/// removed, and so has every one of this process when it exits or ``removeInProgress()`` runs (a termination signal):
/// nothing half-written is left.
///
/// Never replaced: a device, FIFO or socket at the output (checked when the output is made and again just before the
/// rename, so a node created in between is not replaced either), a folder, and any of the job's inputs (the same file
/// under any name, compared by device and inode). A link at the output is itself replaced, never the file it points
/// to.
///
/// A process killed mid-write (`SIGKILL`) leaves its temporary file behind, hidden; ``removeAbandoned(in:)`` removes
/// it later, only once it is provably abandoned.
///
/// Deliberately not `Sendable`: one job writes its output.
package final class AtomicOutput {
    /// The file replaced on ``commit()``.
    package let destination: FileSystemPath
    /// The hidden temporary file beside it, created by this writer.
    package let temporary: FileSystemPath
    private var descriptor: Int32
    private var finished = false

    /// What ends a temporary file's name before the process id: `.NAME` + marker + `PID-XXXXXX`.
    package static let marker = Array(".writing-".utf8)
    /// The destination's name is kept to at most this many bytes in the temporary name (which adds up to 29 bytes and
    /// must fit in the 255 a name may have).
    package static let keptNameBytes = 200

    /// Creates the temporary file of an output at `destination`, after checking that nothing there may not be
    /// replaced.
    ///
    /// - Parameters:
    ///   - inputs: the files of the job (a composition's takes, a cover's video): the output is none of them.
    /// - Throws: ``OutputFailure``: the path names a folder or has one, a device, FIFO or socket, or one of
    ///   `inputs`; the temporary file cannot be created (no such folder, no permission); the process is ending.
    package convenience init(replacing destination: FileSystemPath, neverReplacing inputs: [FileSystemPath] = [])
        throws(OutputFailure)
    {
        try self.init(
            replacing: destination, neverReplacing: inputs, suffixes: (0..<100).lazy.map { _ in Self.randomSuffix() })
    }

    /// Creates the temporary file of an output at `destination` as ``init(replacing:neverReplacing:)`` does, trying
    /// the temporary names that end in `suffixes`, in order, until one is free (that initialiser: 100 random ones).
    ///
    /// - Throws: ``OutputFailure``, as ``init(replacing:neverReplacing:)``; `.cannotCreate` with `EEXIST`'s message
    ///   when every name was taken.
    init(
        replacing destination: FileSystemPath, neverReplacing inputs: [FileSystemPath], suffixes: some Sequence<[UInt8]>
    )
        throws(OutputFailure)
    {
        let name = destination.lastComponent
        guard !name.isEmpty, destination.bytes.last != UInt8(ascii: "/") else {
            throw OutputFailure(.namesAFolder)
        }
        try Self.checkReplaceable(destination, inputs: inputs)
        let folder = destination.directory
        var descriptor: Int32 = -1
        var temporary = destination
        // A name taken (by an earlier writer's file, or a planted link) is not ours: try another.
        for suffix in suffixes {
            temporary = folder.appending(component: Self.temporaryName(for: name, suffix: suffix))
            descriptor = Self.createExclusively(temporary)
            if descriptor >= 0 || errno != EEXIST { break }
        }
        guard descriptor >= 0 else {
            throw OutputFailure(.cannotCreate(folder: folder, message: Self.systemMessage()))
        }
        // Held until the descriptor is closed: tells a later clean-up that a writer is alive.
        _ = flock(descriptor, LOCK_EX)
        self.destination = destination
        self.temporary = temporary
        self.descriptor = descriptor
        guard Self.register(temporary, of: ObjectIdentifier(self)) else {
            finished = true
            _ = close(descriptor)
            _ = temporary.withCString { unlink($0) }
            throw OutputFailure(.ending)
        }
    }

    deinit {
        discard()
    }

    /// Writes `data` to an output at `destination` in one call: creates the temporary file, writes, renames.
    ///
    /// - Throws: ``OutputFailure``, as ``init(replacing:neverReplacing:)``, ``write(_:)`` and
    ///   ``commit()`` do; the output is then as it was.
    package static func replace(
        _ destination: FileSystemPath, with data: Data, neverReplacing inputs: [FileSystemPath] = []
    ) throws(OutputFailure) {
        let output = try AtomicOutput(replacing: destination, neverReplacing: inputs)
        try output.write(data)
        try output.commit()
    }

    /// Appends `data` to the temporary file.
    ///
    /// - Throws: ``OutputFailure`` `.cannotWrite` with the system's reason (a full disk: "No space left on device"; a
    ///   file-size limit: "File too large" when `SIGXFSZ` is ignored); the output is then discarded.
    package func write(_ data: Data) throws(OutputFailure) {
        let descriptor = descriptor
        let complete = data.withUnsafeBytes { raw -> Bool in
            var offset = 0
            while offset < raw.count {
                let rest = UnsafeRawBufferPointer(rebasing: raw[offset...])
                let written = systemWrite(descriptor, rest.baseAddress, rest.count)
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
        guard complete else { throw discarding(.cannotWrite(Self.systemMessage())) }
    }

    /// Closes the temporary file and renames it over the destination.
    ///
    /// - Throws: ``OutputFailure``: a device, FIFO or socket appeared at the destination, or the close or the rename
    ///   failed; the temporary file is then removed and the destination left as it was.
    package func commit() throws(OutputFailure) {
        precondition(!finished, "an output is committed once")
        let closed = close(descriptor)
        descriptor = -1
        guard closed == 0 else { throw discarding(.cannotWrite(Self.systemMessage())) }
        do throws(OutputFailure) {
            try Self.checkReplaceable(destination, inputs: [])
        } catch {
            throw discarding(error.problem)
        }
        let moved = Self.unregister(ObjectIdentifier(self)) {
            temporary.withCString { from in destination.withCString { to in rename(from, to) } }
        }
        guard moved == 0 else { throw discarding(.cannotReplace(Self.systemMessage())) }
        finished = true
    }

    /// Removes the temporary file; nothing once committed or discarded.
    package func discard() {
        guard !finished else { return }
        finished = true
        if descriptor >= 0 { _ = close(descriptor) }
        descriptor = -1
        _ = Self.unregister(ObjectIdentifier(self)) { temporary.withCString { unlink($0) } }
    }

    /// Discards the output and returns the failure `problem` (the system's message read before the clean-up).
    private func discarding(_ problem: OutputFailure.Problem) -> OutputFailure {
        discard()
        return OutputFailure(problem)
    }

    /// Throws when what is at `path` may not be replaced: a folder, a device, FIFO or socket, one of `inputs`.
    /// Nothing, a regular file or a link passes.
    private static func checkReplaceable(_ path: FileSystemPath, inputs: [FileSystemPath]) throws(OutputFailure) {
        var status = stat()
        guard path.withCString({ lstat($0, &status) }) == 0 else { return }
        switch UInt32(status.st_mode & S_IFMT) {
        case UInt32(S_IFDIR): throw OutputFailure(.isAFolder)
        case UInt32(S_IFCHR): throw OutputFailure(.special("a character device"))
        case UInt32(S_IFBLK): throw OutputFailure(.special("a block device"))
        case UInt32(S_IFIFO): throw OutputFailure(.special("a FIFO"))
        case UInt32(S_IFSOCK): throw OutputFailure(.special("a socket"))
        default: break
        }
        // What the rename would replace is the name itself (a link, not its target); an input reached through a link
        // at the output is left alone anyway, so only the file at the name is compared.
        let replaced = (UInt64(truncatingIfNeeded: status.st_dev), UInt64(truncatingIfNeeded: status.st_ino))
        for (index, input) in inputs.enumerated() {
            var inputStatus = stat()
            guard input.withCString({ stat($0, &inputStatus) }) == 0 else { continue }
            if (UInt64(truncatingIfNeeded: inputStatus.st_dev), UInt64(truncatingIfNeeded: inputStatus.st_ino))
                == replaced
            {
                throw OutputFailure(.isAnInput(index: index))
            }
        }
    }

    /// The temporary name for a destination named `name`.
    package static func temporaryName(for name: [UInt8], suffix: [UInt8]) -> [UInt8] {
        // Whole characters when the name is UTF-8: the cut may not fall before a continuation byte (at most 3 of them
        // follow a character's first byte).
        var end = min(name.count, keptNameBytes)
        var backed = 0
        while end > 0, end < name.count, name[end] & 0xC0 == 0x80, backed < 3 {
            end -= 1
            backed += 1
        }
        let kept = name[..<end]
        return [UInt8(ascii: ".")] + kept + marker + Array(String(getpid()).utf8) + [UInt8(ascii: "-")] + suffix
    }

    /// Creates a new file at `path` for writing, only where nothing exists, never through a link (`O_CREAT | O_EXCL |
    /// O_NOFOLLOW`): a link planted at the name, even a dangling one, makes it fail with `EEXIST`.
    ///
    /// - Returns: the open descriptor, or -1 with `errno` set.
    package static func createExclusively(_ path: FileSystemPath) -> Int32 {
        path.withCString { open($0, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644) }
    }

    /// Six random letters and digits.
    private static func randomSuffix() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<6).map { _ in suffixAlphabet[Int(generator.next(upperBound: UInt(suffixAlphabet.count)))] }
    }

    static let suffixAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)

    /// `errno`'s message.
    static func systemMessage() -> String { String(cString: strerror(errno)) }
}

/// `write(2)`, named apart from ``AtomicOutput/write(_:)``.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}

import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes a file so that readers see either the old contents or the complete new ones: a
/// temporary file in the same folder (same file system, so the rename is atomic), written in
/// full and closed, then renamed over the destination. Every failure path removes the temporary
/// file.
enum AtomicFile {
    /// Writes `data` to `path`, replacing any file there.
    ///
    /// - Throws: ``ThumbnailError`` `.writeFailed` with the system's reason.
    static func replace(_ path: String, with data: Data) throws(ThumbnailError) {
        let folder = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        guard !name.isEmpty else {
            throw ThumbnailError(.invalidArgument, reason: "\(path): names a folder, not a file")
        }
        // mkstemp replaces the six trailing X with a unique suffix, in place. The temporary name
        // adds 12 bytes to the destination's, which may already be as long as a name can be
        // (255 bytes): it keeps at most the first 200 bytes of it (whole characters).
        let unique = String(repeating: "X", count: 6)
        var stem = Substring(name)
        while stem.utf8.count > 200 { stem = stem.dropLast() }
        var template = Array("\(folder.isEmpty ? "." : folder)/.\(stem).tmp-\(unique)".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return -1 }
            return mkstemp(base)
        }
        guard descriptor >= 0 else {
            throw failure(path, "cannot create a temporary file in \(folder.isEmpty ? "." : folder)")
        }
        let temporary = template.withUnsafeBufferPointer { buffer in
            buffer.baseAddress.map { String(cString: $0) } ?? ""
        }
        var closed = false
        var renamed = false
        defer {
            if !closed { _ = close(descriptor) }
            if !renamed { _ = unlink(temporary) }
        }
        // mkstemp creates the file readable by its owner only; a cover is an ordinary file.
        _ = fchmod(descriptor, 0o644)
        let complete = data.withUnsafeBytes { raw -> Bool in
            guard var next = raw.baseAddress else { return true }
            var remaining = raw.count
            while remaining > 0 {
                let written = write(descriptor, next, remaining)
                if written < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                remaining -= written
                next += written
            }
            return true
        }
        guard complete else { throw failure(path, "cannot write") }
        closed = true
        guard close(descriptor) == 0 else { throw failure(path, "cannot write") }
        guard rename(temporary, path) == 0 else { throw failure(path, "cannot replace") }
        renamed = true
    }

    /// A `.writeFailed` error carrying `errno`'s message.
    private static func failure(_ path: String, _ action: String) -> ThumbnailError {
        let message = String(cString: strerror(errno))
        return ThumbnailError(.writeFailed, reason: "\(path): \(action): \(message)")
    }
}

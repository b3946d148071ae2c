#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file opened for reading by offset, closed in `deinit`: what ``SampleTableCensus`` walks before FFmpeg opens the
/// same file.
///
/// Deliberately not `Sendable`: one guarded open reads it on one thread and lets it go.
package final class ReadOnlyFile: CensusSource {
    private let descriptor: Int32
    package let size: Int

    /// Opens `path` without blocking (a FIFO does not wait for a writer) and reads its size; nil when it cannot be
    /// opened or is not a regular file.
    package init?(path: FileSystemPath) {
        let descriptor = path.withCString { open($0, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }
        guard descriptor >= 0 else { return nil }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
        size = Int(status.st_size)
    }

    deinit { close(descriptor) }

    package func bytes(at offset: Int, count: Int) -> [UInt8] {
        guard offset >= 0, count > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let read = bytes.withUnsafeMutableBytes { buffer in
                pread(descriptor, buffer.baseAddress! + filled, count - filled, off_t(offset + filled))
            }
            if read < 0 && errno == EINTR { continue }
            guard read > 0 else { break }
            filled += read
        }
        return Array(bytes.prefix(filled))
    }
}

import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A draft's file opened for reading by ``DraftStorage/openForReading(_:)``: read in pieces, closed when released.
///
/// A restore reads each file from its start to its end in pieces of at most 64 KiB, and holds at most one piece plus
/// the record it is reading: never the whole file.
public protocol DraftReadableFile: AnyObject {
    /// The file's size in bytes when it was opened; the reader reads no further.
    var size: Int { get }
    /// Up to `count` bytes of the file from `offset` (`read(2)`'s rule: fewer may come back, and none only at or past
    /// the end of the file, which ends the reading).
    func read(at offset: Int, count: Int) throws(DraftError) -> [UInt8]
}

extension DraftStorage {
    /// The default: the whole file through ``contents(of:)``, handed out in pieces. A storage that can read a part of
    /// a file implements this itself, so that a restore never holds a whole file (``FileDraftStorage`` does).
    public func openForReading(_ path: String) throws(DraftError) -> (any DraftReadableFile)? {
        guard let bytes = try contents(of: path) else { return nil }
        return DraftBytesFile(bytes)
    }

    /// The default: the names in the folder (`FileManager`), on the file system whatever the storage.
    public func entries(of folder: String) throws(DraftError) -> [String] {
        do {
            return try FileManager.default.contentsOfDirectory(atPath: folder)
        } catch {
            let code = ((error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError)?.code
            throw .io(path: folder, operation: "list", errno: Int32(code ?? Int(ENOENT)))
        }
    }
}

/// A file already read whole, handed out in pieces (the default ``DraftStorage/openForReading(_:)``).
final class DraftBytesFile: DraftReadableFile {
    private let bytes: [UInt8]

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var size: Int { bytes.count }

    func read(at offset: Int, count: Int) throws(DraftError) -> [UInt8] {
        guard offset < bytes.count, count > 0 else { return [] }
        return Array(bytes[offset..<min(bytes.count, offset + count)])
    }
}

/// A regular file open for reading on the file system: `pread` at each piece, closed when released.
final class DraftDescriptorFile: DraftReadableFile {
    let size: Int
    private let path: String
    private let descriptor: Int32

    /// Opens `path` with `O_NOFOLLOW | O_NONBLOCK` (a link, a FIFO never block or lead elsewhere) and checks it with
    /// `fstat` before any read. - Returns: nil when there is no file. - Throws: ``DraftError/notAFile(path:kind:)``
    ///   for anything but a regular file; `.corrupt` for a file larger than a draft can be (``DraftFormat``).
    init?(path: String) throws(DraftError) {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            if errno == ELOOP { throw .notAFile(path: path, kind: "a symbolic link") }
            throw .io(path: path, operation: "open", errno: errno)
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let error = errno
            close(descriptor)
            throw .io(path: path, operation: "stat", errno: error)
        }
        let kind = FileDraftStorage.kind(of: status.st_mode)
        guard kind == nil, Int(status.st_size) <= DraftFormat.maximumFileSize else {
            close(descriptor)
            if let kind { throw .notAFile(path: path, kind: kind) }
            throw .corrupt(
                path: path,
                reason: "it holds \(status.st_size) bytes, more than a draft can (\(DraftFormat.maximumFileSize))")
        }
        self.path = path
        self.descriptor = descriptor
        size = Int(status.st_size)
    }

    deinit { close(descriptor) }

    func read(at offset: Int, count: Int) throws(DraftError) -> [UInt8] {
        let wanted = max(0, min(count, size - offset))
        var bytes = [UInt8](repeating: 0, count: wanted)
        var filled = 0
        while filled < wanted {
            let got = bytes.withUnsafeMutableBytes {
                pread(descriptor, $0.baseAddress! + filled, wanted - filled, off_t(offset + filled))
            }
            if got < 0 {
                if errno == EINTR { continue }
                throw .io(path: path, operation: "read", errno: errno)
            }
            if got == 0 { break }  // shorter than when it was opened
            filled += got
        }
        return filled == wanted ? bytes : Array(bytes[0..<filled])
    }
}

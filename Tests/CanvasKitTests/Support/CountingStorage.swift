import CanvasKit
import Locking

/// A storage that passes everything to another and counts what is read through it: the largest read asked for, the
/// bytes read, and the files read whole (``contents(of:)``). With `pieceLimit`, each read gives back at most that many
/// bytes, as a storage may: a reader must take a file in pieces of any length.
final class CountingStorage: DraftStorage {
    struct Counts: Sendable, Equatable {
        var largestRead = 0
        var bytesRead = 0
        var wholeReads = 0
    }

    let inner: any DraftStorage
    let pieceLimit: Int?
    private let state = LockedValue(Counts())

    init(_ inner: any DraftStorage, pieceLimit: Int? = nil) {
        self.inner = inner
        self.pieceLimit = pieceLimit
    }

    /// What was read so far.
    var counts: Counts {
        state.withLock { $0 }
    }

    func reset() {
        state.withLock { $0 = Counts() }
    }

    func counted(asked: Int, got: Int) {
        state.withLock { counts in
            counts.largestRead = max(counts.largestRead, asked)
            counts.bytesRead += got
        }
    }

    func contents(of path: String) throws(DraftError) -> [UInt8]? {
        let bytes = try inner.contents(of: path)
        if let bytes {
            state.withLock { counts in
                counts.wholeReads += 1
                counts.largestRead = max(counts.largestRead, bytes.count)
                counts.bytesRead += bytes.count
            }
        }
        return bytes
    }

    func openForReading(_ path: String) throws(DraftError) -> (any DraftReadableFile)? {
        try inner.openForReading(path).map { CountingFile(inner: $0, storage: self) }
    }

    func entries(of folder: String) throws(DraftError) -> [String] { try inner.entries(of: folder) }
    func append(_ bytes: [UInt8], to path: String) throws(DraftError) { try inner.append(bytes, to: path) }
    func sync(_ path: String, _ level: DraftSync) throws(DraftError) { try inner.sync(path, level) }
    func write(_ bytes: [UInt8], to path: String) throws(DraftError) { try inner.write(bytes, to: path) }
    func protect(_ path: String, _ protection: DraftProtection) throws(DraftError) {
        try inner.protect(path, protection)
    }
    func rename(_ source: String, to destination: String) throws(DraftError) {
        try inner.rename(source, to: destination)
    }
    func syncFolder(of path: String, _ level: DraftSync) throws(DraftError) { try inner.syncFolder(of: path, level) }
    func keep(_ path: String, as destination: String) throws(DraftError) { try inner.keep(path, as: destination) }
    func remove(_ path: String) throws(DraftError) { try inner.remove(path) }
    func lock(_ path: String) throws(DraftError) -> DraftLock { try inner.lock(path) }
}

/// A file read through a ``CountingStorage``.
final class CountingFile: DraftReadableFile {
    let inner: any DraftReadableFile
    let storage: CountingStorage

    init(inner: any DraftReadableFile, storage: CountingStorage) {
        self.inner = inner
        self.storage = storage
    }

    var size: Int { inner.size }

    func read(at offset: Int, count: Int) throws(DraftError) -> [UInt8] {
        let bytes = try inner.read(at: offset, count: min(count, storage.pieceLimit ?? count))
        storage.counted(asked: count, got: bytes.count)
        return bytes
    }
}

import Foundation
import Locking

@testable import CanvasKit

/// A `PowerLossStorage` that keeps what a kill would leave at every moment the files change: after each append,
/// write, rename, removal and link, and in the middle of each append (the whole records of it that came first, and
/// each record cut in half: a kill during `write(2)` may stop it short). A test opens every one of these images as a
/// restore after a kill at that moment would.
final class KillPointStorage: DraftStorage {
    let inner: PowerLossStorage
    private let kept = LockedValue<[[String: [UInt8]]]>([])

    /// Wraps a storage holding `files`, as after a restart.
    init(files: [String: [UInt8]] = [:]) {
        inner = PowerLossStorage(files: files)
        kept.withLock { $0 = [files] }
    }

    /// What a kill would have left, in order: the files as given, then after and during each change.
    var images: [[String: [UInt8]]] { kept.withLock { $0 } }

    private func keepImage() {
        let image = inner.killImage()
        kept.withLock { $0.append(image) }
    }

    func contents(of path: String) throws(DraftError) -> [UInt8]? { try inner.contents(of: path) }
    func entries(of folder: String) throws(DraftError) -> [String] { try inner.entries(of: folder) }
    func sync(_ path: String, _ level: DraftSync) throws(DraftError) { try inner.sync(path, level) }
    func syncFolder(of path: String, _ level: DraftSync) throws(DraftError) { try inner.syncFolder(of: path, level) }
    func protect(_ path: String, _ protection: DraftProtection) throws(DraftError) {
        try inner.protect(path, protection)
    }
    func lock(_ path: String) throws(DraftError) -> DraftLock { try inner.lock(path) }

    func append(_ bytes: [UInt8], to path: String) throws(DraftError) {
        let before = inner.killImage()
        if let old = before[path] {
            var cuts: [Int] = []
            var offset = 0
            // An append is whole records, read as the draft reads them.
            while let record = DraftFormat.record(in: bytes, at: offset) {
                let end = offset + DraftFormat.recordHeaderSize + record.payload.count
                cuts.append(offset + (end - offset) / 2)
                if end < bytes.count { cuts.append(end) }
                offset = end
            }
            precondition(offset == bytes.count, "KillPointStorage: an append that is not whole records")
            let torn = cuts.map { cut in before.merging([path: old + bytes.prefix(cut)]) { $1 } }
            kept.withLock { $0 += torn }
        }
        try inner.append(bytes, to: path)
        keepImage()
    }

    func write(_ bytes: [UInt8], to path: String) throws(DraftError) {
        try inner.write(bytes, to: path)
        keepImage()
    }

    func rename(_ source: String, to destination: String) throws(DraftError) {
        try inner.rename(source, to: destination)
        keepImage()
    }

    func keep(_ path: String, as destination: String) throws(DraftError) {
        try inner.keep(path, as: destination)
        keepImage()
    }

    func remove(_ path: String) throws(DraftError) {
        try inner.remove(path)
        keepImage()
    }
}

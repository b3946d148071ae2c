import CanvasKit
import Foundation
import Locking
import SeededRandom

/// A draft storage in memory that remembers what was synced, so a test can cut the power at any moment: the files
/// then hold only what a sync made durable (SQLite's crash-test file layer does the same). A file's bytes are durable
/// up to its last `sync`; a folder's entries (creations, renames) up to its last `syncFolder`. `killImage()` is what a
/// kill leaves instead: everything written, synced or not.
final class PowerLossStorage: DraftStorage {
    private final class Inode: @unchecked Sendable {
        // Why `@unchecked Sendable` is safe: an inode is read and written only inside `state`'s lock.
        var data: [UInt8] = []
        var durable: [UInt8] = []
    }

    private struct State: @unchecked Sendable {
        // Why `@unchecked Sendable` is safe: the inodes it holds are reached only through this lock.
        var entries: [String: Inode] = [:]
        var durableEntries: [String: Inode] = [:]
        var writes = 0
        /// Fail every operation from this write on (a full disk), when set.
        var failFrom: Int?
    }

    private let state = LockedValue(State())
    /// Held syncs wait on it until released (`holdSyncs`).
    private let syncGate = NSCondition()
    private let syncsHeld = LockedValue(false)

    /// A storage holding `files` (durable, as after a restart).
    init(files: [String: [UInt8]] = [:]) {
        state.withLockUnchecked { state in
            for (path, bytes) in files {
                let inode = Inode()
                inode.data = bytes
                inode.durable = bytes
                state.entries[path] = inode
                state.durableEntries[path] = inode
            }
        }
    }

    /// The files after a power loss now: the durable entries with their durable bytes; with `tornTail`, each file
    /// that only grew since its sync keeps a random prefix of its unsynced bytes too (a write the disk half made).
    func powerLossImage(tornTail generator: inout SplitMix64?) -> [String: [UInt8]] {
        state.withLockUnchecked { state in
            var files: [String: [UInt8]] = [:]
            for (path, inode) in state.durableEntries {
                var bytes = inode.durable
                if var random = generator, inode.data.count > bytes.count, inode.data.starts(with: bytes) {
                    bytes += inode.data[bytes.count..<Int.random(in: bytes.count...inode.data.count, using: &random)]
                    generator = random
                }
                files[path] = bytes
            }
            return files
        }
    }

    /// The files after a kill now: every entry with every byte written.
    func killImage() -> [String: [UInt8]] {
        state.withLockUnchecked { state in state.entries.mapValues(\.data) }
    }

    /// Makes every operation from the next on fail with `ENOSPC` (or succeed again, with nil).
    func failOperations(_ fail: Bool) {
        state.withLockUnchecked { state in state.failFrom = fail ? state.writes : nil }
    }

    private func operation<T>(_ path: String, _ body: (inout State) throws(DraftError) -> T) throws(DraftError) -> T {
        try state.withLockUnchecked { state throws(DraftError) in
            state.writes += 1
            if let failFrom = state.failFrom, state.writes > failFrom {
                throw .io(path: path, operation: "write", errno: ENOSPC)
            }
            return try body(&state)
        }
    }

    func contents(of path: String) throws(DraftError) -> [UInt8]? {
        state.withLockUnchecked { $0.entries[path]?.data }
    }

    func append(_ bytes: [UInt8], to path: String) throws(DraftError) {
        try operation(path) { state throws(DraftError) in
            guard let inode = state.entries[path] else { throw .io(path: path, operation: "open", errno: ENOENT) }
            inode.data += bytes
        }
    }

    /// Makes every sync from now on wait (a disk that does not answer) until called again with false.
    func holdSyncs(_ hold: Bool) {
        syncGate.lock()
        syncsHeld.withLock { $0 = hold }
        syncGate.broadcast()
        syncGate.unlock()
    }

    private func waitForSyncGate() {
        syncGate.lock()
        while syncsHeld.withLock({ $0 }) { syncGate.wait() }
        syncGate.unlock()
    }

    func sync(_ path: String) throws(DraftError) {
        waitForSyncGate()
        try operation(path) { state throws(DraftError) in
            guard let inode = state.entries[path] else { throw .io(path: path, operation: "open", errno: ENOENT) }
            inode.durable = inode.data
        }
    }

    func write(_ bytes: [UInt8], to path: String) throws(DraftError) {
        try operation(path) { state in
            let inode = state.entries[path] ?? Inode()
            inode.data = bytes
            state.entries[path] = inode
        }
    }

    func rename(_ source: String, to destination: String) throws(DraftError) {
        try operation(destination) { state throws(DraftError) in
            guard let inode = state.entries.removeValue(forKey: source) else {
                throw .io(path: source, operation: "rename", errno: ENOENT)
            }
            state.entries[destination] = inode
        }
    }

    func syncFolder(of path: String) throws(DraftError) {
        waitForSyncGate()
        try operation(path) { state in state.durableEntries = state.entries }
    }
}

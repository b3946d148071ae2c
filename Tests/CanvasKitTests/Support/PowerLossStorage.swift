import CanvasKit
import Foundation
import Locking
import SeededRandom

/// A draft storage in memory that remembers what reached the disk, so a test can cut the power at any moment (SQLite's
/// crash-test file layer, test6.c, does the same). Each file has what reads see (the page cache) and what is on the
/// disk; the writes in between are pending until a `sync` puts them on the disk. A folder's entries (creations,
/// renames) are on the disk up to its last `syncFolder`. A power loss keeps the disk and, when asked, damages what was
/// pending the way disks do: a prefix of the writes with the last one torn, any subset of them (reordered), the
/// file's new length with zeros or garbage where its data never arrived. A sync that fails (`failNextSync`) drops the
/// pending writes without putting them on the disk, as Linux does with dirty pages after an I/O error. A kill keeps
/// everything written (`killImage`, `afterKill`). Every sync records the level it was asked for.
final class PowerLossStorage: DraftStorage {
    struct Write {
        let offset: Int
        let bytes: [UInt8]
    }

    private final class Inode: @unchecked Sendable {
        // Why `@unchecked Sendable` is safe: an inode is read and written only inside `state`'s lock.
        var data: [UInt8] = []
        var disk: [UInt8] = []
        var pending: [Write] = []

        func copy() -> Inode {
            let inode = Inode()
            (inode.data, inode.disk, inode.pending) = (data, disk, pending)
            return inode
        }
    }

    private struct State: @unchecked Sendable {
        // Why `@unchecked Sendable` is safe: the inodes it holds are reached only through this lock.
        var entries: [String: Inode] = [:]
        var durableEntries: [String: Inode] = [:]
        var writes = 0
        /// Fail every operation from this write on (a full disk), when set.
        var failFrom: Int?
        /// Fail the next sync and drop the pending writes of its file.
        var failsNextSync = false
        /// The level of every sync asked for, files and folders, in order.
        var syncLevels: [DraftSync] = []
        /// The drafts locked now.
        var locked: Set<String> = []
        /// The path of every `write` asked for (failed ones too), in order.
        var writePaths: [String] = []
        /// Every `protect` asked for, in order.
        var protections: [(path: String, protection: DraftProtection)] = []
        /// Fail every `write` to a path ending with it with `ENOSPC` (appends and syncs go on), when set.
        var failsWritesEnding: String?
        /// The bytes the files may hold together, when set: an append or a write past it fails with `ENOSPC`.
        var capacity: Int?

        /// The bytes the files hold, but the file at `replaced` (a write replaces it).
        func used(replacing replaced: String? = nil) -> Int {
            var seen: Set<ObjectIdentifier> = []
            var total = 0
            for (path, inode) in entries where path != replaced && seen.insert(ObjectIdentifier(inode)).inserted {
                total += inode.data.count
            }
            return total
        }
    }

    private let state = LockedValue(State())
    /// Held syncs wait on it until released (`holdSyncs`).
    private let syncGate = NSCondition()
    private let syncsHeld = LockedValue(false)
    /// Held appends and writes wait on `syncGate` too (`holdWrites`).
    private let writesHeld = LockedValue(false)

    /// A storage holding `files` (on the disk, as after a restart).
    init(files: [String: [UInt8]] = [:]) {
        state.withLockUnchecked { state in
            for (path, bytes) in files {
                let inode = Inode()
                inode.data = bytes
                inode.disk = bytes
                state.entries[path] = inode
                state.durableEntries[path] = inode
            }
        }
    }

    private init(copying state: State) {
        var copies: [ObjectIdentifier: Inode] = [:]
        func copy(_ inode: Inode) -> Inode {
            if let done = copies[ObjectIdentifier(inode)] { return done }
            let made = inode.copy()
            copies[ObjectIdentifier(inode)] = made
            return made
        }
        var fresh = State()
        fresh.entries = state.entries.mapValues(copy)
        fresh.durableEntries = state.durableEntries.mapValues(copy)
        self.state.withLockUnchecked { $0 = fresh }
    }

    /// The storage after the process was killed now and started again: the system still holds every write (unsynced
    /// ones included, in its page cache) until the power goes.
    func afterKill() -> PowerLossStorage {
        state.withLockUnchecked { PowerLossStorage(copying: $0) }
    }

    /// The files after a power loss now: the entries on the disk with their bytes on the disk. With `damage`, each
    /// file's pending writes are damaged the way a disk may leave them (see the type's description).
    func powerLossImage(tornTail damage: inout SplitMix64?) -> [String: [UInt8]] {
        state.withLockUnchecked { state in
            var files: [String: [UInt8]] = [:]
            for (path, inode) in state.durableEntries {
                if var random = damage {
                    files[path] = Self.damaged(inode, &random)
                    damage = random
                } else {
                    files[path] = inode.disk
                }
            }
            return files
        }
    }

    /// What a power loss leaves of `inode`: its disk bytes, and some of its pending writes.
    private static func damaged(_ inode: Inode, _ random: inout SplitMix64) -> [UInt8] {
        var bytes = inode.disk
        guard !inode.pending.isEmpty else { return bytes }
        func put(_ write: Write, upTo length: Int) {
            let end = write.offset + length
            if bytes.count < end { bytes += [UInt8](repeating: 0, count: end - bytes.count) }
            bytes.replaceSubrange(write.offset..<end, with: write.bytes[0..<length])
        }
        let mode = Int.random(in: 0..<5, using: &random)
        switch mode {
        case 0:
            break
        case 1:
            // A prefix of the writes, the last of them torn.
            let count = Int.random(in: 0...inode.pending.count, using: &random)
            for (index, write) in inode.pending.prefix(count).enumerated() {
                let whole = index < count - 1
                put(write, upTo: whole ? write.bytes.count : Int.random(in: 0...write.bytes.count, using: &random))
            }
        default:
            // Any of the writes, each whole or torn (the disk reordered them); then the length the file had grown to,
            // with zeros (mode 3) or garbage (mode 4) where no data arrived.
            var arrived = [Bool](repeating: false, count: inode.data.count)
            for write in inode.pending where Bool.random(using: &random) {
                let length =
                    Bool.random(using: &random)
                    ? write.bytes.count : Int.random(in: 0...write.bytes.count, using: &random)
                put(write, upTo: length)
                for offset in write.offset..<(write.offset + length) where offset < arrived.count {
                    arrived[offset] = true
                }
            }
            guard mode > 2, bytes.count < inode.data.count else { break }
            let start = bytes.count
            bytes += [UInt8](repeating: 0, count: inode.data.count - start)
            if mode == 4 {
                for offset in start..<bytes.count where !arrived[offset] {
                    bytes[offset] = UInt8.random(in: 0...255, using: &random)
                }
            }
        }
        return bytes
    }

    /// The files after a kill now: every entry with every byte written.
    func killImage() -> [String: [UInt8]] {
        state.withLockUnchecked { state in state.entries.mapValues(\.data) }
    }

    /// The level of every sync asked for so far, files and folders, in order.
    var syncLevels: [DraftSync] {
        state.withLockUnchecked { $0.syncLevels }
    }

    /// Makes every operation from the next on fail with `ENOSPC` (or succeed again, with nil).
    func failOperations(_ fail: Bool) {
        state.withLockUnchecked { state in state.failFrom = fail ? state.writes : nil }
    }

    /// Makes the next file sync fail with `EIO`, dropping its file's pending writes: they stay readable but never
    /// reach the disk.
    func failNextSync() {
        state.withLockUnchecked { $0.failsNextSync = true }
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

    /// Makes every append and write from now on wait (a disk that stalls) until called again with false.
    func holdWrites(_ hold: Bool) {
        syncGate.lock()
        writesHeld.withLock { $0 = hold }
        syncGate.broadcast()
        syncGate.unlock()
    }

    private func waitForWriteGate() {
        syncGate.lock()
        while writesHeld.withLock({ $0 }) { syncGate.wait() }
        syncGate.unlock()
    }

    /// Makes every `write` (not `append`) to a path ending with `suffix` fail with `ENOSPC`, or none with nil: a disk
    /// with room for the journal's appends, not for a new snapshot.
    func failWrites(endingWith suffix: String?) {
        state.withLockUnchecked { $0.failsWritesEnding = suffix }
    }

    /// Gives the files room for `free` more bytes than they hold now (a disk that filled up, or got some space back),
    /// or any number of bytes with nil.
    func setFreeSpace(_ free: Int?) {
        state.withLockUnchecked { state in state.capacity = free.map { state.used() + $0 } }
    }

    /// The bytes the files hold now.
    var usedBytes: Int {
        state.withLockUnchecked { $0.used() }
    }

    /// How many writes were asked for (failed ones too) to a path ending with `suffix`.
    func writes(endingWith suffix: String) -> Int {
        state.withLockUnchecked { $0.writePaths.filter { $0.hasSuffix(suffix) }.count }
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

    /// The names of the entries directly in `folder`, as the files are now.
    func entries(of folder: String) throws(DraftError) -> [String] {
        let prefix = folder.hasSuffix("/") ? folder : folder + "/"
        return state.withLockUnchecked { state in
            state.entries.keys.filter { $0.hasPrefix(prefix) && !$0.dropFirst(prefix.count).contains("/") }
                .map { String($0.dropFirst(prefix.count)) }
        }
    }

    func append(_ bytes: [UInt8], to path: String) throws(DraftError) {
        waitForWriteGate()
        try operation(path) { state throws(DraftError) in
            guard let inode = state.entries[path] else { throw .io(path: path, operation: "open", errno: ENOENT) }
            if let capacity = state.capacity, state.used() + bytes.count > capacity {
                throw .io(path: path, operation: "write", errno: ENOSPC)
            }
            inode.pending.append(Write(offset: inode.data.count, bytes: bytes))
            inode.data += bytes
        }
    }

    func sync(_ path: String, _ level: DraftSync) throws(DraftError) {
        waitForSyncGate()
        try operation(path) { state throws(DraftError) in
            state.syncLevels.append(level)
            guard let inode = state.entries[path] else { throw .io(path: path, operation: "open", errno: ENOENT) }
            if state.failsNextSync {
                state.failsNextSync = false
                inode.pending = []
                throw .io(path: path, operation: "sync", errno: EIO)
            }
            for write in inode.pending {
                let end = write.offset + write.bytes.count
                if inode.disk.count < end { inode.disk += [UInt8](repeating: 0, count: end - inode.disk.count) }
                inode.disk.replaceSubrange(write.offset..<end, with: write.bytes)
            }
            inode.pending = []
        }
    }

    func write(_ bytes: [UInt8], to path: String) throws(DraftError) {
        waitForWriteGate()
        try state.withLockUnchecked { state throws(DraftError) in
            state.writePaths.append(path)
            if let suffix = state.failsWritesEnding, path.hasSuffix(suffix) {
                throw .io(path: path, operation: "write", errno: ENOSPC)
            }
        }
        try operation(path) { state throws(DraftError) in
            if let capacity = state.capacity, state.used(replacing: path) + bytes.count > capacity {
                throw .io(path: path, operation: "write", errno: ENOSPC)
            }
            let inode = Inode()
            inode.data = bytes
            inode.pending = [Write(offset: 0, bytes: bytes)]
            state.entries[path] = inode
        }
    }

    /// Records the protection asked for (there is no data protection here).
    func protect(_ path: String, _ protection: DraftProtection) throws(DraftError) {
        state.withLockUnchecked { $0.protections.append((path, protection)) }
    }

    /// Every `protect` asked for so far, in order.
    var protections: [(path: String, protection: DraftProtection)] {
        state.withLockUnchecked { $0.protections }
    }

    /// The path of every `write` asked for so far, in order.
    var writePaths: [String] {
        state.withLockUnchecked { $0.writePaths }
    }

    func rename(_ source: String, to destination: String) throws(DraftError) {
        try operation(destination) { state throws(DraftError) in
            guard let inode = state.entries.removeValue(forKey: source) else {
                throw .io(path: source, operation: "rename", errno: ENOENT)
            }
            state.entries[destination] = inode
        }
    }

    func keep(_ path: String, as destination: String) throws(DraftError) {
        try operation(destination) { state throws(DraftError) in
            guard let inode = state.entries[path] else { throw .io(path: path, operation: "link", errno: ENOENT) }
            guard state.entries[destination] == nil else {
                throw .io(path: destination, operation: "link", errno: EEXIST)
            }
            state.entries[destination] = inode
        }
    }

    func remove(_ path: String) throws(DraftError) {
        try operation(path) { state in state.entries[path] = nil }
    }

    func lock(_ path: String) throws(DraftError) -> DraftLock {
        try state.withLockUnchecked { state throws(DraftError) in
            guard state.locked.insert(path).inserted else { throw .inUse(path: path) }
        }
        return DraftLock { self.state.withLockUnchecked { _ = $0.locked.remove(path) } }
    }

    func syncFolder(of path: String, _ level: DraftSync) throws(DraftError) {
        waitForSyncGate()
        try operation(path) { state in
            state.syncLevels.append(level)
            state.durableEntries = state.entries
        }
    }
}

import Foundation
import Locking
import MediaCore

/// Covers kept in memory, keyed by the file's identity and the request, bounded in bytes and
/// evicting the least recently used. Safe to use from any thread.
///
/// A lookup costs one `stat` call and one locked dictionary access, so a scrolling grid can ask
/// on every display. The key holds the file's path, size, modification time (to the
/// nanosecond) and inode, and the ``CoverOptions``: a file that is rewritten or replaced gets a
/// new key, so its old cover is never returned (and is dropped the first time the change is
/// seen).
///
/// ```swift
/// let cache = CoverCache(capacity: 32 << 20)          // 32 MB of pixels
/// if let cover = cache.cover(for: url, options: options) { show(cover) }
/// ```
public final class CoverCache: Sendable {
    /// One version of one file, and one request.
    public struct Key: Sendable, Hashable {
        /// The file's path.
        public let path: String
        let identity: FileIdentity
        /// The request.
        public let options: CoverOptions

        /// The file's size in bytes when the key was made.
        public var fileSize: Int64 { identity.size }

        /// The file's modification time when the key was made.
        public var modificationDate: Date {
            Date(
                timeIntervalSince1970: Double(identity.modificationSeconds) + Double(identity.modificationNanoseconds)
                    / 1e9)
        }
    }

    /// Counters since the cache was made (or last cleared).
    public struct Statistics: Sendable, Hashable {
        /// Lookups that found a cover.
        public var hits = 0
        /// Lookups that found none (including those for a file that changed or vanished).
        public var misses = 0
        /// Covers dropped to stay within the capacity.
        public var evictions = 0
        /// Covers dropped because their file changed.
        public var invalidations = 0
        /// Covers held now.
        public var count = 0
        /// Bytes of pixels held now.
        public var byteCount = 0
    }

    private struct State: Sendable {
        var entries: LeastRecentlyUsed<Key, CoverImage>
        /// The keys held for each path, to drop a changed file's covers.
        var keysByPath: [String: Set<Key>] = [:]
        var statistics = Statistics()

        mutating func forget(_ keys: some Sequence<Key>) {
            for key in keys {
                keysByPath[key.path]?.remove(key)
                if keysByPath[key.path]?.isEmpty == true { keysByPath[key.path] = nil }
            }
        }

        /// Drops the covers of `path` that belong to another version of the file.
        mutating func dropOtherVersions(of key: Key) {
            guard let keys = keysByPath[key.path] else { return }
            let stale = keys.filter { $0.identity != key.identity }
            guard !stale.isEmpty else { return }
            for old in stale { entries.removeValue(for: old) }
            forget(stale)
            statistics.invalidations += stale.count
        }

        mutating func refreshCounts() {
            statistics.count = entries.count
            statistics.byteCount = entries.totalCost
        }
    }

    private let state: LockedValue<State>

    /// The most bytes of pixels held (`CoverImage.byteCount` summed).
    public let capacity: Int

    /// A cache holding at most `capacity` bytes of pixels (a 320x180 RGB cover is 169 KB).
    public init(capacity: Int) {
        self.capacity = max(0, capacity)
        state = LockedValue(State(entries: LeastRecentlyUsed(capacity: capacity)))
    }

    /// The key for the file at `url` as it is now and `options`; nil when there is no file
    /// there (or `url` is not a file URL).
    public func key(for url: URL, options: CoverOptions) -> Key? {
        guard url.isFileURL else { return nil }
        let path = url.path
        guard let identity = FileIdentity(path: path) else { return nil }
        return Key(path: path, identity: identity, options: options)
    }

    /// The cover for the file at `url` as it is now, made with `options`, if held. Marks it
    /// most recently used. A file that changed since its cover was stored misses, and its old
    /// covers are dropped.
    public func cover(for url: URL, options: CoverOptions) -> CoverImage? {
        guard let key = key(for: url, options: options) else {
            state.withLock { $0.statistics.misses += 1 }
            return nil
        }
        return cover(for: key)
    }

    /// The cover stored under `key`, if held.
    public func cover(for key: Key) -> CoverImage? {
        state.withLock { state in
            if let image = state.entries.value(for: key) {
                state.statistics.hits += 1
                return image
            }
            state.statistics.misses += 1
            state.dropOtherVersions(of: key)
            state.refreshCounts()
            return nil
        }
    }

    /// Stores `image` under `key` (replacing what was there and any cover of another version of
    /// the same file with the same options), evicting the least recently used covers beyond the
    /// capacity. A cover larger than the whole capacity is not stored.
    public func insert(_ image: CoverImage, for key: Key) {
        state.withLock { state in
            state.dropOtherVersions(of: key)
            let evicted = state.entries.insert(image, cost: image.byteCount, for: key)
            state.forget(evicted)
            state.statistics.evictions += evicted.count
            if image.byteCount <= capacity {
                state.keysByPath[key.path, default: []].insert(key)
            }
            state.refreshCounts()
        }
    }

    /// Drops every cover of the file at `url` (any version, any options).
    public func removeCovers(for url: URL) {
        state.withLock { state in
            guard let keys = state.keysByPath.removeValue(forKey: url.path) else { return }
            for key in keys { state.entries.removeValue(for: key) }
            state.refreshCounts()
        }
    }

    /// Drops every cover and resets the statistics.
    public func removeAll() {
        state.withLock { state in
            state.entries.removeAll()
            state.keysByPath.removeAll()
            state.statistics = Statistics()
        }
    }

    /// The counters now.
    public var statistics: Statistics { state.withLock { $0.statistics } }
}

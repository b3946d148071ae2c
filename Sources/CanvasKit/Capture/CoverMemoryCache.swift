import Foundation
import Locking

/// A bounded in-memory cache of covers, keyed by take file (its path, size and modification date, so a file
/// rewritten in place is a new key) and requested size; the least recently used covers go first when the pixels
/// exceed the byte limit. The Apple layer's `AVAssetImageGenerator` provider keeps its covers here, so a cell scrolled
/// back on screen gets its cover without decoding the take again.
///
/// Thread safety: `Sendable`; every method may be called from any thread.
public final class CoverMemoryCache: Sendable {
    /// What a cover is cached under.
    public struct Key: Sendable, Hashable {
        /// The take's path (standardized).
        public var path: String
        /// The take file's size in bytes.
        public var fileSize: UInt64
        /// The take file's modification date.
        public var modified: Date?
        /// The size the cover was fitted in.
        public var maximumSize: PixelSize

        /// The key of the take at `url` as it is on disk now, fitted in `maximumSize`; nil when the file cannot be
        /// read (a missing take is not cached).
        public init?(takeAt url: URL, maximumSize: PixelSize) {
            let path = url.standardizedFileURL.path
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                let size = attributes[.size] as? NSNumber
            else { return nil }
            self.path = path
            fileSize = size.uint64Value
            modified = attributes[.modificationDate] as? Date
            self.maximumSize = maximumSize
        }
    }

    private struct State {
        var covers: [Key: (cover: CoverImage, use: UInt64)] = [:]
        var bytes = 0
        var uses: UInt64 = 0
    }

    /// The most pixel bytes kept.
    public let byteLimit: Int
    private let state = LockedValue(State())

    /// An empty cache that keeps at most `byteLimit` bytes of pixels (32 MB by default: about 100 covers of
    /// 320x240 RGBA).
    public init(byteLimit: Int = 32 << 20) {
        self.byteLimit = byteLimit
    }

    /// The cover cached under `key`, marked as just used; nil when there is none.
    public func cover(for key: Key) -> CoverImage? {
        state.withLock { state in
            guard let entry = state.covers[key] else { return nil }
            state.uses += 1
            state.covers[key] = (entry.cover, state.uses)
            return entry.cover
        }
    }

    /// Keeps `cover` under `key`, then drops the least recently used covers until the pixels fit the byte limit (a
    /// cover larger than the limit is not kept).
    public func insert(_ cover: CoverImage, for key: Key) {
        state.withLock { state in
            if let old = state.covers.removeValue(forKey: key) { state.bytes -= old.cover.pixels.count }
            guard cover.pixels.count <= byteLimit else { return }
            state.uses += 1
            state.covers[key] = (cover, state.uses)
            state.bytes += cover.pixels.count
            while state.bytes > byteLimit, let oldest = state.covers.min(by: { $0.value.use < $1.value.use }) {
                state.covers[oldest.key] = nil
                state.bytes -= oldest.value.cover.pixels.count
            }
        }
    }

    /// The pixel bytes kept now.
    public var byteCount: Int { state.withLock { $0.bytes } }

    /// The number of covers kept now.
    public var count: Int { state.withLock { $0.covers.count } }
}

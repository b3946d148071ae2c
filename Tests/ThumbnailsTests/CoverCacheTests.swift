import Foundation
import SeededRandom
import TestSupport
import Testing

@testable import MediaCore
@testable import Thumbnails

@Suite("The cover cache: identity keys, LRU bound, invalidation")
struct CoverCacheTests {
    let options = CoverOptions(maximumSize: PixelSize(width: 64, height: 64))

    func image(bytes: Int) throws -> CoverImage {
        try CoverImage(
            width: bytes / 3, height: 1, bytesPerRow: bytes, pixelFormat: .rgb,
            pixels: [UInt8](repeating: 7, count: bytes))
    }

    /// A copy of a fixture in a fresh folder, so the test can change it.
    func copy(_ name: String, into folder: TemporaryFolder) throws -> URL {
        let url = folder.url.appending(path: name)
        try FileManager.default.copyItem(at: Fixtures.url(name), to: url)
        return url
    }

    @Test("a stored cover is found again for the same file and options, not for other options")
    func hit() throws {
        let folder = try TemporaryFolder()
        let url = try copy("h264.mp4", into: folder)
        let cache = CoverCache(capacity: 1 << 20)
        let key = try #require(cache.key(for: url, options: options))
        #expect(cache.cover(for: url, options: options) == nil)
        let cover = try CoverGenerator().makeCover(for: url, options: options)
        cache.insert(cover, for: key)
        #expect(cache.cover(for: url, options: options) == cover)
        #expect(cache.cover(for: url, options: options.exact()) == nil)
        #expect(key.fileSize == Int64(try Data(contentsOf: url).count))
        let statistics = cache.statistics
        #expect(statistics.hits == 1 && statistics.misses == 2)
        #expect(statistics.count == 1 && statistics.byteCount == cover.byteCount)
        #expect(cache.key(for: folder.url.appending(path: "missing.mp4"), options: options) == nil)
    }

    @Test("a modified, touched or replaced file misses, and its old cover is dropped")
    func invalidation() throws {
        let folder = try TemporaryFolder()
        let url = try copy("h264.mp4", into: folder)
        let cache = CoverCache(capacity: 1 << 20)
        let stored = try image(bytes: 300)

        // Touched: same bytes, a new modification time.
        cache.insert(stored, for: try #require(cache.key(for: url, options: options)))
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: 10)], ofItemAtPath: url.path)
        #expect(cache.cover(for: url, options: options) == nil)
        #expect(cache.statistics.invalidations == 1)
        #expect(cache.statistics.count == 0)

        // Modified: appended bytes (a new size), with the modification time put back.
        cache.insert(stored, for: try #require(cache.key(for: url, options: options)))
        let date = try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date)
        let handle = try FileHandle(forWritingTo: url)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([0]))
        try handle.close()
        try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: url.path)
        #expect(cache.cover(for: url, options: options) == nil)

        // Replaced by another file of the same size and time (a new inode).
        cache.insert(stored, for: try #require(cache.key(for: url, options: options)))
        let replacement = folder.url.appending(path: "replacement.mp4")
        try FileManager.default.copyItem(at: url, to: replacement)
        try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: replacement.path)
        #expect(rename(replacement.path, url.path) == 0)
        #expect(cache.cover(for: url, options: options) == nil)

        // Removed.
        cache.insert(stored, for: try #require(cache.key(for: url, options: options)))
        try FileManager.default.removeItem(at: url)
        #expect(cache.cover(for: url, options: options) == nil)
    }

    @Test("the byte bound evicts the least recently used covers")
    func leastRecentlyUsed() throws {
        let folder = try TemporaryFolder()
        let cache = CoverCache(capacity: 1000)
        var urls: [URL] = []
        for index in 0..<4 {
            let url = folder.url.appending(path: "\(index).mp4")
            try Data([UInt8(index)]).write(to: url)
            urls.append(url)
            cache.insert(try image(bytes: 300), for: try #require(cache.key(for: url, options: options)))
        }
        // 4 x 300 > 1000: the first was evicted.
        #expect(cache.statistics.evictions == 1)
        #expect(cache.statistics.byteCount == 900)
        #expect(cache.cover(for: urls[0], options: options) == nil)
        // Using 1 makes 2 the oldest; a fifth cover evicts 2.
        #expect(cache.cover(for: urls[1], options: options) != nil)
        let fifth = folder.url.appending(path: "4.mp4")
        try Data([4]).write(to: fifth)
        cache.insert(try image(bytes: 300), for: try #require(cache.key(for: fifth, options: options)))
        #expect(cache.cover(for: urls[2], options: options) == nil)
        #expect(cache.cover(for: urls[1], options: options) != nil)
        #expect(cache.cover(for: urls[3], options: options) != nil)
        // A cover larger than the whole cache is not kept.
        cache.insert(try image(bytes: 3000), for: try #require(cache.key(for: urls[0], options: options)))
        #expect(cache.cover(for: urls[0], options: options) == nil)
        #expect(cache.statistics.byteCount <= 1000)
    }

    @Test("the LRU list stays consistent over a seeded random workload")
    func lruModel() {
        var random = SplitMix64(seed: 42)
        var lru = LeastRecentlyUsed<Int, Int>(capacity: 50)
        var model: [(key: Int, cost: Int)] = []  // most recent first
        for _ in 0..<5000 {
            let key = Int.random(in: 0..<20, using: &random)
            switch Int.random(in: 0..<3, using: &random) {
            case 0:
                let cost = Int.random(in: 0...20, using: &random)
                lru.insert(key, cost: cost, for: key)
                model.removeAll { $0.key == key }
                model.insert((key, cost), at: 0)
                while model.reduce(0, { $0 + $1.cost }) > 50 { model.removeLast() }
            case 1:
                let found = lru.value(for: key)
                let index = model.firstIndex { $0.key == key }
                #expect((found != nil) == (index != nil))
                if let index { model.insert(model.remove(at: index), at: 0) }
            default:
                lru.removeValue(for: key)
                model.removeAll { $0.key == key }
            }
            #expect(lru.keysByRecency == model.map(\.key))
            #expect(lru.totalCost == model.reduce(0) { $0 + $1.cost })
        }
    }

    @Test("concurrent lookups and inserts from many tasks stay consistent")
    func concurrent() async throws {
        let folder = try TemporaryFolder()
        let cache = CoverCache(capacity: 3000)
        var urls: [URL] = []
        for index in 0..<16 {
            let url = folder.url.appending(path: "\(index).mp4")
            try Data([UInt8(index)]).write(to: url)
            urls.append(url)
        }
        let stored = try image(bytes: 300)
        let options = options
        let files = urls
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for round in 0..<500 {
                        let url = files[(task * 7 + round) % files.count]
                        if cache.cover(for: url, options: options) == nil,
                            let key = cache.key(for: url, options: options)
                        {
                            cache.insert(stored, for: key)
                        }
                    }
                }
            }
        }
        let statistics = cache.statistics
        #expect(statistics.hits + statistics.misses == 8 * 500)
        #expect(statistics.byteCount <= 3000)
        #expect(statistics.byteCount == statistics.count * 300)
    }
}

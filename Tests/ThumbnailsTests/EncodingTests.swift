import Foundation
import TestSupport
import Testing
import Thumbnails

@Suite("PNG and JPEG encoding, written atomically")
struct EncodingTests {
    let generator = CoverGenerator()

    func cover(_ pixelFormat: CoverPixelFormat = .rgb) throws -> CoverImage {
        try generator.makeCover(
            for: Fixtures.url("h264.mp4"),
            options: CoverOptions(maximumSize: PixelSize(width: 160, height: 160), pixelFormat: pixelFormat))
    }

    /// The names in `folder`, hidden ones included.
    func contents(of folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }

    @Test("PNG bytes carry the signature, and decode back to the same pixels", arguments: CoverPixelFormat.allCases)
    func png(_ pixelFormat: CoverPixelFormat) throws {
        let image = try cover(pixelFormat)
        let data = try image.encoded(as: .png)
        #expect(Array(data.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        // A PNG is itself an image FFmpeg reads: decode it back as a "video" of one frame.
        let decoded = try generator.makeCover(
            from: data, name: "cover.png", options: CoverOptions(pixelFormat: pixelFormat))
        #expect(decoded.size == image.size)
        #expect(decoded.pixels == image.pixels)
    }

    @Test("JPEG bytes carry the markers, keep the colours, and shrink with the quality")
    func jpeg() throws {
        let image = try cover()
        let best = try image.encoded(as: .jpeg(quality: 100))
        let small = try image.encoded(as: .jpeg(quality: 10))
        #expect(Array(best.prefix(3)) == [0xFF, 0xD8, 0xFF])
        #expect(Array(best.suffix(2)) == [0xFF, 0xD9])
        #expect(small.count < best.count)
        let decoded = try generator.makeCover(from: best, name: "cover.jpg")
        #expect(decoded.size == image.size)
        // Full-range conversion both ways: colours survive within JPEG's error.
        let original = image.meanColor(x: 2, y: 50, width: 20, height: 30)
        let roundTrip = decoded.meanColor(x: 2, y: 50, width: 20, height: 30)
        #expect(abs(original.red - roundTrip.red) < 8 && abs(original.green - roundTrip.green) < 8)
        #expect(abs(original.blue - roundTrip.blue) < 8)
        #expect(throws: ThumbnailError.self) { try image.encoded(as: .jpeg(quality: 0)) }
    }

    @Test("writing leaves the complete file and no temporary file, and replaces an existing one")
    func writeAndReplace() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appending(path: "cover.png")
        try Data("old contents".utf8).write(to: url)
        let image = try cover()
        try image.write(to: url, as: .png)
        #expect(try Data(contentsOf: url) == image.encoded(as: .png))
        #expect(try contents(of: folder.url) == ["cover.png"])
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o644)

        let jpeg = folder.url.appending(path: "cover.jpg")
        try image.write(to: jpeg, as: .jpeg)
        #expect(try contents(of: folder.url) == ["cover.jpg", "cover.png"])
    }

    @Test("a name as long as the file system allows is written: the temporary name stays within it")
    func longestName() throws {
        let folder = try TemporaryFolder()
        let name = String(repeating: "é", count: 125) + ".png"  // 254 bytes of UTF-8, NAME_MAX is 255
        let url = folder.url.appending(path: name)
        let image = try cover()
        try image.write(to: url, as: .png)
        #expect(try Data(contentsOf: url) == image.encoded(as: .png))
        #expect(try contents(of: folder.url) == [name])
    }

    @Test("a failed write leaves no file and no temporary file, and an existing file untouched")
    func failedWrite() throws {
        let folder = try TemporaryFolder()
        let image = try cover()
        // The folder does not exist: nothing can be created.
        let missing = folder.url.appending(path: "missing/cover.png")
        let error = try #require(throws: ThumbnailError.self) { try image.write(to: missing, as: .png) }
        #expect(error.kind == .writeFailed)
        #expect(try contents(of: folder.url).isEmpty)

        // An encoding failure (a bad quality) happens before anything is written, and the
        // existing file keeps its contents.
        let existing = folder.url.appending(path: "cover.jpg")
        try Data("keep me".utf8).write(to: existing)
        #expect(throws: ThumbnailError.self) { try image.write(to: existing, as: .jpeg(quality: 101)) }
        #expect(try Data(contentsOf: existing) == Data("keep me".utf8))

        // The destination is a folder: the rename fails, and the temporary file is removed.
        let folderTarget = folder.url.appending(path: "taken.png", directoryHint: .isDirectory)
        try FileManager.default.createDirectory(at: folderTarget, withIntermediateDirectories: false)
        _ = FileManager.default.createFile(atPath: folderTarget.appending(path: "inside").path, contents: Data())
        let renameError = try #require(throws: ThumbnailError.self) {
            try image.write(to: URL(filePath: folderTarget.path, directoryHint: .notDirectory), as: .png)
        }
        #expect(renameError.kind == .writeFailed)
        #expect(try contents(of: folder.url) == ["cover.jpg", "taken.png"])
    }

    @Test(
        "a folder without write permission fails with writeFailed and leaves nothing",
        .enabled(if: geteuid() != 0, "root writes anywhere regardless of mode")
    )
    func readOnlyFolder() throws {
        let folder = try TemporaryFolder()
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder.url.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.url.path) }
        let error = try #require(throws: ThumbnailError.self) {
            try cover().write(to: folder.url.appending(path: "cover.png"), as: .png)
        }
        #expect(error.kind == .writeFailed)
        #expect(try contents(of: folder.url).isEmpty)
    }

    @Test("tiny, odd and padded images encode in both formats", arguments: [(1, 1), (3, 1), (1, 3), (7, 5), (33, 17)])
    func oddSizes(_ width: Int, _ height: Int) throws {
        let fitted = try generator.makeCover(
            for: Fixtures.url("h264.mp4"), options: CoverOptions(maximumSize: PixelSize(width: width, height: height)))
        #expect(fitted.width <= width && fitted.height <= height && fitted.width >= 1 && fitted.height >= 1)
        // A caller-made image with padded rows.
        let bytesPerRow = width * 4 + 8
        var pixels = [UInt8](repeating: 0, count: bytesPerRow * height)
        for y in 0..<height {
            for x in 0..<width {
                pixels[y * bytesPerRow + x * 4] = 200
                pixels[y * bytesPerRow + x * 4 + 3] = 255
            }
        }
        let padded = try CoverImage(
            width: width, height: height, bytesPerRow: bytesPerRow, pixelFormat: .rgba, pixels: pixels)
        for image in [fitted, padded] {
            let png = try image.encoded(as: .png)
            let decoded = try generator.makeCover(
                from: png, name: "tiny.png", options: CoverOptions(pixelFormat: image.pixelFormat))
            #expect(decoded.size == image.size)
            #expect(decoded.color(x: 0, y: 0) == image.color(x: 0, y: 0))
            let jpeg = try image.encoded(as: .jpeg)
            #expect(Array(jpeg.prefix(2)) == [0xFF, 0xD8])
            #expect(try generator.makeCover(from: jpeg, name: "tiny.jpg").size == image.size)
        }
    }
}

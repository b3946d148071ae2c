import Foundation
import SeededRandom
import TestSupport
import Testing
import Thumbnails

@Suite("Covers: typed errors for every broken input and bad request")
struct CoverErrorTests {
    let generator = CoverGenerator()

    func failure(
        _ url: URL,
        _ options: CoverOptions = CoverOptions(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> ThumbnailError {
        let error = try #require(throws: ThumbnailError.self, sourceLocation: sourceLocation) {
            try generator.makeCover(for: url, options: options)
        }
        #expect(error.reason.split(whereSeparator: \.isNewline).count == 1, sourceLocation: sourceLocation)
        return error
    }

    @Test(
        "each broken fixture fails with its kind and names the file",
        arguments: [
            ("audio-only.m4a", ThumbnailError.Kind.noVideoStream),
            ("empty.mp4", .notAMediaFile),
            ("not-a-video.mp4", .notAMediaFile),
            ("truncated-index-at-end.mp4", .decodeFailed),
            ("no-such-file.mp4", .fileNotFound),
        ]
    )
    func brokenFixtures(_ name: String, _ kind: ThumbnailError.Kind) throws {
        let error = try failure(Fixtures.url(name))
        #expect(error.kind == kind, "\(error.reason)")
        #expect(error.reason.contains(name))
    }

    @Test("a directory and a non-file URL are rejected")
    func notFiles() throws {
        #expect(try failure(Fixtures.folder).kind == .notAMediaFile)
        let remote = try #require(URL(string: "https://example.com/take.mp4"))
        #expect(try failure(remote).kind == .invalidArgument)
    }

    @Test("a FIFO or a device is refused as not a regular file, without reading or blocking on it")
    func specialFiles() throws {
        let folder = try TemporaryFolder()
        // No writer ever opens this FIFO: opening it for reading would block forever.
        let fifo = folder.url.appending(path: "take.mp4")
        #expect(mkfifo(fifo.path, 0o644) == 0)
        let fromFIFO = try failure(fifo)
        #expect(fromFIFO.kind == .notAMediaFile)
        #expect(fromFIFO.reason.contains("not a regular file"), "\(fromFIFO.reason)")
        // /dev/zero never ends: it must not be read.
        let fromDevice = try failure(URL(filePath: "/dev/zero"))
        #expect(fromDevice.kind == .notAMediaFile)
        #expect(fromDevice.reason.contains("not a regular file"), "\(fromDevice.reason)")
    }

    @Test(
        "impossible requests are invalid arguments",
        arguments: [
            CoverOptions(time: .seconds(-1)),
            CoverOptions(time: .seconds(.nan)),
            CoverOptions(time: .seconds(.infinity)),
            CoverOptions(time: .fraction(1.5)),
            CoverOptions(time: .fraction(-0.1)),
            CoverOptions(maximumSize: PixelSize(width: -1, height: 10)),
            CoverOptions(toleranceBefore: .nan),
            CoverOptions(toleranceAfter: -1),
            CoverOptions(darkFrameLimit: -1),
        ]
    )
    func invalidArguments(_ options: CoverOptions) throws {
        #expect(try failure(Fixtures.url("h264.mp4"), options).kind == .invalidArgument)
        // Checked before the file is opened: a missing file reports the argument, not the file.
        #expect(try failure(Fixtures.url("no-such-file.mp4"), options).kind == .invalidArgument)
    }

    @Test("a zero-size or inconsistent image is refused with a layout error")
    func zeroSizeImage() {
        #expect(throws: CoverImageLayoutError.self) {
            try CoverImage(width: 0, height: 10, bytesPerRow: 0, pixelFormat: .rgb, pixels: [])
        }
        #expect(throws: CoverImageLayoutError.self) {
            try CoverImage(width: 2, height: 2, bytesPerRow: 6, pixelFormat: .rgb, pixels: [0, 0, 0])
        }
        #expect(throws: Never.self) {
            try CoverImage(width: 2, height: 1, bytesPerRow: 6, pixelFormat: .rgb, pixels: [1, 2, 3, 4, 5, 6])
        }
        // Sizes whose products overflow are refused, not a trap.
        #expect(throws: CoverImageLayoutError.self) {
            try CoverImage(width: Int.max / 2, height: 1, bytesPerRow: 6, pixelFormat: .rgb, pixels: [])
        }
        #expect(throws: CoverImageLayoutError.self) {
            try CoverImage(width: 1, height: Int.max / 2, bytesPerRow: 6, pixelFormat: .rgb, pixels: [])
        }
    }

    @Test("the error's reason carries FFmpeg's own words")
    func ffmpegReason() throws {
        let error = try failure(Fixtures.url("truncated-index-at-end.mp4"))
        #expect(error.reason.contains("moov atom not found"))
    }

    @Test("in-memory inputs fail with the same kinds")
    func memoryErrors() throws {
        for (name, kind) in [
            ("audio-only.m4a", ThumbnailError.Kind.noVideoStream), ("empty.mp4", .notAMediaFile),
            ("not-a-video.mp4", .notAMediaFile), ("truncated-index-at-end.mp4", .decodeFailed),
        ] {
            let data = try Data(contentsOf: Fixtures.url(name))
            let error = try #require(throws: ThumbnailError.self) { try generator.makeCover(from: data, name: name) }
            #expect(error.kind == kind, "\(name): \(error.reason)")
            #expect(error.reason.contains(name))
        }
    }
}

@Suite("Damaged inputs never crash the cover generator")
struct DamagedCoverTests {
    /// Cuts and corrupts each codec's fixture at seeded places, in memory: every result must be
    /// a cover or a `ThumbnailError` with a one-line reason.
    @Test(
        "cut and corrupted fixtures give a cover or a typed error",
        arguments: ["h264.mp4", "hevc.mp4", "vp9.webm", "mpeg4.avi", "offset-timestamps.ts", "hevc-10bit.mp4"]
    )
    func damaged(_ name: String) throws {
        let original = try Data(contentsOf: Fixtures.url(name))
        let generator = CoverGenerator()
        var random = SplitMix64(seed: UInt64(original.count) &* 31)
        var covers = 0
        for round in 0..<30 {
            let bytes = Fixtures.damaged(
                original, cutting: round % 2 == 0, overwrites: (round % 5) * 10, using: &random)
            let options = CoverOptions(
                maximumSize: PixelSize(width: 64, height: 64), time: .seconds(Double(round % 3)),
                toleranceBefore: round % 4 == 0 ? 0 : .infinity, toleranceAfter: round % 4 == 0 ? 0 : .infinity,
                skipsDarkFrames: round % 3 == 0)
            do {
                let image = try generator.makeCover(from: bytes, name: "\(round)-\(name)", options: options)
                #expect(image.width > 0 && image.height > 0)
                #expect(image.pixels.count == image.bytesPerRow * image.height)
                covers += 1
            } catch {
                #expect(error.reason.split(whereSeparator: \.isNewline).count == 1)
                #expect(error.kind != .cancelled && error.kind != .invalidArgument, "\(error.reason)")
            }
        }
        #expect(covers > 0)
    }
}

@Suite("In-memory inputs cannot reach outside the bytes")
struct MemoryInputTests {
    @Test("a playlist in memory cannot make FFmpeg open the files or URLs it lists")
    func playlist() throws {
        let target = Fixtures.url("h264.mp4").path
        for text in [
            "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2.0,\nfile:\(target)\n#EXT-X-ENDLIST\n",
            "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2.0,\n\(target)\n#EXT-X-ENDLIST\n",
            "ffconcat version 1.0\nfile '\(target)'\n",
        ] {
            #expect(throws: ThumbnailError.self) {
                try CoverGenerator().makeCover(from: Data(text.utf8), name: "list.m3u8")
            }
        }
    }

    @Test("every video fixture gives the same cover from memory as from its file")
    func sameAsFile() throws {
        let generator = CoverGenerator()
        for name in ["h264.mp4", "hevc.mp4", "vp9.webm", "mpeg4.avi", "offset-timestamps.ts", "rotation-90.mp4"] {
            let fromFile = try generator.makeCover(for: Fixtures.url(name))
            let fromData = try generator.makeCover(from: Data(contentsOf: Fixtures.url(name)), name: name)
            #expect(fromFile == fromData, "\(name)")
            let description = try MediaDescription(data: Data(contentsOf: Fixtures.url(name)), name: name)
            #expect(description == (try MediaDescription(contentsOf: Fixtures.url(name))), "\(name)")
        }
    }
}

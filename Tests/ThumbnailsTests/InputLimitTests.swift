import Foundation
import MediaCore
import TestSupport
import Testing
import Thumbnails

/// The limits every input is opened under: sample tables and streams are counted before FFmpeg spends memory on them.
@Suite("Input limits: declared samples and streams are refused before the demuxer allocates them")
struct InputLimitTests {
    @Test("the fuzz corpus holds exactly the header shapes the tests build", arguments: AttackShapes.headerShapes.keys)
    func corpusMatchesTheBuilders(_ name: String) throws {
        let committed = try Data(contentsOf: Fixtures.url("fuzz/cover-\(name)"))
        #expect(committed == AttackShapes.headerShapes[name], "Fixtures/fuzz/cover-\(name) differs from its builder")
        #expect(committed.count < 128 * 1024, "a header shape is a few kilobytes")
    }

    @Test("the census counts what an MP4's sample tables declare, per track")
    func censusCountsDeclaredSamples() {
        let one = SampleTableCensus(CensusBytes(HeaderBombs.sampleTables(tracks: 1, samples: 80_000_000)))
        #expect(one.samples == 80_000_000)
        let three = SampleTableCensus(CensusBytes(HeaderBombs.sampleTables(tracks: 3, samples: 1000)))
        #expect(three.samples == 3000)
        #expect(SampleTableCensus(CensusBytes(HeaderBombs.manyTracks(3))).samples == 0, "not an MP4: nothing counted")
    }

    @Test("real files are within the limits, and their census is their sample count")
    func fixturesPass() throws {
        for name in ["h264.mp4", "hevc.mp4", "rotation-90.mp4", "audio-only.m4a", "anamorphic.mp4"] {
            let data = try Data(contentsOf: Fixtures.url(name))
            let census = SampleTableCensus(CensusBytes(data))
            #expect(census.samples > 0 && census.samples < data.count, "\(name): \(census.samples)")
            #expect(InputLimits.refusal(samples: census.samples, size: data.count) == nil)
        }
    }

    @Test("uncompressed audio is counted by chunk, as the demuxer indexes it: a minute of LPCM passes")
    func uncompressedAudioPasses() throws {
        let folder = try TemporaryFolder(prefix: "InputLimitTests")
        let movie = folder.url.appending(path: "lpcm.mov")
        let made = try runTool(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=60",
                "-c:a", "pcm_s16le", movie.path,
            ])
        try #require(made.status == 0, "\(made.errorText)")
        let data = try Data(contentsOf: movie)
        let census = SampleTableCensus(CensusBytes(data))
        // Its `stsz` declares 2,880,000 samples (more than the limit); the demuxer indexes chunks of them.
        #expect(census.samples > 0 && census.samples < 48_000 * 60 / 100, "\(census.samples)")
        _ = try FormatContext(path: FileSystemPath(movie))
    }

    @Test("a stream count over the limit is refused whatever the format, and the reason names the limit")
    func streamLimit() throws {
        let error = #expect(throws: FFmpegError.self) {
            _ = try FormatContext(bytes: HeaderBombs.manyTracks(InputLimits.maximumStreams + 1))
        }
        #expect(error?.refusal == InputLimits.streamsRefusal)
        _ = try FormatContext(bytes: HeaderBombs.manyTracks(InputLimits.maximumStreams))
    }

    @Test(
        "a hostile input held in memory is refused as the same bytes in a file are, with the same reason",
        arguments: AttackShapes.headerShapes.keys.sorted() + ["playlist.m3u8"])
    func inMemoryRefusedAsFile(_ name: String) throws {
        let bytes =
            AttackShapes.headerShapes[name]
            ?? Data("#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\n/etc/hostname\n#EXT-X-ENDLIST\n".utf8)
        let folder = FileManager.default.temporaryDirectory.appending(path: "in-memory-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appending(path: name)
        try bytes.write(to: file)
        let generator = CoverGenerator()
        let fromFile = #expect(throws: ThumbnailError.self) { try generator.makeCover(for: file) }
        let fromMemory = #expect(throws: ThumbnailError.self) {
            try generator.makeCover(from: bytes, name: file.path)
        }
        #expect(fromFile?.kind == .refused)
        #expect(fromMemory == fromFile)
    }
}

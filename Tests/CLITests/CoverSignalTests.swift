import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The tools that write pictures (canvas-thumb, one cover or a batch in worker processes, and canvas-sim --render)
/// stopped by SIGTERM or SIGINT while a picture's temporary file exists: the file is removed and the status is the
/// shell's (143, 130). The signal is sent once the temporary file is there and the cover is blocked (a concat list
/// whose entry is a FIFO nobody writes: ``StuckPlaylist``), or, for canvas-sim, while it still reads its events.
@Suite("Picture tools: SIGTERM and SIGINT leave no temporary file")
struct CoverSignalTests {
    static let signals: [(Int32, Int32)] = [(SIGTERM, 143), (SIGINT, 130)]
    let fixture = BuiltBinary.root.appendingPathComponent("Fixtures/h264.mp4").path

    /// The hidden files in `folder`: temporary files.
    static func hidden(_ folder: ScratchFolder) -> [String] {
        folder.contents.filter { $0.hasPrefix(".") }
    }

    @Test("canvas-thumb, one cover", arguments: signals)
    func singleCover(signal: Int32, status: Int32) throws {
        let stuck = try StuckPlaylist()
        let out = try ScratchFolder()
        let process = try RawProcess(
            try BuiltBinary("canvas-thumb").url,
            [stuck.playlist.path, "-o", out.url.appendingPathComponent("cover.png").path, StuckPlaylist.trusted]
                .map { Array($0.utf8) })
        let writer = try #require(stuck.waitForReader(), "the cover never opened the FIFO")
        defer { close(writer) }
        #expect(Self.hidden(out).count == 1, "the temporary file exists while the cover is made: \(out.contents)")
        kill(process.pid, signal)
        let run = try process.wait(killingAfter: 60)
        #expect(run.status == status, "\(run.standardError)")
        #expect(run.errorLines.last == "canvas-thumb: cancelled, the covers not finished were not written")
        #expect(out.contents.isEmpty, "\(out.contents)")
    }

    @Test("canvas-thumb, a batch in worker processes", arguments: signals)
    func batch(signal: Int32, status: Int32) throws {
        let stuck = try StuckPlaylist()
        let out = try ScratchFolder()
        let process = try RawProcess(
            try BuiltBinary("canvas-thumb").url,
            [fixture, stuck.playlist.path, "--output-dir", out.url.path, "--jobs", "2", StuckPlaylist.trusted]
                .map { Array($0.utf8) })
        let writer = try #require(stuck.waitForReader(), "no worker opened the FIFO")
        defer { close(writer) }
        #expect(!Self.hidden(out).isEmpty, "the stuck cover's temporary file exists: \(out.contents)")
        kill(process.pid, signal)
        let run = try process.wait(killingAfter: 60)
        #expect(run.status == status, "\(run.standardError)")
        #expect(run.errorLines.last == "canvas-thumb: cancelled, the covers not finished were not written")
        #expect(Self.hidden(out).isEmpty, "\(out.contents)")
        #expect(out.contents.allSatisfy { $0 == "h264.png" }, "\(out.contents)")
    }

    @Test("canvas-sim --render, while the events are read", arguments: signals)
    func render(signal: Int32, status: Int32) throws {
        let out = try ScratchFolder()
        let process = Process()
        process.executableURL = try BuiltBinary("canvas-sim").url
        process.arguments = [
            "--interactive", "--cells", "2", "--render", out.url.appendingPathComponent("board.png").path,
        ]
        let input = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        // The events come on standard input, which stays open: the picture's file is started before they run.
        try input.fileHandleForWriting.write(contentsOf: Data("tap 0\n".utf8))
        for _ in 0..<1200 where Self.hidden(out).isEmpty { usleep(50_000) }
        #expect(Self.hidden(out).count == 1, "the picture's temporary file exists: \(out.contents)")
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        try input.fileHandleForWriting.close()
        let standardError = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationReason == .exit && process.terminationStatus == status, "\(standardError)")
        #expect(standardError.hasSuffix("canvas-sim: cancelled, nothing written\n"), "\(standardError)")
        #expect(out.contents.isEmpty, "\(out.contents)")
    }
}

import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A concat list (`ffconcat`) whose one entry is a FIFO no writer opens: FFmpeg's concat demuxer
/// opens the entry itself, in a context of its own that the library's check of nested opens does
/// not reach (FFmpeg 5.1 does not hand it `io_open`; an HLS playlist naming a FIFO is refused at
/// once, see `NestedOpenTests`), and that `open(2)` blocks for ever, as a read from a stalled
/// network file system does. A concat script is refused unless playlists are trusted, so the runs
/// below pass `--allow-playlists` (``trusted``). The real-world shape of a worker that never answers, with no hook in
/// the tool.
struct StuckPlaylist {
    let folder: ScratchFolder
    let playlist: URL
    let segment: URL

    init() throws {
        folder = try ScratchFolder()
        segment = folder.url.appendingPathComponent("segment.ts")
        playlist = folder.url.appendingPathComponent("stuck.ffconcat")
        guard mkfifo(segment.path, 0o644) == 0 else { throw POSIXError(.EIO) }
        try Data("ffconcat version 1.0\nfile segment.ts\n".utf8).write(to: playlist)
    }

    /// The option that lets canvas-thumb read the script (playlists are refused by default).
    static let trusted = "--allow-playlists"

    /// Waits (at most 30 s) until a process has the segment open for reading, and returns a
    /// write end that keeps it blocked in its read (close it to let go); nil if none came.
    func waitForReader() -> Int32? {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            // A FIFO's non-blocking write end opens only while a reader has it open (or waits to).
            let writer = open(segment.path, O_WRONLY | O_NONBLOCK)
            if writer >= 0 { return writer }
            usleep(2000)
        }
        return nil
    }
}

@Suite("canvas-thumb: an input that never answers is stopped; a crash in a single run is still reported")
struct CanvasThumbTimeoutTests {
    let tool: BuiltBinary
    let fixture = BuiltBinary.root.appendingPathComponent("Fixtures/h264.mp4").path

    init() throws {
        tool = try BuiltBinary("canvas-thumb")
    }

    @Test("a worker stuck on one input is killed after --timeout: that input reported, a fresh worker does the rest")
    func stuckWorker() throws {
        let stuck = try StuckPlaylist()
        let out = try ScratchFolder()
        let inputs = [fixture, stuck.playlist.path, fixture, fixture]
        let run = try RawProcess(
            tool.url,
            (inputs + ["--output-dir", out.url.path, "--json", "--jobs", "1", "--timeout", "1", StuckPlaylist.trusted])
                .map { Array($0.utf8) }
        ).wait(killingAfter: 60)
        #expect(run.status == 1, "\(run.standardError)")
        let lines = run.outputLines
        #expect(lines.count == inputs.count, "one line per input: \(run.standardOutput)")
        #expect(lines.filter { $0.hasSuffix(#""error":null,"errorKind":null}"#) }.count == 3, "\(lines)")
        #expect(
            lines.dropFirst().first?.hasSuffix(
                #""error":"\#(stuck.playlist.path): no cover within 1 s (a read or decode that never ends); stopped","errorKind":"timedOut"}"#
            )
                == true, "\(lines)")
        #expect(
            out.contents == ["h264-2.png", "h264-3.png", "h264.png"], "covers written, nothing else: \(out.contents)")
        #expect(run.standardError.isEmpty, "\(run.standardError)")
    }

    @Test("a batch of as many inputs as jobs gives each input a worker of its own: a stuck one holds up no other")
    func inputPerWorker() throws {
        let stuck = try StuckPlaylist()
        let out = try ScratchFolder()
        let batch = try RawProcess(
            tool.url,
            [
                stuck.playlist.path, fixture, "--output-dir", out.url.path, "--jobs", "2", "--timeout", "120",
                StuckPlaylist.trusted,
            ].map {
                Array($0.utf8)
            })
        defer {
            kill(-batch.pid, SIGKILL)
            _ = try? batch.wait()
        }
        let writer = try #require(stuck.waitForReader(), "a worker should be reading the stuck input")
        defer { close(writer) }
        // The other input's cover is written while the stuck one still blocks its worker (for 120 s): it was not
        // queued behind it.
        let deadline = Date().addingTimeInterval(30)
        while !out.contents.contains("h264.png"), Date() < deadline { usleep(2000) }
        #expect(out.contents.contains("h264.png"), "\(out.contents)")
    }

    @Test("a single input that never answers ends at --timeout with its one line, JSON or text, exit 1")
    func stuckSingleInput() throws {
        let stuck = try StuckPlaylist()
        let output = stuck.folder.url.appendingPathComponent("cover.png").path
        let reason = "\(stuck.playlist.path): no cover within 0.5 s (a read or decode that never ends); stopped"
        let json = try RawProcess(
            tool.url,
            [stuck.playlist.path, "-o", output, "--json", "--timeout", "0.5", StuckPlaylist.trusted].map {
                Array($0.utf8)
            }
        ).wait(killingAfter: 60)
        #expect(json.status == 1)
        #expect(
            json.outputLines.count == 1
                && json.outputLines.first?.hasSuffix(#""error":"\#(reason)","errorKind":"timedOut"}"#) == true)
        #expect(json.standardError.isEmpty, "\(json.standardError)")
        let text = try RawProcess(
            tool.url,
            [stuck.playlist.path, "-o", output, "--timeout", "0.5", StuckPlaylist.trusted].map { Array($0.utf8) }
        ).wait(killingAfter: 60)
        #expect(text.status == 1)
        #expect(text.standardOutput.isEmpty)
        #expect(text.errorLines == ["canvas-thumb: \(reason)"])
        #expect(stuck.folder.contents == ["segment.ts", "stuck.ffconcat"], "nothing written: \(stuck.folder.contents)")
    }

    @Test("a single input whose decode crashes (SIGSEGV) still prints its one JSON line, and exits 1")
    func crashInSingleRun() throws {
        let stuck = try StuckPlaylist()
        let output = stuck.folder.url.appendingPathComponent("cover.png").path
        let process = try RawProcess(
            tool.url, [stuck.playlist.path, "-o", output, "--json", StuckPlaylist.trusted].map { Array($0.utf8) })
        let writer = try #require(stuck.waitForReader(), "canvas-thumb should be reading the segment")
        defer { close(writer) }
        // What a crash inside FFmpeg does, sent while the process is inside FFmpeg's read.
        kill(process.pid, SIGSEGV)
        let run = try process.wait(killingAfter: 60)
        #expect(run.status == 1, "exit 1 (an input failed), not death by the signal")
        #expect(run.outputLines.count == 1, "\(run.standardOutput)")
        #expect(
            run.outputLines.first?.hasSuffix(
                #""error":"\#(stuck.playlist.path): crashed while making its cover (signal 11: Segmentation fault)","errorKind":"crashed"}"#
            )
                == true, "\(run.standardOutput)")
        #expect(run.standardError.isEmpty, "\(run.standardError)")
        // Nothing visible is written. A crash is a writer killed mid-way: the cover's hidden temporary file (started
        // before the input was decoded) may stay, provably abandoned, and the next run into the folder removes it.
        #expect(stuck.folder.contents.filter { !$0.hasPrefix(".") } == ["segment.ts", "stuck.ffconcat"])
        let next = try tool.run([fixture, "-o", stuck.folder.url.appendingPathComponent("next.png").path])
        #expect(next.status == 0, "\(next.standardError)")
        #expect(stuck.folder.contents == ["next.png", "segment.ts", "stuck.ffconcat"])
    }

    @Test("--timeout takes seconds >= 0")
    func timeoutValue() throws {
        let run = try tool.run([fixture, "--timeout", "-1"])
        #expect(run.status == 2)
        #expect(run.errorLines.first == "canvas-thumb: --timeout must be >= 0, not -1.0")
    }
}

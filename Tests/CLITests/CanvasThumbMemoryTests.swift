import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Skipped under the sanitizers (Tools/sanitize.sh sets MULTICANVAS_SANITIZER): they replace malloc with their own
/// allocator, which ignores `mallopt` (AddressSanitizer also holds freed memory in a quarantine), so the page faults
/// measure the sanitizer, not canvas-thumb.
@Suite(
    "canvas-thumb: the memory one cover frees is kept for the next",
    .enabled(if: ProcessInfo.processInfo.environment["MULTICANVAS_SANITIZER"] == nil))
struct CanvasThumbMemoryTests {
    let tool: BuiltBinary

    init() throws {
        tool = try BuiltBinary("canvas-thumb")
    }

    /// Writes a one-frame 1080p H.264 clip (testsrc2) to `url` with the ffmpeg CLI.
    private func makeClip(_ url: URL) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30", "-frames:v", "1",
            "-c:v", "libx264", "-pix_fmt", "yuv420p", url.path,
        ]
        try process.run()
        process.waitUntilExit()
        struct ClipFailed: Error {}
        guard process.terminationStatus == 0 else { throw ClipFailed() }
    }

    @Test("a batch's page faults per 1080p cover stay far below the pages of one frame")
    func freedMemoryIsKept() throws {
        let scratch = try ScratchFolder()
        let clip = scratch.url.appendingPathComponent("1080p.mp4")
        try makeClip(clip)
        // Minor page faults of a batch of `count` covers of the clip, with one worker (the process and its worker:
        // start-ups alike for any count).
        func faults(covers count: Int) throws -> Int {
            let out = scratch.url.appendingPathComponent("out-\(count)")
            try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
            let arguments =
                Array(repeating: Array(clip.path.utf8), count: count)
                + ["--output-dir", out.path, "--jobs", "1", "--max-size", "320x320"].map { Array($0.utf8) }
            let run = try tool.run(bytes: arguments)
            #expect(run.status == 0, "\(run.standardError)")
            #expect(run.minorPageFaults > 0, "wait4 reports the batch's page faults")
            return run.minorPageFaults
        }
        let few = try faults(covers: 2)
        let many = try faults(covers: 42)
        let perCover = Double(many - few) / 40
        // A decoded 1080p frame is 3 MB, 760 pages, zero-filled by FFmpeg's buffer pool: with glibc's default
        // thresholds each cover maps it (and the decoder's tables) anew, about 1,500 faults per cover; kept, a few.
        #expect(perCover < 300, "\(perCover) page faults per cover (\(few) for 2 covers, \(many) for 42)")
    }
}

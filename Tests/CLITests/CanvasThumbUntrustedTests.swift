import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// canvas-thumb and canvas-sim --render as a cover service runs them on users' uploads.
@Suite("canvas-thumb on untrusted uploads: only the file named is read, nothing but a file is replaced")
struct CanvasThumbUntrustedTests {
    let tool: BuiltBinary
    let scratch: ScratchFolder
    let shapes: AttackShapes

    init() throws {
        tool = try BuiltBinary("canvas-thumb")
        scratch = try ScratchFolder()
        shapes = try AttackShapes(in: scratch.url, fixture: BuiltBinary.root.appending(path: "Fixtures/h264.mp4"))
    }

    @Test(
        "a single upload of each shape: exit 1, one line naming what it was, no cover",
        arguments: AttackShapes.refusedShapes)
    func singleRefused(_ shape: AttackShapes.Shape) throws {
        let output = scratch.url.appending(path: "\(shape.name).png")
        let run = try tool.run([shapes.url(shape.name).path, "-o", output.path])
        #expect(run.status == 1)
        #expect(
            run.errorLines == ["canvas-thumb: \(shapes.url(shape.name).path): \(shape.refusal)"]
                || (run.errorLines.count == 1 && run.standardError.contains(shape.refusal)), "\(run.standardError)")
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    @Test("a batch of every shape in worker processes: each refused, the real upload written, exit 1")
    func batchRefused() throws {
        let out = try ScratchFolder()
        let inputs = AttackShapes.refusedShapes.map { shapes.url($0.name).path } + [shapes.url("other-upload.mp4").path]
        let run = try tool.run(inputs + ["--output-dir", out.url.path, "--json", "--jobs", "2"])
        #expect(run.status == 1)
        #expect(run.outputLines.count == inputs.count, "\(run.standardOutput)")
        for shape in AttackShapes.refusedShapes {
            #expect(run.standardOutput.contains(shape.refusal), "\(shape.name)")
        }
        #expect(out.contents == ["other-upload.png"])
    }

    @Test("--allow-playlists lets a trusted playlist through")
    func trustedPlaylist() throws {
        let output = scratch.url.appending(path: "trusted.png")
        let run = try tool.run(["--allow-playlists", shapes.url("hls-sibling.avi").path, "-o", output.path])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(FileManager.default.fileExists(atPath: output.path))
    }

    @Test("-o - writes the cover to standard output")
    func standardOutput() throws {
        let run = try tool.run(["Fixtures/h264.mp4", "-o", "-"])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(
            run.standardOutput.utf8.starts(with: [0x89, 0x50, 0x4E, 0x47] as [UInt8])
                || run.standardOutput.hasPrefix("\u{FFFD}PNG"))
    }

    @Test("-o onto a FIFO: exit 1, one line, the FIFO left as it was")
    func fifoOutput() throws {
        let fifo = scratch.url.appending(path: "out.png")
        #expect(mkfifo(fifo.path, 0o644) == 0)
        let run = try tool.run(["Fixtures/h264.mp4", "-o", fifo.path])
        #expect(run.status == 1)
        #expect(
            run.errorLines == [
                "canvas-thumb: Fixtures/h264.mp4: \(fifo.path): is a FIFO, not a regular file: refused to replace it"
            ])
        #expect(Self.fileType(fifo.path) == S_IFIFO)
        #expect(scratch.contents.allSatisfy { !$0.contains("cover-tmp") })
    }

    @Test("-o onto a character device (mknod, as root): exit 1, the device node left as it was")
    func deviceOutput() throws {
        guard geteuid() == 0 else {
            // mknod needs CAP_MKNOD: the test runs where the tests run as root (CI's container).
            print("skipped: not root, so no device node can be made for the test")
            return
        }
        let device = scratch.url.appending(path: "null")
        // Linux encodes major 1, minor 3 (the null device) as (1 << 8) | 3.
        #expect(mknod(device.path, S_IFCHR | 0o666, dev_t(1 << 8 | 3)) == 0)
        let run = try tool.run(["Fixtures/h264.mp4", "-o", device.path])
        #expect(run.status == 1)
        #expect(run.standardError.contains("is a character device, not a regular file: refused to replace it"))
        #expect(Self.fileType(device.path) == S_IFCHR)
        let sim = try BuiltBinary("canvas-sim").run(["--script", "Fixtures/sim/demo.script", "--render", device.path])
        #expect(sim.status == 1)
        #expect(sim.standardError.contains("is a character device, not a regular file"), "\(sim.standardError)")
        #expect(Self.fileType(device.path) == S_IFCHR)
    }

    @Test("canvas-sim --render onto a FIFO: exit 1, the FIFO left as it was")
    func renderOntoFIFO() throws {
        let fifo = scratch.url.appending(path: "board.png")
        #expect(mkfifo(fifo.path, 0o644) == 0)
        let run = try BuiltBinary("canvas-sim").run(["--script", "Fixtures/sim/demo.script", "--render", fifo.path])
        #expect(run.status == 1)
        #expect(run.standardError.contains("is a FIFO, not a regular file"), "\(run.standardError)")
        #expect(Self.fileType(fifo.path) == S_IFIFO)
    }

    /// Skipped under the sanitizers (Tools/sanitize.sh sets MULTICANVAS_SANITIZER): their runtime maps its shadow
    /// memory in ways a file-size limit breaks (ThreadSanitizer's canvas-thumb dies of SIGBUS before `main`'s first
    /// write), so the run would test the sanitizer, not canvas-thumb.
    @Test(
        "under ulimit -f, single and batch runs report a write error naming input and output and leave nothing",
        .enabled(if: ProcessInfo.processInfo.environment["MULTICANVAS_SANITIZER"] == nil))
    func fileSizeLimit() throws {
        for batch in [false, true] {
            let out = try ScratchFolder()
            let arguments =
                batch
                ? ["Fixtures/h264.mp4", "Fixtures/hevc.mp4", "--output-dir", out.url.path]
                : ["Fixtures/h264.mp4", "-o", out.url.appending(path: "h264.png").path]
            let run = try Self.limited(tool, arguments)
            #expect(run.status == 1, "batch \(batch): \(run.standardError)")
            #expect(
                run.standardError.contains("Fixtures/h264.mp4: \(out.url.path)/h264.png: cannot write: File too large"),
                "\(run.standardError)")
            #expect(out.contents.isEmpty, "batch \(batch): \(out.contents)")
        }
    }

    /// `tool` run with `arguments` under `ulimit -f 1` (512-byte blocks: a cover does not fit).
    static func limited(_ tool: BuiltBinary, _ arguments: [String]) throws -> BuiltBinary.Run {
        let result = try runSubprocess(
            URL(filePath: "/bin/sh"), ["-c", "ulimit -f 1; exec \"$0\" \"$@\"", tool.url.path] + arguments,
            in: BuiltBinary.root)
        return BuiltBinary.Run(status: result.status, standardOutput: "", standardError: result.errorText)
    }

    static func fileType(_ path: String) -> mode_t {
        var status = stat()
        guard lstat(path, &status) == 0 else { return 0 }
        return status.st_mode & S_IFMT
    }
}

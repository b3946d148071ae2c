import Composition
import Foundation
import Pixels
import TestSupport
import Testing

/// Takes nobody vouches for and outputs that cannot be written: every take is opened under the rules covers are
/// (FFmpeg reads the file named and nothing else; frames over the limits refused from the header), and a failure
/// leaves nothing but a one-line error naming the canvas and the file, or the output.
@Suite("Composer: untrusted takes and output faults", .serialized)
struct TakeFaultTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder(prefix: "CompositionFaults")
    }

    func file(_ name: String) -> URL { folder.url.appendingPathComponent(name) }

    /// The files in `folder` (hidden ones included).
    static func contents(_ folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }

    /// Each attack shape (HLS playlists, a DASH manifest, ffconcat scripts, a subtitle file, a 16000x16000 header)
    /// posing as canvas 1's take: refused with its reason in one line naming the canvas and the file, nothing written.
    /// One test over all the shapes, so that they are written once.
    @Test func attackShapesAsTakesAreRefused() async throws {
        let uploads = folder.url.appendingPathComponent("uploads")
        try FileManager.default.createDirectory(at: uploads, withIntermediateDirectories: true)
        let shapes = try AttackShapes(in: uploads, fixture: Fixtures.url("h264.mp4"))
        let outputs = folder.url.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: outputs, withIntermediateDirectories: true)
        for shape in AttackShapes.refusedShapes {
            let plan = CompositionPlan(
                files: [Fixtures.url("h264.mp4"), shapes.url(shape.name)], grid: GridLayout(columns: 2, rows: 1),
                size: PixelSize(width: 64, height: 32))
            await #expect {
                _ = try await Composer().compose(plan, to: outputs.appendingPathComponent("board.mp4"))
            } throws: { error in
                let text = String(describing: error)
                return text.hasPrefix("canvas 1 (\(shape.name)): ") && text.contains(shape.refusal)
                    && !text.contains("\n")
            }
            #expect(try Self.contents(outputs).isEmpty, "\(shape.name)")
        }
    }

    /// A picture given as a take (a PNG, a GIF) says it is a still picture, not that it "has no duration".
    @Test func stillPictureTakeSaysSo() async throws {
        let picture = file("cover.png")
        let made = try runTool(
            "ffmpeg",
            ["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=red:size=16x16", "-frames:v", "1", picture.path])
        try #require(made.status == 0)
        let plan = CompositionPlan(
            files: [picture], grid: GridLayout(columns: 1, rows: 1), size: PixelSize(width: 32, height: 32))
        await #expect {
            _ = try await Composer().compose(plan, to: file("board.mp4"))
        } throws: { error in
            String(describing: error)
                == "canvas 0 (cover.png): is a still picture (png), not a video: a take is a video or audio file"
        }
        #expect(!FileManager.default.fileExists(atPath: file("board.mp4").path))
    }

    /// A take whose header declares more than the file holds (a sample table whose count runs past the end): one line
    /// saying the file is damaged, with FFmpeg's words once (they were repeated: "End of file (error reading header):
    /// error reading header").
    @Test func headerCutShortIsOneClearLine() async throws {
        var bytes = try Data(contentsOf: Fixtures.url("h264.mp4"))
        let table = try #require(bytes.firstRange(of: Data("stts".utf8)))
        bytes.replaceSubrange((table.upperBound + 4)..<(table.upperBound + 8), with: [0x0F, 0, 0, 0])
        let take = file("cut-header.mp4")
        try bytes.write(to: take)
        let plan = CompositionPlan(
            files: [take], grid: GridLayout(columns: 1, rows: 1), size: PixelSize(width: 32, height: 32))
        await #expect {
            _ = try await Composer().compose(plan, to: file("board.mp4"))
        } throws: { error in
            String(describing: error)
                == "canvas 0 (cut-header.mp4): damaged or truncated file: End of file (error reading header)"
        }
        #expect(try Self.contents(folder.url) == ["cut-header.mp4"])
    }

    /// A FIFO posing as a take is refused before FFmpeg opens it (opening would block until a writer came).
    @Test(.timeLimit(.minutes(10)))
    func fifoTakeIsRefused() async throws {
        let fifo = file("take.mp4")
        #expect(mkfifo(fifo.path, 0o644) == 0)
        let output = file("board.mp4")
        let plan = CompositionPlan(
            files: [fifo], grid: GridLayout(columns: 1, rows: 1), size: PixelSize(width: 32, height: 32))
        await #expect {
            _ = try await Composer().compose(plan, to: output)
        } throws: { error in
            String(describing: error) == "canvas 0 (take.mp4): is a FIFO, not a regular file"
        }
        #expect(try Self.contents(folder.url) == ["take.mp4"])
    }

    /// A temporary file left by a writer whose process was killed (named with the id of a process that no longer
    /// exists) is removed when an output is composed into its folder next, whichever output it was for; one of a
    /// running process (this one) is kept.
    @Test func staleTemporaryFilesOfAKilledCompositionAreRemoved() async throws {
        let take = try ComposerOracleTests.lavfiTake(
            file("take.mkv"), video: "testsrc2=size=32x32:rate=30:duration=0.2")
        // A process that has ended: its id names no process now (ids are not reused this soon).
        let ended = Process()
        ended.executableURL = URL(fileURLWithPath: "/bin/true")
        try ended.run()
        ended.waitUntilExit()
        let output = file("board.mp4")
        let stale = file(".board.mp4.writing-\(ended.processIdentifier)-1a2b3c")
        let running = file(".board.mp4.writing-\(getpid())-3c4d5e")
        let otherOutput = file(".other.mp4.writing-\(ended.processIdentifier)-5e6f7a")
        for url in [stale, running, otherOutput] { try Data("partial".utf8).write(to: url) }
        let plan = CompositionPlan(
            files: [take], grid: GridLayout(columns: 1, rows: 1), size: PixelSize(width: 32, height: 32))
        _ = try await Composer().compose(plan, to: output)
        #expect(
            try Self.contents(folder.url)
                == [running.lastPathComponent, "board.mp4", "take.mkv"].sorted())
    }

    /// A full disk (a 4 KiB tmpfs, mounted when this process may mount one: root in CI) fails the composition with
    /// one line naming the output, and leaves nothing on the disk.
    @Test(.enabled(if: TinyDisk.canMount), .timeLimit(.minutes(10)))
    func fullDiskLeavesNothing() async throws {
        let take = try ComposerOracleTests.lavfiTake(
            file("noise.mkv"), video: "testsrc2=size=128x128:rate=30:duration=1")
        let disk = try TinyDisk(at: file("disk"))
        defer { disk.unmount() }
        let output = disk.url.appendingPathComponent("board.mp4")
        var plan = CompositionPlan(
            files: [take], grid: GridLayout(columns: 1, rows: 1), size: PixelSize(width: 128, height: 128))
        plan.video.constantRateFactor = 0
        await #expect {
            _ = try await Composer().compose(plan, to: output)
        } throws: { error in
            let text = String(describing: error)
            return text.hasPrefix("cannot write \(output.path): ") && text.contains("No space left on device")
                && !text.contains("\n")
        }
        #expect(try Self.contents(disk.url).isEmpty)
    }
}

/// A tmpfs of one page mounted on a folder: a disk that is full after 4 KiB.
struct TinyDisk {
    let url: URL

    init(at url: URL) throws {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        guard mount("tmpfs", url.path, "tmpfs", 0, "size=4k") == 0 else {
            throw CocoaError(.fileWriteNoPermission)
        }
        self.url = url
    }

    func unmount() {
        _ = umount2(url.path, Int32(MNT_DETACH))
    }

    /// Whether this process may mount a tmpfs (root with the capability to mount, as in CI's container).
    static let canMount: Bool = {
        guard getuid() == 0, let folder = try? TemporaryFolder(prefix: "TinyDiskProbe") else { return false }
        guard let disk = try? TinyDisk(at: folder.url.appendingPathComponent("disk")) else { return false }
        disk.unmount()
        return true
    }()
}

import CoverBatch
import Foundation
import Locking
import TestSupport
import Testing
import Thumbnails

#if canImport(Glibc)
    import Glibc
#endif

/// Covers made from users' uploads: FFmpeg reads the file named and nothing else, through every API.
@Suite("Untrusted input: playlists, scripts, text and huge headers are refused; only the named file is read")
struct UntrustedInputTests {
    let scratch: TemporaryFolder
    let shapes: AttackShapes

    init() throws {
        scratch = try TemporaryFolder(prefix: "UntrustedInputTests")
        shapes = try AttackShapes(in: scratch.url, fixture: Fixtures.url("h264.mp4"))
    }

    @Test("each shape is refused by makeCover with a reason naming what it was", arguments: AttackShapes.refusedShapes)
    func refusedThroughTheGenerator(_ shape: AttackShapes.Shape) throws {
        let error = #expect(throws: ThumbnailError.self) {
            try CoverGenerator().makeCover(for: shapes.url(shape.name))
        }
        #expect(error?.kind == .refused, "\(String(describing: error))")
        #expect(error?.reason.contains(shape.refusal) == true, "\(String(describing: error))")
        #expect(error?.reason.contains(shape.name) == true, "the reason names the upload")
    }

    @Test("the same bytes held in memory are refused too", arguments: AttackShapes.refusedShapes)
    func refusedInMemory(_ shape: AttackShapes.Shape) throws {
        let data = try Data(contentsOf: shapes.url(shape.name))
        let error = #expect(throws: ThumbnailError.self) {
            try CoverGenerator().makeCover(from: data, name: shape.name)
        }
        #expect(error?.kind == .refused, "\(String(describing: error))")
    }

    @Test("a batch refuses every shape and still writes the real upload's cover")
    func refusedInABatch() throws {
        let out = try TemporaryFolder(prefix: "UntrustedInputTests-out")
        let names = AttackShapes.refusedShapes.map(\.name) + ["other-upload.mp4"]
        let jobs = names.map {
            CoverJob(input: shapes.url($0), output: out.url.appending(path: "\($0).png"))
        }
        let results = LockedResults()
        CoverBatch.run(jobs, options: CoverOptions(), format: .png, concurrency: 2) { results.append($0) }
        let byName = Dictionary(uniqueKeysWithValues: results.all.map { (names[$0.index], $0.result) })
        for shape in AttackShapes.refusedShapes {
            guard case .failure(let error) = byName[shape.name] else {
                Issue.record("\(shape.name) was not refused")
                continue
            }
            #expect(error.kind == .cover(.refused) && error.reason.contains(shape.refusal), "\(error.reason)")
            #expect(!FileManager.default.fileExists(atPath: out.url.appending(path: "\(shape.name).png").path))
        }
        guard case .success = byName["other-upload.mp4"] else {
            Issue.record("the real upload got no cover")
            return
        }
    }

    @Test("allowsPlaylists opts in: a trusted playlist gives the cover of the file it names")
    func trustedPlaylists() throws {
        var options = CoverOptions()
        options.allowsPlaylists = true
        let cover = try CoverGenerator().makeCover(for: shapes.url("hls-sibling.avi"), options: options)
        #expect(cover.width == 320 && cover.height == 180)
        // The header limit holds whatever the caller trusts.
        let error = #expect(throws: ThumbnailError.self) {
            try CoverGenerator().makeCover(for: shapes.url("huge-frame.mp4"), options: options)
        }
        #expect(error?.kind == .refused)
    }

    @Test("describing an upload refuses the same shapes")
    func refusedDescription() throws {
        let error = #expect(throws: ThumbnailError.self) {
            try MediaDescription(contentsOf: shapes.url("hls-absolute.mp4"))
        }
        #expect(error?.kind == .refused)
    }

    @Test("a cover never replaces a FIFO or a device at its output")
    func specialOutputs() throws {
        let cover = try CoverGenerator().makeCover(for: Fixtures.url("h264.mp4"))
        let fifo = scratch.url.appending(path: "fifo.png")
        #expect(mkfifo(fifo.path, 0o644) == 0)
        let error = #expect(throws: ThumbnailError.self) { try cover.write(to: fifo, as: .png) }
        #expect(error?.kind == .writeFailed && error?.reason.contains("is a FIFO, not a regular file") == true)
        var status = stat()
        #expect(lstat(fifo.path, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO, "the FIFO is still there")
    }
}

/// Results collected from a batch's report threads.
final class LockedResults: Sendable {
    private let storage = LockedValue<[CoverJobResult]>([])
    func append(_ result: CoverJobResult) { storage.withLock { $0.append(result) } }
    var all: [CoverJobResult] { storage.withLock { $0 } }
}

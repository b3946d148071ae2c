import Foundation
import TestSupport
import Testing

@testable import MediaCore
@testable import Thumbnails

#if canImport(Glibc)
    import Glibc
#endif

@Suite("One stat per cover: the status a cache key read is the one the cover is opened with")
struct FileStatusTests {
    @Test("a file's identity says what the file is, as its own stat does")
    func identityKinds() throws {
        let folder = try TemporaryFolder()
        let fifo = folder.url.appending(path: "take.mp4")
        #expect(mkfifo(fifo.path, 0o644) == 0)
        for path in [Fixtures.url("h264.mp4").path, Fixtures.folder.path, fifo.path, "/dev/null"] {
            let identity = try #require(FileIdentity(path: path))
            let fromIdentity = FileStatus(identity: identity, path: FileSystemPath(path))
            #expect(String(describing: fromIdentity) == String(describing: FileStatus(path: path)), "\(path)")
        }
    }

    @Test("a cover opened with a status already read does not read it again")
    func statusNotReadAgain() throws {
        // A status that disagrees with the file (a regular fixture) shows which one was used.
        let path = FileSystemPath(Fixtures.url("h264.mp4"))
        #expect(throws: ThumbnailError.self) {
            try MediaInput(fileAt: path, probe: .whenIncomplete, status: .special("a FIFO"))
        }
        do {
            _ = try MediaInput(fileAt: path, probe: .whenIncomplete, status: .special("a FIFO"))
        } catch {
            #expect(error.reason.hasSuffix("is a FIFO, not a regular file"), "\(error.reason)")
        }
        // And the service hands the key's identity over: a cover of the fixture through it works.
        let identity = try #require(FileIdentity(path: Fixtures.url("h264.mp4").path))
        let generator = CoverGenerator()
        let options = try ValidatedCoverOptions(CoverOptions())
        let cover = try generator.scheduler.run(name: "h264.mp4") { cancellation throws(ThumbnailError) in
            try generator.makeCover(
                for: Fixtures.url("h264.mp4"), options: options, cancellation: cancellation, identity: identity)
        }
        #expect(cover.width > 0)
    }
}

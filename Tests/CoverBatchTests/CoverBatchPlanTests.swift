import CoverBatch
import Foundation
import TestSupport
import Testing
import Thumbnails

@Suite("CoverBatchPlan: jobs from a command line, refused before any decoding")
struct CoverBatchPlanTests {
    func plan(_ inputs: [String], _ destination: CoverDestination) throws(CoverPlanError) -> [CoverJob] {
        let paths = inputs.map(FileSystemPath.init)
        return try CoverBatchPlan.jobs(for: paths, arguments: paths, destination: destination, fileExtension: "png")
    }

    @Test("an output folder that is missing or not a folder is refused, naming it")
    func folders() throws {
        let folder = try TemporaryFolder()
        let file = folder.url.appending(path: "file")
        try Data().write(to: file)
        #expect(throws: CoverPlanError("output directory '/no/such' does not exist")) {
            try plan(["a.mp4"], .directory(FileSystemPath("/no/such")))
        }
        #expect(throws: CoverPlanError("output directory '\(file.path)' is not a directory")) {
            try plan(["a.mp4"], .directory(FileSystemPath(file)))
        }
        #expect(throws: CoverPlanError("output directory '/no/such' does not exist")) {
            try plan(["a.mp4"], .file(FileSystemPath("/no/such/x.png")))
        }
    }

    @Test("-o is refused for a directory, for the input itself (through a link too), and for several inputs")
    func singleOutput() throws {
        let folder = try TemporaryFolder()
        let video = folder.url.appending(path: "take.mp4")
        try Data("x".utf8).write(to: video)
        let link = folder.url.appending(path: "link.png")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: video)
        #expect(
            throws: CoverPlanError("-o '\(folder.url.path)' is a directory; use --output-dir to write covers into it")
        ) {
            try plan([video.path], .file(FileSystemPath(folder.url)))
        }
        #expect(throws: CoverPlanError("-o '\(video.path)' is the input itself; it would be overwritten")) {
            try plan([video.path], .file(FileSystemPath(video)))
        }
        #expect(throws: CoverPlanError("-o '\(link.path)' is the input itself; it would be overwritten")) {
            try plan([video.path], .file(FileSystemPath(link)))
        }
        #expect(throws: CoverPlanError("-o takes a single input, but a.mp4 holds 2 videos; use --output-dir")) {
            try plan(["a.mp4", "b.mp4"], .file(FileSystemPath(folder.url.appending(path: "x.png"))))
        }
        let jobs = try plan([video.path], .file(FileSystemPath(folder.url.appending(path: "x.png"))))
        #expect(
            jobs == [
                CoverJob(input: FileSystemPath(video), output: FileSystemPath(folder.url.appending(path: "x.png")))
            ])
    }

    @Test("covers in a directory are named after their inputs, without collisions")
    func directoryNames() throws {
        let folder = try TemporaryFolder()
        let jobs = try plan(["a/clip.mp4", "b/clip.webm"], .directory(FileSystemPath(folder.url)))
        #expect(jobs.map(\.output.lastComponent) == [Array("clip.png".utf8), Array("clip-2.png".utf8)])
    }
}

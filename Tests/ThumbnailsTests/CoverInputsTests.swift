import Foundation
import TestSupport
import Testing
import Thumbnails

@Suite("Batch inputs and output names")
struct CoverInputsTests {
    /// A fresh directory tree with a few video and non-video files.
    private func makeTree(in folder: TemporaryFolder) throws -> URL {
        let root = folder.url
        let manager = FileManager.default
        try manager.createDirectory(at: root.appendingPathComponent("b/nested"), withIntermediateDirectories: true)
        for name in ["a.mp4", "notes.txt", "b/clip.MOV", "b/nested/deep.webm", "b/nested/cover.png"] {
            try Data("x".utf8).write(to: root.appendingPathComponent(name))
        }
        try manager.createDirectory(at: root.appendingPathComponent("b/folder.mp4"), withIntermediateDirectories: true)
        return root
    }

    @Test("a directory expands to its video files, recursively, in path order")
    func directoriesExpand() throws {
        let folder = try TemporaryFolder()
        let root = try makeTree(in: folder)
        let files = CoverInputs.expand([root.path]).files
        #expect(
            files.map { String($0.path.dropFirst(root.path.count)) } == [
                "/a.mp4", "/b/clip.MOV", "/b/nested/deep.webm",
            ])
    }

    @Test("plain paths are kept in order, missing ones included, and - reads standard input once")
    func pathsAndStandardInput() throws {
        var reads = 0
        let files = CoverInputs.expand(["/no/such.mp4", "-", "x.mp4", "-"]) {
            reads += 1
            return "/one.mp4\n\n  /two words.webm  \n"
        }.files
        #expect(reads == 1)
        #expect(files.map(\.path).first == "/no/such.mp4")
        #expect(files.map(\.path)[1...2] == ["/one.mp4", "/two words.webm"])
        #expect(files.map(\.lastPathComponent).last == "x.mp4")
        #expect(files.count == 4)
    }

    @Test("links to files are followed, links to folders are not (no loop), a dangling video link is kept")
    func symbolicLinks() throws {
        let folder = try TemporaryFolder()
        let root = try makeTree(in: folder)
        let manager = FileManager.default
        try manager.createSymbolicLink(atPath: root.appending(path: "b/loop").path, withDestinationPath: root.path)
        try manager.createSymbolicLink(atPath: root.appending(path: "link.mkv").path, withDestinationPath: "a.mp4")
        try manager.createSymbolicLink(atPath: root.appending(path: "gone.mp4").path, withDestinationPath: "/no/such")
        let expansion = CoverInputs.expand([root.path])
        #expect(expansion.unlistedDirectories.isEmpty)
        #expect(
            expansion.files.map { String($0.path.dropFirst(root.path.count)) } == [
                "/a.mp4", "/b/clip.MOV", "/b/nested/deep.webm", "/gone.mp4", "/link.mkv",
            ])
    }

    @Test("output names skip the inputs that lie in the output directory")
    func outputNamesProtectInputs() throws {
        let folder = try TemporaryFolder()
        let photo = folder.url.appending(path: "photo.PNG")
        try Data("x".utf8).write(to: photo)
        var namer = CoverOutputNamer(
            directory: folder.url, fileExtension: "png",
            protecting: [photo, URL(fileURLWithPath: "/elsewhere/clip.png")])
        #expect(namer.outputURL(for: photo).lastPathComponent == "photo-2.png")
        #expect(namer.outputURL(for: URL(fileURLWithPath: "/elsewhere/clip.png")).lastPathComponent == "clip.png")
    }

    @Test("output names stay within 255 bytes, even for the longest input names and their -2")
    func outputNamesFit() {
        var namer = CoverOutputNamer(directory: URL(fileURLWithPath: "/out"), fileExtension: "png")
        let stem = String(repeating: "ü", count: 126) + "x"  // 253 bytes
        let names = ["/a/\(stem).ts", "/b/\(stem).ts"].map {
            namer.outputURL(for: URL(fileURLWithPath: $0)).lastPathComponent
        }
        #expect(names.allSatisfy { $0.utf8.count <= 255 && $0.hasSuffix(".png") }, "\(names.map(\.utf8.count))")
        #expect(names[1].hasSuffix("-2.png"))
        #expect(names[0] != names[1])
    }

    @Test("output names never collide, whatever the inputs' folders, extensions or case")
    func outputNamesAreUnique() {
        var namer = CoverOutputNamer(directory: URL(fileURLWithPath: "/out"), fileExtension: "png")
        let inputs = ["/a/clip.mp4", "/b/clip.mp4", "/a/clip.webm", "/a/CLIP.mov", "/c/clip-2.mp4", "/d/other"]
        let names = inputs.map { namer.outputURL(for: URL(fileURLWithPath: $0)).lastPathComponent }
        #expect(names == ["clip.png", "clip-2.png", "clip-3.png", "CLIP-4.png", "clip-2-2.png", "other.png"])
        #expect(Set(names.map { $0.lowercased() }).count == names.count)
        #expect(namer.outputURL(for: URL(fileURLWithPath: "/x/y.mp4")).path == "/out/y.png")
    }
}

import CoverBatch
import Foundation
import TestSupport
import Testing
import Thumbnails

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Batch inputs and output names")
struct CoverInputsTests {
    /// A fresh directory tree with a few video and non-video files: each video a copy of a fixture, whatever its name.
    private func makeTree(in folder: TemporaryFolder) throws -> URL {
        let root = folder.url
        let manager = FileManager.default
        try manager.createDirectory(at: root.appendingPathComponent("b/nested"), withIntermediateDirectories: true)
        let copies = [
            ("a.mp4", "h264.mp4"), ("b/clip.MOV", "hevc.mp4"), ("b/nested/deep.webm", "vp9.webm"),
            ("b/nested/cover.png", "tiny.gif"), ("b/raw", "one-frame.h264"),
        ]
        for (name, fixture) in copies {
            try manager.copyItem(at: Fixtures.url(fixture), to: root.appendingPathComponent(name))
        }
        try Data("not a video\n".utf8).write(to: root.appendingPathComponent("notes.txt"))
        try Data("x".utf8).write(to: root.appendingPathComponent("b/fake.mp4"))
        try manager.createDirectory(at: root.appendingPathComponent("b/folder.mp4"), withIntermediateDirectories: true)
        return root
    }

    @Test("a directory expands to every file FFmpeg recognises as a video or picture, whatever its name, in path order")
    func directoriesExpand() throws {
        let folder = try TemporaryFolder()
        let root = try makeTree(in: folder)
        let expansion = CoverInputs.expand([FileSystemPath(root.path)])
        #expect(
            expansion.files.map { String($0.string.dropFirst(root.path.count)) } == [
                "/a.mp4", "/b/clip.MOV", "/b/nested/cover.png", "/b/nested/deep.webm", "/b/raw",
            ])
        #expect(expansion.walked == Set(0..<5))
        #expect(
            expansion.skipped.map { String($0.reason.dropFirst(root.path.count)) } == [
                "/b/fake.mp4: not a video or picture FFmpeg recognises",
                "/notes.txt: not a video or picture FFmpeg recognises",
            ])
    }

    @Test("a walk skips, and says why, what is no video: subtitles, empty files, FIFOs, covers in the output folder")
    func walkSkipsWithReasons() throws {
        let folder = try TemporaryFolder()
        let root = folder.url
        try Data("1\n00:00:01,000 --> 00:00:02,000\nHello\n".utf8).write(to: root.appending(path: "clip.srt"))
        try Data().write(to: root.appending(path: "empty.mp4"))
        #expect(mkfifo(root.appending(path: "pipe.mp4").path, 0o600) == 0)
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8))
        try png.write(to: root.appending(path: "clip.png"))
        try FileManager.default.copyItem(at: Fixtures.url("h264.mp4"), to: root.appending(path: "clip.mp4"))
        let reasons = { (expansion: CoverInputs.Expansion) in
            expansion.skipped.map { String($0.reason.dropFirst(root.path.count + 1)) }
        }
        let elsewhere = CoverInputs.expand([FileSystemPath(root)])
        #expect(elsewhere.files.map(\.lastComponent) == [Array("clip.mp4".utf8), Array("clip.png".utf8)])
        #expect(
            reasons(elsewhere) == [
                "clip.srt: a subtitle file (srt), not a video", "empty.mp4: the file is empty (0 bytes)",
                "pipe.mp4: is a FIFO, not a regular file",
            ])
        let intoItself = CoverInputs.expand([FileSystemPath(root)], skippingCoversIn: FileSystemPath(root))
        #expect(intoItself.files.map(\.lastComponent) == [Array("clip.mp4".utf8)])
        #expect(reasons(intoItself).contains("clip.png: a PNG picture in the output folder (covers are written there)"))
    }

    @Test("plain paths are kept in order, missing ones included, and - reads standard input once")
    func pathsAndStandardInput() throws {
        var reads = 0
        let files = CoverInputs.expand(["/no/such.mp4", "-", "x.mp4", "-"].map(FileSystemPath.init)) {
            reads += 1
            return Array("/one.mp4\n\n  /two words.webm \r\n".utf8)
        }.files
        #expect(reads == 1)
        #expect(files.map(\.string).first == "/no/such.mp4")
        #expect(files.map(\.string)[1...2] == ["/one.mp4", "/two words.webm"])
        #expect(files.map(\.string).last == "x.mp4")
        #expect(files.count == 4)
    }

    @Test("links to files are followed, links to folders are not (no loop, said), a dangling link is kept")
    func symbolicLinks() throws {
        let folder = try TemporaryFolder()
        let root = try makeTree(in: folder)
        let manager = FileManager.default
        try manager.createSymbolicLink(atPath: root.appending(path: "b/loop").path, withDestinationPath: root.path)
        try manager.createSymbolicLink(atPath: root.appending(path: "link.mkv").path, withDestinationPath: "a.mp4")
        try manager.createSymbolicLink(atPath: root.appending(path: "gone.mp4").path, withDestinationPath: "/no/such")
        let expansion = CoverInputs.expand([FileSystemPath(root.path)])
        #expect(expansion.unreadable.isEmpty)
        #expect(
            expansion.files.map { String($0.string.dropFirst(root.path.count)) } == [
                "/a.mp4", "/b/clip.MOV", "/b/nested/cover.png", "/b/nested/deep.webm", "/b/raw", "/gone.mp4",
                "/link.mkv",
            ])
        #expect(expansion.skipped.map(\.reason).contains("\(root.path)/b/loop: a link to a folder, not followed"))
    }

    @Test("output names skip the inputs that lie in the output directory")
    func outputNamesProtectInputs() throws {
        let folder = try TemporaryFolder()
        let photo = folder.url.appending(path: "photo.PNG")
        try Data("x".utf8).write(to: photo)
        let elsewhere = FileSystemPath("/elsewhere/clip.png")
        var namer = CoverOutputNamer(
            directory: FileSystemPath(folder.url), fileExtension: "png", protecting: [FileSystemPath(photo), elsewhere])
        #expect(namer.outputPath(for: FileSystemPath(photo)).lastComponent == Array("photo-2.png".utf8))
        #expect(namer.outputPath(for: elsewhere).lastComponent == Array("clip.png".utf8))
    }

    @Test("output names stay within 255 bytes, even for the longest input names and their -2")
    func outputNamesFit() {
        var namer = CoverOutputNamer(directory: FileSystemPath("/out"), fileExtension: "png")
        let stem = String(repeating: "ü", count: 126) + "x"  // 253 bytes
        let names = ["/a/\(stem).ts", "/b/\(stem).ts"].map {
            String(decoding: namer.outputPath(for: FileSystemPath($0)).lastComponent, as: UTF8.self)
        }
        #expect(names.allSatisfy { $0.utf8.count <= 255 && $0.hasSuffix(".png") }, "\(names.map(\.utf8.count))")
        #expect(names[1].hasSuffix("-2.png"))
        #expect(names[0] != names[1])
    }

    @Test("output names never collide, whatever the inputs' folders, extensions or case")
    func outputNamesAreUnique() {
        var namer = CoverOutputNamer(directory: FileSystemPath("/out"), fileExtension: "png")
        let inputs = ["/a/clip.mp4", "/b/clip.mp4", "/a/clip.webm", "/a/CLIP.mov", "/c/clip-2.mp4", "/d/other"]
        let names = inputs.map {
            String(decoding: namer.outputPath(for: FileSystemPath($0)).lastComponent, as: UTF8.self)
        }
        #expect(names == ["clip.png", "clip-2.png", "clip-3.png", "CLIP-4.png", "clip-2-2.png", "other.png"])
        #expect(Set(names.map { $0.lowercased() }).count == names.count)
        #expect(namer.outputPath(for: FileSystemPath("/x/y.mp4")) == FileSystemPath("/out/y.png"))
    }

    @Test("a library of many files of one name gets each the next free number, around names already taken")
    func manyFilesOfOneName() {
        var namer = CoverOutputNamer(directory: FileSystemPath("/out"), fileExtension: "png")
        let inputs = ["/a/clip.mp4", "/b/clip-3.mp4", "/c/clip.mp4", "/d/clip.mp4", "/e/CLIP.mp4"]
        let names = inputs.map {
            String(decoding: namer.outputPath(for: FileSystemPath($0)).lastComponent, as: UTF8.self)
        }
        // The literal clip-3 keeps its name; the clips after it skip 3, as they would counting from 1 each time; a name
        // differing only in case is the same name.
        #expect(names == ["clip.png", "clip-3.png", "clip-2.png", "clip-4.png", "CLIP-5.png"])
        let more = (0..<3_000).map { index in
            String(decoding: namer.outputPath(for: FileSystemPath("/f\(index)/clip.mp4")).lastComponent, as: UTF8.self)
        }
        #expect(more.first == "clip-6.png" && more.last == "clip-3005.png")
        #expect(Set(more).count == more.count && !more.contains(where: names.contains))
    }

    /// A name that is not UTF-8: Latin-1 `café`, a 0xFF byte, a line break.
    static let oddNames: [[UInt8]] = [
        Array("caf".utf8) + [0xE9] + Array(".mp4".utf8),
        [0x61, 0xFF, 0x62] + Array(".webm".utf8),
        Array("new\nline.mov".utf8),
    ]

    @Test("a folder walk finds names that are not UTF-8, by their exact bytes, and skips nothing silently")
    func oddNamesInAWalk() throws {
        let folder = try TemporaryFolder()
        let root = FileSystemPath(folder.url)
        let video = [UInt8](try Data(contentsOf: Fixtures.url("one-frame.mp4")))
        for name in Self.oddNames {
            let path = root.appending(component: name)
            let descriptor = path.withCString { open($0, O_WRONLY | O_CREAT | O_EXCL, 0o644) }
            try #require(descriptor >= 0)
            #expect(write(descriptor, video, video.count) == video.count)
            close(descriptor)
        }
        let expansion = CoverInputs.expand([root])
        #expect(expansion.unreadable.isEmpty)
        #expect(expansion.files.map(\.lastComponent) == Self.oddNames.sorted { $0.lexicographicallyPrecedes($1) })
        #expect(expansion.files.allSatisfy { $0.directory == root })
    }

    @Test("a list on standard input with NUL bytes is split on them, names taken exactly (find -print0)")
    func nulSeparatedList() {
        let list = Self.oddNames.flatMap { Array("/in/".utf8) + $0 + [0] } + Array(" spaced .mp4".utf8)
        let files = CoverInputs.expand([FileSystemPath("-")]) { list }.files
        #expect(files.map(\.bytes) == Self.oddNames.map { Array("/in/".utf8) + $0 } + [Array(" spaced .mp4".utf8)])
    }

    @Test("output names keep the bytes of a name that is not UTF-8, and never collide")
    func oddOutputNames() {
        var namer = CoverOutputNamer(directory: FileSystemPath("/out"), fileExtension: "png")
        let latin1 = FileSystemPath(bytes: Array("/a/caf".utf8) + [0xE9] + Array(".mp4".utf8))!
        let other = FileSystemPath(bytes: Array("/b/CAF".utf8) + [0xE9] + Array(".webm".utf8))!
        #expect(namer.outputPath(for: latin1).bytes == Array("/out/caf".utf8) + [0xE9] + Array(".png".utf8))
        #expect(namer.outputPath(for: other).bytes == Array("/out/CAF".utf8) + [0xE9] + Array("-2.png".utf8))
    }
}

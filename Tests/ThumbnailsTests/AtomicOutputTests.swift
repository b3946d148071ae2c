import Foundation
import TestSupport
import Testing

@testable import MediaCore

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Atomic writes: faults leave nothing half-written, links are never followed, abandoned files are cleaned")
struct AtomicOutputTests {
    let data = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })

    /// The names in `folder`, hidden ones included.
    func contents(of folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }

    @Test(
        "on a full tmpfs the write fails with a one-line error and leaves nothing",
        .enabled(if: geteuid() == 0, "mounting a tmpfs needs root"))
    func fullDisk() throws {
        let folder = try TemporaryFolder()
        let mountPoint = folder.url.appending(path: "small")
        try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: false)
        let mounted = mount("tmpfs", mountPoint.path, "tmpfs", 0, "size=64k")
        try #require(mounted == 0 || errno == EPERM, "mount: \(String(cString: strerror(errno)))")
        guard mounted == 0 else { return }  // a container without CAP_SYS_ADMIN: see CanvasThumbFaultTests' size limit
        defer { umount(mountPoint.path) }
        let output = FileSystemPath(mountPoint.appending(path: "cover.png"))
        let error = try #require(throws: OutputFailure.self) { try AtomicOutput.replace(output, with: data) }
        #expect(error.detail == "cannot write: No space left on device", "\(error.detail)")
        #expect(try contents(of: mountPoint).isEmpty)
        try AtomicOutput.replace(output, with: Data("small".utf8))
        #expect(try contents(of: mountPoint) == ["cover.png"])
    }

    @Test("a link planted at a temporary name is never followed: creating that name fails, its target is untouched")
    func linkAtTemporaryName() throws {
        let folder = try TemporaryFolder()
        let victim = folder.url.appending(path: "victim.txt")
        try Data("precious".utf8).write(to: victim)
        let output = FileSystemPath(folder.url.appending(path: "cover.png"))
        let planted = AtomicOutput.temporaryName(for: output.lastComponent, suffix: Array("AAAAAA".utf8))
        let plantedPath = folder.url.appending(path: String(decoding: planted, as: UTF8.self))
        let other = AtomicOutput.temporaryName(for: output.lastComponent, suffix: Array("BBBBBB".utf8))
        let dangling = folder.url.appending(path: String(decoding: other, as: UTF8.self))
        try FileManager.default.createSymbolicLink(at: plantedPath, withDestinationURL: victim)
        try FileManager.default.createSymbolicLink(
            at: dangling, withDestinationURL: folder.url.appending(path: "created-through-the-link"))
        for link in [plantedPath, dangling] {
            #expect(AtomicOutput.createExclusively(FileSystemPath(link)) == -1)
            #expect(errno == EEXIST)
        }
        try AtomicOutput.replace(output, with: data)
        #expect(try Data(contentsOf: victim) == Data("precious".utf8))
        #expect(try Data(contentsOf: folder.url.appending(path: "cover.png")) == data)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: plantedPath.path) == victim.path)
        #expect(!FileManager.default.fileExists(atPath: folder.url.appending(path: "created-through-the-link").path))
    }

    @Test("a link at the output is replaced by the cover; the file it points to is untouched")
    func linkAtOutput() throws {
        let folder = try TemporaryFolder()
        let victim = folder.url.appending(path: "victim.txt")
        try Data("precious".utf8).write(to: victim)
        let output = folder.url.appending(path: "cover.png")
        try FileManager.default.createSymbolicLink(at: output, withDestinationURL: victim)
        try AtomicOutput.replace(FileSystemPath(output), with: data)
        #expect(try Data(contentsOf: victim) == Data("precious".utf8))
        let attributes = try FileManager.default.attributesOfItem(atPath: output.path)
        #expect(attributes[.type] as? FileAttributeType == .typeRegular)
        #expect(try Data(contentsOf: output) == data)
    }

    @Test("an input, a folder, a FIFO are never replaced; an output not committed leaves nothing")
    func neverReplaced() throws {
        let folder = try TemporaryFolder()
        let input = folder.url.appending(path: "take.mp4")
        try Data("take".utf8).write(to: input)
        let hardLink = folder.url.appending(path: "same.mp4")
        try FileManager.default.linkItem(at: input, to: hardLink)
        let inputs = [FileSystemPath(folder.url.appending(path: "other.mp4")), FileSystemPath(input)]
        let error = try #require(throws: OutputFailure.self) {
            try AtomicOutput.replace(FileSystemPath(hardLink), with: data, neverReplacing: inputs)
        }
        #expect(error.problem == .isAnInput(index: 1))
        let inner = folder.url.appending(path: "inner")
        try FileManager.default.createDirectory(at: inner, withIntermediateDirectories: false)
        #expect(throws: OutputFailure(.isAFolder)) { try AtomicOutput.replace(FileSystemPath(inner), with: data) }
        let fifo = folder.url.appending(path: "pipe.png")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        #expect(throws: OutputFailure(.special("a FIFO"))) {
            try AtomicOutput.replace(FileSystemPath(fifo), with: data)
        }
        do {
            let abandoned = try AtomicOutput(replacing: FileSystemPath(folder.url.appending(path: "board.png")))
            try abandoned.write(data)
            #expect(FileManager.default.fileExists(atPath: abandoned.temporary.string))
        }
        #expect(try contents(of: folder.url) == ["inner", "pipe.png", "same.mp4", "take.mp4"])
        #expect(try Data(contentsOf: input) == Data("take".utf8))
    }

    @Test("a name that is not UTF-8 is written with its exact bytes")
    func oddName() throws {
        let folder = try TemporaryFolder()
        let output = FileSystemPath(folder.url).appending(component: [0x63, 0xE9, 0xFF, 0x0A] + Array(".png".utf8))
        try AtomicOutput.replace(output, with: data)
        let descriptor = output.withCString { open($0, O_RDONLY) }
        #expect(descriptor >= 0)
        close(descriptor)
        #expect(try contents(of: folder.url).count == 1)
    }

    @Test("temporary names carry the writer's process id and are recognised; other names are not")
    func temporaryNames() {
        let name = AtomicOutput.temporaryName(for: Array("clip.png".utf8), suffix: Array("Ab3xYz".utf8))
        #expect(String(decoding: name, as: UTF8.self) == ".clip.png.writing-\(getpid())-Ab3xYz")
        #expect(AtomicOutput.writerProcess(ofTemporaryName: name) == getpid())
        let long = AtomicOutput.temporaryName(
            for: Array(String(repeating: "é", count: 127).utf8), suffix: Array("AAAAAA".utf8))
        #expect(long.count <= 255)
        #expect(String(validating: long, as: UTF8.self) != nil, "cut between characters")
        // An earlier version's covers carried another marker, recognised the same way.
        #expect(AtomicOutput.writerProcess(ofTemporaryName: Array(".clip.png.cover-tmp-12-Ab3xYz".utf8)) == 12)
        for other in [
            "clip.png", ".clip.png.tmp-ABCDEF", ".clip.png.writing--ABCDEF", ".clip.png.writing-12x-ABCDEF",
            ".clip.png.writing-12-ABCDE", ".writing-12-ABCDEF", ".clip.png.writing-12-ABC.EF",
            ".clip.png.cover-tmp--ABCDEF", ".cover-tmp-12-ABCDEF", ".clip.mp4.composing-12-ABCDEF",
        ] {
            #expect(AtomicOutput.writerProcess(ofTemporaryName: Array(other.utf8)) == nil, "\(other)")
        }
    }

    @Test("old-style temporary names (.NAME.tmp-XXXXXX) are recognised only for a cover's name")
    func oldStyleNames() {
        for name in [".clip.png.tmp-ABCDEF", ".caf\u{E9}.JPG.tmp-a1b2c3", ".x.jpeg.tmp-000000"] {
            #expect(AtomicOutput.isOldStyleTemporaryName(Array(name.utf8)), "\(name)")
        }
        for name in [
            "clip.png.tmp-ABCDEF", ".notes.txt.tmp-ABCDEF", ".png.tmp-ABCDEF", ".clip.png.tmp-ABCDE",
            ".clip.png.tmp-ABC.EF", ".clip.png.cover-tmp-12-ABCDEF", ".clip.png.writing-12-ABCDEF",
        ] {
            #expect(!AtomicOutput.isOldStyleTemporaryName(Array(name.utf8)), "\(name)")
        }
    }

    @Test("only abandoned temporary files are removed: a dead writer's; not a live one's, a locked one, or others")
    func removeAbandoned() throws {
        let folder = try TemporaryFolder()
        // A process id that is certainly dead: a child that has been waited for.
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/true")
        try child.run()
        child.waitUntilExit()
        let dead = child.processIdentifier
        func file(_ name: String) throws -> URL {
            let url = folder.url.appending(path: name)
            try Data("partial".utf8).write(to: url)
            return url
        }
        _ = try file(".a.png.writing-\(dead)-AAAAAA")
        _ = try file(".b.png.writing-\(getpid())-BBBBBB")  // this process is alive
        let locked = try file(".c.mp4.writing-\(dead)-CCCCCC")
        _ = try file(".j.png.cover-tmp-\(dead)-JJJJJJ")  // an earlier version's name
        _ = try file(".d.png.tmp-DDDDDD")  // old-style, fresh: it may be a live old writer's
        _ = try file("e.png")
        // Old-style names last modified two hours ago: stale, unless locked or not a cover's name.
        let twoHoursAgo = Date().addingTimeInterval(-7200)
        for name in [".g.png.tmp-GGGGGG", ".h.txt.tmp-HHHHHH", ".i.jpg.tmp-IIIIII"] {
            try FileManager.default.setAttributes([.modificationDate: twoHoursAgo], ofItemAtPath: try file(name).path)
        }
        let oldLocked = open(folder.url.appending(path: ".i.jpg.tmp-IIIIII").path, O_RDONLY)
        #expect(flock(oldLocked, LOCK_EX) == 0)
        defer { close(oldLocked) }
        try FileManager.default.createSymbolicLink(
            at: folder.url.appending(path: ".f.png.writing-\(dead)-FFFFFF"),
            withDestinationURL: folder.url.appending(path: "e.png"))
        let holder = open(locked.path, O_RDONLY)
        #expect(flock(holder, LOCK_EX) == 0)
        defer { close(holder) }
        #expect(AtomicOutput.removeAbandoned(in: FileSystemPath(folder.url)) == 3)
        #expect(
            try contents(of: folder.url) == [
                ".b.png.writing-\(getpid())-BBBBBB", ".c.mp4.writing-\(dead)-CCCCCC", ".d.png.tmp-DDDDDD",
                ".f.png.writing-\(dead)-FFFFFF", ".h.txt.tmp-HHHHHH", ".i.jpg.tmp-IIIIII", "e.png",
            ])
    }

    #if os(Linux)
        @Test("a zombie writer's temporary file is abandoned: a killed batch's workers stay zombies until reaped")
        func zombieWritersFileIsRemoved() throws {
            let folder = try TemporaryFolder()
            // A child that exits and is not waited for yet: a zombie, which `kill(pid, 0)` still finds.
            var child: pid_t = 0
            let arguments = ["/bin/true"]
            var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
            defer {
                for argument in argv { free(argument) }
            }
            #expect(posix_spawn(&child, "/bin/true", nil, nil, &argv, environ) == 0)
            var state = AtomicOutput.processState(child)
            for _ in 0..<5_000 where state != "Z" {
                usleep(1_000)
                state = AtomicOutput.processState(child)
            }
            #expect(state == "Z", "the child should be a zombie")
            #expect(kill(child, 0) == 0)
            let name = ".a.mp4.writing-\(child)-AAAAAA"
            try Data("partial".utf8).write(to: folder.url.appending(path: name))
            #expect(AtomicOutput.removeAbandoned(in: FileSystemPath(folder.url)) == 1)
            #expect(try contents(of: folder.url).isEmpty)
            var status: Int32 = 0
            #expect(waitpid(child, &status, 0) == child)
        }
    #endif
}

import Foundation
import TestSupport
import Testing

@testable import MediaCore
@testable import Thumbnails

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Atomic writes: faults leave nothing half-written, links are never followed, abandoned files are cleaned")
struct AtomicFileTests {
    let data = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })

    /// The names in `folder`, hidden ones included.
    func contents(of folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }

    @Test("a write failing mid-file (disk full) leaves the old file, no temporary file, and a one-line error")
    func failureMidFile() throws {
        let folder = try TemporaryFolder()
        let output = folder.url.appending(path: "cover.png")
        try Data("previous".utf8).write(to: output)
        var calls = 0
        let error = try #require(throws: ThumbnailError.self) {
            try AtomicFile.replace(FileSystemPath(output), with: data) { descriptor, buffer in
                calls += 1
                // The first call writes part of the bytes, the second finds the disk full.
                if calls == 1 {
                    return AtomicFile.systemWrite(descriptor, UnsafeRawBufferPointer(rebasing: buffer.prefix(4096)))
                }
                errno = ENOSPC
                return -1
            }
        }
        #expect(calls == 2)
        #expect(error.kind == .writeFailed)
        #expect(error.reason == "\(output.path): cannot write: No space left on device")
        #expect(try Data(contentsOf: output) == Data("previous".utf8))
        #expect(try contents(of: folder.url) == ["cover.png"])
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
        guard mounted == 0 else { return }  // a container without CAP_SYS_ADMIN: covered by the seam test
        defer { umount(mountPoint.path) }
        let output = FileSystemPath(mountPoint.appending(path: "cover.png"))
        let error = try #require(throws: ThumbnailError.self) { try AtomicFile.replace(output, with: data) }
        #expect(error.reason.hasSuffix("cannot write: No space left on device"), "\(error.reason)")
        #expect(try contents(of: mountPoint).isEmpty)
        try AtomicFile.replace(output, with: Data("small".utf8))
        #expect(try contents(of: mountPoint) == ["cover.png"])
    }

    @Test("a link planted at the temporary name is not followed: its target is untouched, another name is used")
    func linkAtTemporaryName() throws {
        let folder = try TemporaryFolder()
        let victim = folder.url.appending(path: "victim.txt")
        try Data("precious".utf8).write(to: victim)
        let output = FileSystemPath(folder.url.appending(path: "cover.png"))
        let planted = AtomicFile.temporaryName(for: output.lastComponent, suffix: Array("AAAAAA".utf8))
        let plantedPath = folder.url.appending(path: String(decoding: planted, as: UTF8.self))
        try FileManager.default.createSymbolicLink(at: plantedPath, withDestinationURL: victim)
        var suffixes = [Array("AAAAAA".utf8), Array("BBBBBB".utf8)].makeIterator()
        try AtomicFile.replace(output, with: data, randomSuffix: { suffixes.next()! })
        #expect(try Data(contentsOf: victim) == Data("precious".utf8))
        #expect(try Data(contentsOf: folder.url.appending(path: "cover.png")) == data)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: plantedPath.path) == victim.path)
    }

    @Test("a link at the output is replaced by the cover; the file it points to is untouched")
    func linkAtOutput() throws {
        let folder = try TemporaryFolder()
        let victim = folder.url.appending(path: "victim.txt")
        try Data("precious".utf8).write(to: victim)
        let output = folder.url.appending(path: "cover.png")
        try FileManager.default.createSymbolicLink(at: output, withDestinationURL: victim)
        try AtomicFile.replace(FileSystemPath(output), with: data)
        #expect(try Data(contentsOf: victim) == Data("precious".utf8))
        let attributes = try FileManager.default.attributesOfItem(atPath: output.path)
        #expect(attributes[.type] as? FileAttributeType == .typeRegular)
        #expect(try Data(contentsOf: output) == data)
    }

    @Test("a name that is not UTF-8 is written with its exact bytes")
    func oddName() throws {
        let folder = try TemporaryFolder()
        let output = FileSystemPath(folder.url).appending(component: [0x63, 0xE9, 0xFF, 0x0A] + Array(".png".utf8))
        try AtomicFile.replace(output, with: data)
        let descriptor = output.withCString { open($0, O_RDONLY) }
        #expect(descriptor >= 0)
        close(descriptor)
        #expect(try contents(of: folder.url).count == 1)
    }

    @Test("temporary names carry the writer's process id and are recognised; other names are not")
    func temporaryNames() {
        let name = AtomicFile.temporaryName(for: Array("clip.png".utf8), suffix: Array("Ab3xYz".utf8))
        #expect(String(decoding: name, as: UTF8.self) == ".clip.png.cover-tmp-\(getpid())-Ab3xYz")
        #expect(AtomicFile.writerProcess(ofTemporaryName: name) == getpid())
        let long = AtomicFile.temporaryName(
            for: Array(String(repeating: "é", count: 127).utf8), suffix: Array("AAAAAA".utf8))
        #expect(long.count <= 255)
        #expect(String(validating: long, as: UTF8.self) != nil, "cut between characters")
        for other in [
            "clip.png", ".clip.png.tmp-ABCDEF", ".clip.png.cover-tmp--ABCDEF", ".clip.png.cover-tmp-12x-ABCDEF",
            ".clip.png.cover-tmp-12-ABCDE", ".cover-tmp-12-ABCDEF", ".clip.png.cover-tmp-12-ABC.EF",
        ] {
            #expect(AtomicFile.writerProcess(ofTemporaryName: Array(other.utf8)) == nil, "\(other)")
        }
    }

    @Test("old-style temporary names (.NAME.tmp-XXXXXX) are recognised only for a cover's name")
    func oldStyleNames() {
        for name in [".clip.png.tmp-ABCDEF", ".caf\u{E9}.JPG.tmp-a1b2c3", ".x.jpeg.tmp-000000"] {
            #expect(AtomicFile.isOldStyleTemporaryName(Array(name.utf8)), "\(name)")
        }
        for name in [
            "clip.png.tmp-ABCDEF", ".notes.txt.tmp-ABCDEF", ".png.tmp-ABCDEF", ".clip.png.tmp-ABCDE",
            ".clip.png.tmp-ABC.EF", ".clip.png.cover-tmp-12-ABCDEF",
        ] {
            #expect(!AtomicFile.isOldStyleTemporaryName(Array(name.utf8)), "\(name)")
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
        _ = try file(".a.png.cover-tmp-\(dead)-AAAAAA")
        _ = try file(".b.png.cover-tmp-\(getpid())-BBBBBB")  // this process is alive
        let locked = try file(".c.png.cover-tmp-\(dead)-CCCCCC")
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
            at: folder.url.appending(path: ".f.png.cover-tmp-\(dead)-FFFFFF"),
            withDestinationURL: folder.url.appending(path: "e.png"))
        let holder = open(locked.path, O_RDONLY)
        #expect(flock(holder, LOCK_EX) == 0)
        defer { close(holder) }
        #expect(AtomicFile.removeAbandoned(in: FileSystemPath(folder.url)) == 2)
        #expect(
            try contents(of: folder.url) == [
                ".b.png.cover-tmp-\(getpid())-BBBBBB", ".c.png.cover-tmp-\(dead)-CCCCCC", ".d.png.tmp-DDDDDD",
                ".f.png.cover-tmp-\(dead)-FFFFFF", ".h.txt.tmp-HHHHHH", ".i.jpg.tmp-IIIIII", "e.png",
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
            var state = AtomicFile.processState(child)
            for _ in 0..<5_000 where state != "Z" {
                usleep(1_000)
                state = AtomicFile.processState(child)
            }
            #expect(state == "Z", "the child should be a zombie")
            #expect(kill(child, 0) == 0)
            let name = ".a.png.cover-tmp-\(child)-AAAAAA"
            try Data("partial".utf8).write(to: folder.url.appending(path: name))
            #expect(AtomicFile.removeAbandoned(in: FileSystemPath(folder.url)) == 1)
            #expect(try contents(of: folder.url).isEmpty)
            var status: Int32 = 0
            #expect(waitpid(child, &status, 0) == child)
        }
    #endif
}

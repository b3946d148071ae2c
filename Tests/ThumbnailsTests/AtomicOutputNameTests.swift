import Foundation
import TestSupport
import Testing

@testable import MediaCore

#if canImport(Glibc)
    import Glibc
#endif

/// The temporary name an output is written under is one nobody else holds: a name already taken, by an earlier
/// writer's file or by a link an attacker planted, is passed over, never opened, followed or overwritten.
@Suite("Atomic writes: a taken temporary name is passed over, never followed or overwritten")
struct AtomicOutputNameTests {
    let data = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })

    /// A folder with `victim.txt` and, at the temporary names of `cover.png` ending in `AAAAAA`, `BBBBBB` and
    /// `CCCCCC`: an earlier writer's file, a link to the victim, and a link to a file that does not exist.
    struct Planted {
        let folder: TemporaryFolder
        let output: FileSystemPath
        let victim: URL
        let earlier: URL
        let link: URL
        let dangling: URL
        let danglingTarget: URL

        init() throws {
            folder = try TemporaryFolder()
            output = FileSystemPath(folder.url.appending(path: "cover.png"))
            victim = folder.url.appending(path: "victim.txt")
            try Data("precious".utf8).write(to: victim)
            let output = output
            let folder = folder
            func taken(_ suffix: String) -> URL {
                let name = AtomicOutput.temporaryName(for: output.lastComponent, suffix: Array(suffix.utf8))
                return folder.url.appending(path: String(decoding: name, as: UTF8.self))
            }
            earlier = taken("AAAAAA")
            try Data("an earlier writer's bytes".utf8).write(to: earlier)
            link = taken("BBBBBB")
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: victim)
            dangling = taken("CCCCCC")
            danglingTarget = folder.url.appending(path: "created-through-the-link")
            try FileManager.default.createSymbolicLink(at: dangling, withDestinationURL: danglingTarget)
        }

        /// Nothing planted was written to, followed or replaced.
        func expectUntouched() throws {
            #expect(try Data(contentsOf: victim) == Data("precious".utf8))
            #expect(try Data(contentsOf: earlier) == Data("an earlier writer's bytes".utf8))
            let manager = FileManager.default
            #expect(try manager.destinationOfSymbolicLink(atPath: link.path) == victim.path)
            #expect(try manager.destinationOfSymbolicLink(atPath: dangling.path) == danglingTarget.path)
            #expect(!manager.fileExists(atPath: danglingTarget.path))
        }

        /// The names in the folder, hidden ones included.
        func contents() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
        }

        var plantedNames: [String] { [earlier, link, dangling, victim].map(\.lastPathComponent) }
    }

    static func suffixes(_ suffixes: String...) -> [[UInt8]] { suffixes.map { Array($0.utf8) } }

    @Test("taken names (a file, a link to a file, a dangling link) are passed over and the output lands")
    func takenNamesArePassedOver() throws {
        let planted = try Planted()
        let writer = try AtomicOutput(
            replacing: planted.output, neverReplacing: [],
            suffixes: Self.suffixes("AAAAAA", "BBBBBB", "CCCCCC", "DDDDDD"))
        let expected = AtomicOutput.temporaryName(for: planted.output.lastComponent, suffix: Array("DDDDDD".utf8))
        #expect(writer.temporary.lastComponent == expected)
        try writer.write(data)
        try writer.commit()
        #expect(try Data(contentsOf: planted.folder.url.appending(path: "cover.png")) == data)
        try planted.expectUntouched()
        #expect(try planted.contents() == (planted.plantedNames + ["cover.png"]).sorted())
    }

    @Test("when every name tried is taken, the output fails with one line naming the folder and nothing is written")
    func everyNameTaken() throws {
        let planted = try Planted()
        let error = try #require(throws: OutputFailure.self) {
            _ = try AtomicOutput(
                replacing: planted.output, neverReplacing: [], suffixes: Self.suffixes("AAAAAA", "BBBBBB", "CCCCCC"))
        }
        #expect(error.detail == "cannot create a temporary file in \(planted.output.directory.escaped): File exists")
        try planted.expectUntouched()
        #expect(try planted.contents() == planted.plantedNames.sorted())
    }

    @Test("the random names tried are each new: two writers of one output at once get two temporary files")
    func concurrentWritersGetTheirOwnNames() throws {
        let planted = try Planted()
        let first = try AtomicOutput(replacing: planted.output)
        let second = try AtomicOutput(replacing: planted.output)
        #expect(first.temporary != second.temporary)
        try first.write(Data("first".utf8))
        try second.write(data)
        try first.commit()
        try second.commit()
        #expect(try Data(contentsOf: planted.folder.url.appending(path: "cover.png")) == data)
        try planted.expectUntouched()
        #expect(try planted.contents() == (planted.plantedNames + ["cover.png"]).sorted())
    }
}

import Foundation
import Testing

@Suite("Thumbnails' internals are grouped by concern, and only MediaCore imports C")
struct SourceLayoutTests {
    static let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let sources = root.appending(path: "Sources/Thumbnails")
    /// The folders of `Internals/` (Docs/Thumbnails.md, "Where the code is").
    static let folders: Set<String> = ["Decode", "Scheduling"]

    /// Every Swift file below `folder` of the repository, as its path below it.
    static func files(in folder: URL) throws -> [String] {
        let enumerator = try #require(FileManager.default.enumerator(atPath: folder.path))
        return enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted()
    }

    @Test("every file of Internals/ is in one of its folders")
    func internalsInFolders() throws {
        let internals = try Self.files(in: Self.sources).filter { $0.hasPrefix("Internals/") }
        #expect(internals.count > 5)
        for file in internals {
            let parts = file.split(separator: "/")
            #expect(parts.count == 3 && Self.folders.contains(String(parts[1])), "\(file)")
        }
    }

    @Test("only Sources/MediaCore/ imports CFFmpeg, in sources, tools, tests and examples")
    func cFacingFolder() throws {
        var importers = 0
        for top in ["Sources", "Tools", "Tests", "Examples"] {
            let folder = Self.root.appending(path: top)
            for file in try Self.files(in: folder) {
                let text = try String(contentsOf: folder.appending(path: file), encoding: .utf8)
                guard text.contains("import CFFmpeg"), !file.hasSuffix("SourceLayoutTests.swift") else { continue }
                importers += 1
                #expect(top == "Sources" && file.hasPrefix("MediaCore/"), "\(top)/\(file) imports CFFmpeg")
            }
        }
        #expect(importers > 5)
    }
}

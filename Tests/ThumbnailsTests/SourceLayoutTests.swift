import Foundation
import Testing

@Suite("Thumbnails' internals are grouped by concern, and only the FFmpeg folder imports C")
struct SourceLayoutTests {
    static let sources = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appending(path: "Sources/Thumbnails")
    /// The folders of `Internals/` (Docs/Thumbnails.md, "Where the code is").
    static let folders: Set<String> = ["FFmpeg", "Decode", "Picture", "Files", "Scheduling"]

    /// Every Swift file of the module, as its path below `Sources/Thumbnails/`.
    static func files() throws -> [String] {
        let enumerator = try #require(FileManager.default.enumerator(atPath: sources.path))
        return enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted()
    }

    @Test("every file of Internals/ is in one of its folders")
    func internalsInFolders() throws {
        let internals = try Self.files().filter { $0.hasPrefix("Internals/") }
        #expect(internals.count > 20)
        for file in internals {
            let parts = file.split(separator: "/")
            #expect(parts.count == 3 && Self.folders.contains(String(parts[1])), "\(file)")
        }
    }

    @Test("only Internals/FFmpeg/ imports CFFmpeg")
    func cFacingFolder() throws {
        var importers = 0
        for file in try Self.files() {
            let text = try String(contentsOf: Self.sources.appending(path: file), encoding: .utf8)
            guard text.contains("import CFFmpeg") else { continue }
            importers += 1
            #expect(file.hasPrefix("Internals/FFmpeg/"), "\(file) imports CFFmpeg")
        }
        #expect(importers > 5)
    }
}

import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("canvas-sim --draft")
struct CanvasSimDraftTests {
    let tool: BuiltBinary
    let folder: URL

    init() throws {
        tool = try BuiltBinary("canvas-sim")
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("canvas-sim-draft-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    @Test("a run continues from the board the run before left, and the restore is printed first")
    func resume() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data().write(to: folder.appendingPathComponent("a.mov"))
        let first = try tool.run(
            ["--draft", "board.draft", "--cells", "3", "--events", "tap 0; record; stop a.mov; tap 1; record"],
            in: folder)
        #expect(first.status == 0, "\(first.standardError)")
        #expect(first.outputLines.first == "draft: board.draft created")
        #expect(first.outputLines.last == "draft: board.draft: 6 records durable")

        let shown = try tool.run(["--draft", "board.draft", "--events", "", "--format", "json"], in: folder)
        #expect(shown.status == 0, "\(shown.standardError)")
        #expect(shown.standardError.isEmpty)
        // How many of the records the new draft's first snapshot holds depends on when its writer ran.
        let head = shown.outputLines.first ?? ""
        #expect(head.hasPrefix(#"{"draft":"board.draft","new":false,"sequence":6,"snapshot":"#))
        let tail: String = [
            #""dropped":0,"effects":["take interrupted 1 (file not noted)"],"canvases":["#,
            #"{"index":0,"status":"noPreview","selected":false,"video":"a.mov","segments":["a.mov"],"undoArmed":false,"#,
            #""shows":"cover"},"#,
            #"{"index":1,"status":"inPreview","selected":true,"video":null,"segments":[],"undoArmed":false,"#,
            #""shows":"livePreview"},"#,
            #"{"index":2,"status":"noPreview","selected":false,"video":null,"segments":[],"undoArmed":false,"#,
            #""shows":"addButton"}]}"#,
        ].joined()
        #expect(head.hasSuffix(tail), "\(head)")
        #expect(shown.outputLines.last == #"{"durable":7}"#)

        let again = try tool.run(["--draft", "board.draft", "--events", "tap 2", "--format", "json"], in: folder)
        #expect(again.outputLines.first?.contains(#""sequence":7"#) == true)
        #expect(again.outputLines.first?.contains(#""effects":[]"#) == true)
        #expect(again.outputLines.dropFirst().first?.contains(#""event":"tap 2","accepted":true"#) == true)
    }

    @Test("a file that is not a draft: exit 3 and one line naming it")
    func notADraft() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("tap 0\n".utf8).write(to: folder.appendingPathComponent("script.txt"))
        let run = try tool.run(["--draft", "script.txt", "--events", ""], in: folder)
        #expect(run.status == 3)
        #expect(run.standardOutput.isEmpty)
        #expect(run.errorLines == ["canvas-sim: 'script.txt' is not a draft (no draft signature at its start)"])
        let usage = try tool.run(["--snapshot-every", "3", "--events", ""], in: folder)
        #expect(usage.status == 2)
        #expect(usage.errorLines.first == "canvas-sim: --snapshot-every needs --draft")
    }
}

extension CanvasSimDraftTests {
    @Test("a draft moved with its takes finds them; a removed take stays, is reported, and goes on the app's delete")
    func movedAndMissing() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let project = folder.appendingPathComponent("project")
        try FileManager.default.createDirectory(at: project, withIntermediateDirectories: true)
        try Data().write(to: project.appendingPathComponent("a.mov"))
        let first = try tool.run(
            ["--draft", "board.draft", "--cells", "2", "--events", "tap 0; record; stop a.mov; tap 0"], in: project)
        #expect(first.status == 0, "\(first.standardError)")

        let moved = folder.appendingPathComponent("moved")
        try FileManager.default.moveItem(at: project, to: moved)
        let found = try tool.run(["--draft", "board.draft", "--events", "", "--format", "json"], in: moved)
        #expect(found.outputLines.first?.contains(#""effects":[]"#) == true, "\(found.outputLines.first ?? "")")
        let canvas = #""video":"a.mov","segments":["a.mov"],"undoArmed":false,"shows":"cover""#
        #expect(found.outputLines.first?.contains(canvas) == true)

        try FileManager.default.removeItem(at: moved.appendingPathComponent("a.mov"))
        for _ in 0..<2 {
            let missing = try tool.run(["--draft", "board.draft", "--events", ""], in: moved)
            #expect(missing.outputLines.contains("draft: take missing 0 a.mov"), "\(missing.standardOutput)")
            let json = try tool.run(["--draft", "board.draft", "--events", "", "--format", "json"], in: moved)
            let head = json.outputLines.first ?? ""
            #expect(head.contains(#""effects":["take missing 0 a.mov"]"#), "\(head)")
            #expect(head.contains(#""video":"a.mov""#), "\(head)")
        }
        let confirmed = try tool.run(["--draft", "board.draft", "--events", "delete 0"], in: moved)
        #expect(confirmed.status == 0, "\(confirmed.standardError)")
        let after = try tool.run(["--draft", "board.draft", "--events", "", "--format", "json"], in: moved)
        #expect(after.outputLines.first?.contains(#""effects":[]"#) == true)
        #expect(after.outputLines.first?.contains(#""video":null"#) == true)
    }
}

extension CanvasSimDraftTests {
    @Test("a draft path that is a planted link, a folder or a FIFO: exit 3, one line, nothing written")
    func specialPaths() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let victim = folder.appendingPathComponent("victim.txt")
        try Data("keep me".utf8).write(to: victim)
        let manager = FileManager.default
        try manager.createSymbolicLink(
            atPath: folder.appendingPathComponent("link.draft").path, withDestinationPath: "victim.txt")
        try manager.createDirectory(
            at: folder.appendingPathComponent("folder.draft"), withIntermediateDirectories: false)
        #expect(mkfifo(folder.appendingPathComponent("fifo.draft").path, 0o600) == 0)
        let before = try manager.contentsOfDirectory(atPath: folder.path).sorted()
        for (name, kind) in [("link.draft", "a symbolic link"), ("folder.draft", "a folder"), ("fifo.draft", "a FIFO")]
        {
            let run = try tool.run(["--draft", name, "--cells", "2", "--events", "tap 0"], in: folder)
            #expect(run.status == 3, "\(name)")
            #expect(run.standardOutput.isEmpty, "\(name)")
            #expect(run.errorLines == ["canvas-sim: draft '\(name)' is \(kind), not a regular file"])
        }
        #expect(try manager.contentsOfDirectory(atPath: folder.path).sorted() == before, "nothing written beside them")
        #expect(try Data(contentsOf: victim) == Data("keep me".utf8))
    }
}

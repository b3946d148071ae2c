import CanvasHost
import CanvasSimulation
import Foundation
import Testing

@testable import CanvasKit

/// Inputs Tools/fuzz-sim.sh found (kept in Fixtures/fuzz/), replayed through the fuzzer's checks: a script parses and
/// its printed form reads back as the same commands, or the error names a place inside the text.
@Suite("Script fuzz findings")
struct ScriptFuzzRegressionTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Fixtures/fuzz").standardizedFileURL

    static let scripts: [String] =
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
        .filter { $0.hasSuffix(".script") }.sorted()

    @Test("The fuzz folder holds the findings") func folderIsThere() {
        #expect(Self.scripts.contains("script-nul-in-file-name.script"))
        #expect(Self.scripts.contains("script-trailing-slash.script"))
        #expect(Self.scripts.contains("script-latin1-file-name.script"))
    }

    @Test("Every finding parses and round-trips, or fails at a place in the text", arguments: scripts)
    func replay(name: String) throws {
        let data = try Data(contentsOf: Self.folder.appendingPathComponent(name))
        let text = String(decoding: data, as: UTF8.self)
        do {
            let script = try CanvasScript(parsing: data)
            #expect(try CanvasScript(parsing: script.description).commands == script.commands)
        } catch {
            let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
            #expect((1...lines.count).contains(error.line))
            #expect((1...lines[error.line - 1].count + 1).contains(error.column))
        }
    }

    @Test("A NUL in a file name is a parse error at the file name (it printed as %00, another file)")
    func nulInFileName() {
        #expect {
            try CanvasScript(parsing: "tap 0; record; stop a\u{0}b.mov")
        } throws: { error in
            guard let error = error as? CanvasScript.ParseError else { return false }
            return error.line == 1 && error.column == 21 && error.reason == .nulInFileName
                && error.message == "a file name cannot contain the NUL character (U+0000)"
        }
        #expect(throws: CanvasScript.ParseError.self) { try CanvasScript(parsing: "stop \"a\u{0}\"") }
    }

    @Test(
        "Bytes that are not UTF-8 are a parse error at the line and column of the first one (canvas-sim said only 'not readable UTF-8 text')"
    )
    func notUTF8() throws {
        let bytes = Array("tap 0\nrecord; stop caf".utf8) + [0xE9] + Array(".mov\n".utf8)
        #expect {
            try CanvasScript(parsing: bytes)
        } throws: { error in
            guard let error = error as? CanvasScript.ParseError else { return false }
            return error.line == 2 && error.column == 17 && error.reason == .notUTF8(byte: 0xE9)
                && error.message == "not UTF-8 text: byte 0xE9 cannot start or continue a character"
        }
        // Valid UTF-8 bytes parse like the same text, with places counted in characters.
        let text = "tap 0\r\nstop \"café ☕.mov\"; tap 1"
        #expect(try CanvasScript(parsing: Array(text.utf8)).steps == CanvasScript(parsing: text).steps)
        #expect(try CanvasScript(parsing: [UInt8]()).steps.isEmpty)
    }

    @Test("A take named with a trailing slash prints without it and reads back as the same take")
    func trailingSlash() throws {
        let script = try CanvasScript(parsing: "stop takes/; stop /abs/dir/")
        #expect(script.description == "stop takes\nstop /abs/dir\n")
        #expect(try CanvasScript(parsing: script.description).commands == script.commands)
        for case .event(.stop(let url, _, _)) in script.commands { #expect(!url.hasDirectoryPath) }
    }
}

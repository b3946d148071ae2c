import CanvasHost
import CanvasSimulation
import CanvasTestSupport
import Foundation
import Testing

@testable import CanvasKit

@Suite("Script language")
struct CanvasScriptTests {
    static let base = URL(fileURLWithPath: "/scripts/", isDirectory: true)

    private func parse(_ source: String) throws(CanvasScript.ParseError) -> [CanvasScript.Command] {
        try CanvasScript(parsing: source, baseDirectory: Self.base).commands
    }

    private func file(_ path: String) -> URL { URL(fileURLWithPath: path, relativeTo: Self.base) }

    @Test("Every word, one per line or separated by ';', with comments")
    func words() throws {
        let commands = try parse(
            """
            # a session
            tap 0; record   # start
            stop a.mov
            cancel ; delete 2;add
            remove 1
            scroll 12; disappear; appear
            tap -1
            """)
        #expect(
            commands == [
                .event(.tap(0)), .event(.record), .event(.stop(file("a.mov"))), .event(.cancel), .event(.delete(2)),
                .event(.add), .event(.remove(1)), .scroll(12), .disappear, .appear, .event(.tap(-1)),
            ])
    }

    @Test("Steps know their line and column")
    func positions() throws {
        let script = try CanvasScript(parsing: "tap 0\n\n  record; stop\r\n\tcancel", baseDirectory: Self.base)
        #expect(script.steps.map(\.line) == [1, 3, 3, 4])
        #expect(script.steps.map(\.column) == [1, 3, 11, 2])
    }

    @Test("Bare stops get take-N.mov, skipping names the script uses")
    func syntheticTakes() throws {
        let commands = try parse("stop; stop take-2.mov; stop; stop")
        #expect(
            commands == [
                .event(.stop(file("take-1.mov"))), .event(.stop(file("take-2.mov"))),
                .event(.stop(file("take-3.mov"))), .event(.stop(file("take-4.mov"))),
            ])
        #expect(CanvasScript.syntheticTake(number: 7).relativePath == "take-7.mov")
    }

    @Test("Quoted files with spaces, ';', '#' and escapes round-trip through the description")
    func quotedFiles() throws {
        let commands = try parse(#"stop "my take; #1.mov"; stop "a \"b\" \\c.mov""#)
        #expect(commands == [.event(.stop(file("my take; #1.mov"))), .event(.stop(file(#"a "b" \c.mov"#)))])
        let printed = commands.map(\.description).joined(separator: "\n")
        #expect(try parse(printed) == commands)
        #expect(CanvasEvent.stop(file("x.mov")).description == "stop x.mov")
        #expect(CanvasEvent.stop(URL(fileURLWithPath: "/abs/x.mov")).description == "stop /abs/x.mov")
    }

    @Test("The description of any script parses back to the same commands")
    func roundTrip() throws {
        var generator = EventGenerator(seed: 7)
        // The language carries no segment's start or length (a simulation supplies them from its clock).
        let events = generator.sequence(length: 300, start: BoardState(canvasCount: 4)).map { event in
            switch event {
            case .stop(let url, _, _): CanvasEvent.stop(url)
            case .recordingCutShort(let problem, let file, _, _): CanvasEvent.recordingCutShort(problem, file: file)
            default: event
            }
        }
        let script = CanvasScript(steps: events.map { .init(command: .event($0), line: 1, column: 1) })
        let reparsed = try CanvasScript(parsing: script.description, baseDirectory: Boards.directory)
        #expect(reparsed.commands == script.commands)
    }

    static let errors: [(String, Int, Int, String)] = [
        ("tapp 1", 1, 1, "unknown event 'tapp' (did you mean 'tap'?)"),
        ("record\nRecord", 2, 1, "unknown event 'Record' (did you mean 'record'?)"),
        (
            "jump", 1, 1,
            "unknown event 'jump'; expected one of tap, record, stop, cancel, delete, add, remove, scroll, disappear, appear, started, failed, cut-short, resume, undo, disarm, music, mic, wait, missing, relink"
        ),
        ("tap 0; tap", 1, 11, "'tap' needs a canvas index, e.g. 'tap 0'"),
        ("delete x", 1, 8, "'delete' expects a canvas index (an integer), got 'x'"),
        (
            "remove 99999999999999999999", 1, 8,
            "'remove' got 99999999999999999999, beyond any index (from -9223372036854775808 to 9223372036854775807)"
        ),
        (
            "tap -9223372036854775809", 1, 5,
            "'tap' got -9223372036854775809, beyond any index (from -9223372036854775808 to 9223372036854775807)"
        ),
        ("tap 1-2", 1, 5, "'tap' expects a canvas index (an integer), got '1-2'"),
        ("tap 0\u{0}", 1, 5, "'tap' expects a canvas index (an integer), got '0\\u{0}'"),
        (
            "\u{1B}[2J", 1, 1,
            "unknown event '\\u{1B}[2J'; expected one of tap, record, stop, cancel, delete, add, remove, scroll, disappear, appear, started, failed, cut-short, resume, undo, disarm, music, mic, wait, missing, relink"
        ),
        ("scroll", 1, 7, "'scroll' needs an item index, e.g. 'scroll 0'"),
        ("tap 1 2", 1, 7, "'tap' takes one canvas index, got an extra '2'"),
        ("record now", 1, 8, "'record' takes no argument, got 'now'"),
        ("started", 1, 8, "'started' needs a host time in seconds, e.g. 'started 12.5'"),
        ("started soon", 1, 9, "'started' expects a number, got 'soon'"),
        (
            "failed ringing", 1, 8,
            "'failed' expects one of notAuthorized, deviceUnavailable, call, cameraTaken, background, systemPressure, mediaServicesFailed, diskFull, other, got 'ringing'"
        ),
        ("cut-short call a.mov b.mov", 1, 22, "'cut-short' takes at most a problem and a file, got an extra 'b.mov'"),
        ("stop a.mov b.mov", 1, 12, "'stop' takes at most one file, got an extra 'b.mov'"),
        ("stop \"a.mov", 1, 6, "unterminated quoted file name (missing closing '\"')"),
        ("stop \"\"", 1, 6, "empty file name"),
        ("stop \"a\"b", 1, 9, "unexpected 'b' right after a quoted file name"),
        ("tap \"1\"", 1, 5, "'tap' expects a canvas index (an integer), got '1'"),
    ]

    @Test("Malformed scripts name the line, the column and what is wrong", arguments: 0..<errors.count)
    func malformed(errorIndex: Int) {
        let (source, line, column, message) = Self.errors[errorIndex]
        #expect {
            try parse(source)
        } throws: { error in
            guard let error = error as? CanvasScript.ParseError else { return false }
            return error.line == line && error.column == column && error.message == message
                && error.description == "line \(line), column \(column): \(message)"
        }
    }

    @Test("A UTF-8 byte-order mark at the start is skipped, in a file's bytes and in text; columns count after it")
    func byteOrderMark() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("tap 0\nrecord".utf8)
        #expect(try CanvasScript(parsing: bytes).commands == [.event(.tap(0)), .event(.record)])
        #expect(try parse("\u{FEFF}tap 1") == [.event(.tap(1))])
        #expect(throws: CanvasScript.ParseError(line: 1, column: 1, reason: .unknownWord("jump", suggestion: nil))) {
            try CanvasScript(parsing: [0xEF, 0xBB, 0xBF] + Array("jump".utf8))
        }
        // Only at the start: elsewhere it is an unknown character of a word.
        #expect(throws: CanvasScript.ParseError.self) { try parse("tap 0\n\u{FEFF}tap 1") }
    }

    @Test("A long token is cut in the message, with its length")
    func longTokenCut() {
        let word = String(repeating: "a", count: 100_000)
        let error = CanvasScript.ParseError(line: 1, column: 1, reason: .unknownWord(word, suggestion: nil))
        #expect(error.message.hasPrefix("unknown event '\(String(repeating: "a", count: 40))...' (100000 characters);"))
        #expect(error.message.count < 300)
        let number = String(repeating: "9", count: 5_000)
        let range = CanvasScript.ParseError(
            line: 1, column: 5, reason: .numberOutOfRange(word: "tap", argument: number))
        #expect(range.message.contains("(5000 characters)"))
    }
}

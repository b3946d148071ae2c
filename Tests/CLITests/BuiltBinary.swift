import Dispatch
import Foundation
import TestSupport
import Testing

/// Runs a binary built by this package (canvas-thumb, canvas-sim) the way a user would, and
/// captures what it prints and how it exits.
struct BuiltBinary {
    /// The repository root (Fixtures/ is below it).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    struct Run {
        var status: Int32
        var standardOutput: String
        var standardError: String
        /// The minor page faults of the process and of the children it waited for (its workers),
        /// when the run knows them (``RawProcess``); 0 otherwise.
        var minorPageFaults = 0
        var outputLines: [String] {
            standardOutput.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        }
        var errorLines: [String] { standardError.split(separator: "\n").map(String.init) }
    }

    let url: URL

    /// The binary named `name` beside the test bundle (the package's build folder).
    init(_ name: String) throws {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) {
                url = candidate
                return
            }
            folder.deleteLastPathComponent()
        }
        struct Missing: Error, CustomStringConvertible { let description: String }
        throw Missing(description: "\(name) is not built beside \(CommandLine.arguments[0]); run swift build first")
    }

    /// Runs the binary with `arguments` in `directory` (default: the repository root), feeding
    /// `input` to its standard input.
    func run(_ arguments: [String], in directory: URL = BuiltBinary.root, input: String = "") throws -> Run {
        let result = try runSubprocess(url, arguments, in: directory, input: Data(input.utf8))
        return Run(status: result.status, standardOutput: result.outputText, standardError: result.errorText)
    }
}

/// A fresh folder removed when the value goes away.
final class ScratchFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("CLITests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    var contents: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}

/// Runs `command` with sh on a pseudo-terminal (util-linux's `script`, part of every Debian install), expects it to
/// exit with `expectedStatus`, and returns what was drawn on the terminal.
func onTerminal(_ command: String, expectingStatus expectedStatus: Int32 = 0) throws -> String {
    let result = try runSubprocess(
        URL(fileURLWithPath: "/usr/bin/script"), ["-qec", command, "/dev/null"], in: BuiltBinary.root)
    #expect(result.status == expectedStatus, "\(command): exit \(result.status)")
    return result.outputText
}

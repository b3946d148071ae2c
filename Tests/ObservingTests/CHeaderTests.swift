import Foundation
import Testing

/// The package's own C headers (`Sources/*/include/*.h`) compile on every platform they have a branch for: as this
/// machine sees them, and as a non-Linux platform would (`__linux__` undefined). Only the Linux branch is built
/// otherwise here, so a mistake in another branch would first show on a Mac.
@Suite("The package's C headers compile for Linux and for other platforms")
struct CHeaderTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static var headers: [URL] {
        let sources = root.appendingPathComponent("Sources")
        let targets = (try? FileManager.default.contentsOfDirectory(atPath: sources.path)) ?? []
        return targets.sorted().flatMap { target -> [URL] in
            let include = sources.appendingPathComponent(target).appendingPathComponent("include")
            let files = (try? FileManager.default.contentsOfDirectory(atPath: include.path)) ?? []
            return files.filter { $0.hasSuffix(".h") }.sorted().map { include.appendingPathComponent($0) }
        }
    }

    @Test("every header compiles, with and without __linux__", arguments: [[String](), ["-U__linux__"]])
    func headersCompile(flags: [String]) throws {
        let headers = Self.headers
        #expect(!headers.isEmpty, "no header found under \(Self.root.path)/Sources/*/include")
        for header in headers {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["clang", "-fsyntax-only", "-Werror", "-x", "c"] + flags + [header.path]
            let errors = Pipe()
            process.standardError = errors
            try process.run()
            let output = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(header.lastPathComponent) \(flags): \(output)")
        }
    }
}

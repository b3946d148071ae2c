import Foundation
import Testing

@Suite("Test hooks are compiled only for tests")
struct TestHookTests {
    /// What only tests (or the benchmark) reach: each must sit inside `#if THUMBNAILS_TEST_HOOKS`
    /// (or `#if THUMBNAILS_BENCHMARK_HOOKS`), so a release build of the library has none of them
    /// on its paths: no task-local read per FFmpeg owner, no observer call per packet.
    static let hooks = [
        "LifetimeTracker", "checkObserver", "alwaysProbe", "decodeCount", "decodes", "init(generator:", "@TaskLocal",
        "peakRunning", "admittedCount",
    ]
    /// `@TaskLocal` is also the FFmpeg log collector's, which is not a hook.
    static let allowed = ["static var current: LogCollector?"]

    @Test(
        "every use of a test hook in Sources/Thumbnails, MediaCore and CoverBatch is inside #if THUMBNAILS_TEST_HOOKS")
    func hooksCompiledOut() throws {
        let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        var files: [URL] = []
        for module in ["Thumbnails", "MediaCore", "CoverBatch"] {
            let sources = root.appending(path: "Sources/\(module)")
            files += try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
                .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
        }
        #expect(files.count > 40)
        var uses = 0
        for file in files {
            // The conditions of the #if blocks around each line; `#else` negates the innermost.
            var conditions: [String] = []
            for (number, line) in try String(contentsOf: file, encoding: .utf8).components(separatedBy: "\n")
                .enumerated()
            {
                let code = line.trimmingCharacters(in: .whitespaces)
                if code.hasPrefix("#if ") {
                    conditions.append(String(code.dropFirst(4)))
                } else if code.hasPrefix("#else") || code.hasPrefix("#elseif") {
                    conditions[conditions.count - 1] = "!" + conditions[conditions.count - 1]
                } else if code.hasPrefix("#endif") {
                    conditions.removeLast()
                } else if !code.hasPrefix("//"), Self.hooks.contains(where: code.contains),
                    !Self.allowed.contains(where: code.contains)
                {
                    uses += 1
                    let guarded = conditions.contains {
                        $0 == "THUMBNAILS_TEST_HOOKS" || $0 == "THUMBNAILS_BENCHMARK_HOOKS"
                    }
                    #expect(guarded, "\(file.lastPathComponent):\(number + 1): \(code)")
                }
            }
        }
        #expect(uses > 10, "the scan found the hooks")
    }
}

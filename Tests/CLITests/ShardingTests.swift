import Foundation
import Testing

/// The recipe of Docs/Covers-at-scale.md: a sorted list split round-robin into shards, one canvas-thumb process per
/// shard with its own output folder, the JSON lines of all shards together as the result.
@Suite("canvas-thumb sharded over several processes")
struct ShardingTests {
    /// Runs `script` with bash in `directory`, with canvas-thumb's folder first on PATH.
    private func bash(_ script: String, in directory: URL) throws -> (status: Int32, error: String) {
        let tool = try BuiltBinary("canvas-thumb")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", script]
        process.currentDirectoryURL = directory
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = tool.url.deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        process.environment = environment
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, message)
    }

    /// The JSON objects of `text`, one per line.
    private func objects(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    @Test("every input is covered by exactly one shard, and the shards together say what one run says")
    func shardsCoverTheLibraryOnce() throws {
        let work = try ScratchFolder()
        let fixtures = BuiltBinary.root.appendingPathComponent("Fixtures")
        let library = work.url.appendingPathComponent("videos")
        for (folder, names) in [
            ("day1", ["h264.mp4", "hevc.mp4", "vp9.webm"]),
            ("day2", ["h264.mp4", "rotation-90.mp4", "not-a-video.mp4"]),
            ("day2/extra", ["mpeg4.avi", "anamorphic.mp4"]),
        ] {
            let target = library.appendingPathComponent(folder)
            try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
            for name in names {
                try FileManager.default.copyItem(
                    at: fixtures.appendingPathComponent(name), to: target.appendingPathComponent(name))
            }
        }
        // The recipe, as documented (find, sort, split round-robin, one process per shard with its own folder).
        let recipe = try bash(
            """
            set -e
            find videos -type f \\( -iname '*.mp4' -o -iname '*.webm' -o -iname '*.avi' \\) | LC_ALL=C sort >list.txt
            split -n r/4 -d list.txt shard-
            ls shard-?? | xargs -P 4 -I{} sh -c \\
                'mkdir -p covers/{} && canvas-thumb - --jobs 1 --json --max-size 64x64 --output-dir covers/{} <{} >{}.jsonl; [ $? -le 1 ]'
            cat shard-??.jsonl >covers.jsonl
            mkdir -p single
            canvas-thumb - --json --max-size 64x64 --output-dir single <list.txt >single.jsonl || [ $? -le 1 ]
            """, in: work.url)
        #expect(recipe.status == 0, "\(recipe.error)")

        let list = try String(contentsOf: work.url.appendingPathComponent("list.txt"), encoding: .utf8)
            .split(separator: "\n").map(String.init)
        #expect(list.count == 8)
        let shardFiles = try FileManager.default.contentsOfDirectory(atPath: work.url.path)
            .filter { $0.hasPrefix("shard-") && !$0.hasSuffix(".jsonl") }
        #expect(shardFiles.count == 4, "four shards")

        let lines = try objects(
            try String(contentsOf: work.url.appendingPathComponent("covers.jsonl"), encoding: .utf8))
        let inputs = lines.compactMap { $0["input"] as? String }
        #expect(inputs.sorted() == list.sorted(), "each input in exactly one shard's lines")
        #expect(Set(inputs).count == inputs.count)

        for line in lines {
            let input = try #require(line["input"] as? String)
            if input.hasSuffix("not-a-video.mp4") {
                #expect(line["output"] is NSNull)
                #expect((line["error"] as? String)?.isEmpty == false, "the broken file is reported with its reason")
                continue
            }
            #expect(line["error"] is NSNull, "\(input): \(line["error"] ?? "")")
            let output = try #require(line["output"] as? String)
            let bytes = try Data(contentsOf: work.url.appendingPathComponent(output))
            #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]), "\(output) is a PNG")
            // The PNG header's width and height (big-endian, at bytes 16 and 20) are the reported ones.
            let width = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
            let height = bytes[20..<24].reduce(0) { $0 << 8 | Int($1) }
            #expect(width == line["width"] as? Int && height == line["height"] as? Int)
            #expect(output.hasPrefix("covers/shard-"), "each shard writes into its own folder")
        }

        // The same answers as one process over the whole list, output folders aside.
        func comparable(_ objects: [[String: Any]]) -> [String] {
            objects.map { object in
                let output = (object["output"] as? String).map { URL(fileURLWithPath: $0).lastPathComponent } ?? "-"
                return [object["input"], output, object["width"], object["height"], object["actualTime"]]
                    .map { "\($0 ?? "-")" }.joined(separator: " ")
            }.sorted()
        }
        let single = try objects(
            try String(contentsOf: work.url.appendingPathComponent("single.jsonl"), encoding: .utf8))
        // Names may differ (h264.png vs h264-2.png) only where two inputs of one process share a stem.
        let strip = { (line: String) in line.replacingOccurrences(of: "-2.png", with: ".png") }
        #expect(comparable(lines).map(strip) == comparable(single).map(strip))
    }
}

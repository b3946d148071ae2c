import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// File names as bytes, for the tests of names that are not UTF-8.
enum OddNames {
    /// Latin-1 `café.mp4`, a 0xFF byte, a line break, a tab, a control character, a literal percent sign: with how
    /// `--json` prints each (percent-encoded only when the name is not UTF-8; a UTF-8 name exactly, its control
    /// characters escaped by JSON).
    static let all: [(bytes: [UInt8], escaped: String)] = [
        (Array("caf".utf8) + [0xE9] + Array(".mp4".utf8), "caf%E9"),
        ([0x61, 0xFF, 0x62] + Array(".mp4".utf8), "a%FFb"),
        (Array("new\nline.mp4".utf8), #"new\nline"#),
        (Array("tab\tx.mp4".utf8), #"tab\tx"#),
        (Array("ctl\u{01}x.mp4".utf8), #"ctl\u0001x"#),
        (Array("ctl%01x.mp4".utf8), "ctl%01x"),
    ]

    /// `folder`'s path followed by `/` and `name`.
    static func path(_ folder: URL, _ name: [UInt8]) -> [UInt8] {
        Array(folder.path.utf8) + [UInt8(ascii: "/")] + name
    }

    /// `name` with its extension replaced by `.png`.
    static func cover(_ name: [UInt8]) -> [UInt8] {
        Array(name.prefix(upTo: name.lastIndex(of: UInt8(ascii: ".")) ?? name.endIndex)) + Array(".png".utf8)
    }

    /// Copies the fixture `fixture` to the byte path `path`.
    static func copy(_ fixture: String, to path: [UInt8]) throws {
        let data = try Data(contentsOf: BuiltBinary.root.appendingPathComponent("Fixtures/\(fixture)"))
        let file = withCString(path) { open($0, O_WRONLY | O_CREAT | O_TRUNC, 0o644) }
        guard file >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(file) }
        _ = data.withUnsafeBytes { write(file, $0.baseAddress, $0.count) }
    }

    /// The first bytes of the file at the byte path `path`, or nil when it cannot be opened.
    static func head(_ path: [UInt8]) -> [UInt8]? {
        let file = withCString(path) { open($0, O_RDONLY) }
        guard file >= 0 else { return nil }
        defer { close(file) }
        var buffer = [UInt8](repeating: 0, count: 8)
        let count = buffer.withUnsafeMutableBytes { read(file, $0.baseAddress, 8) }
        return Array(buffer.prefix(max(0, count)))
    }

    static func withCString<Result>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>) -> Result) -> Result {
        (bytes + [0]).withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { body($0.baseAddress!) }
        }
    }
}

@Suite("canvas-thumb: any file name, faults that leave nothing behind, one bad file never costs the batch")
struct CanvasThumbFaultTests {
    let tool: BuiltBinary
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    init() throws {
        tool = try BuiltBinary("canvas-thumb")
    }

    @Test("a file name that is not UTF-8 works as the input and as -o; JSON percent-encodes only such names")
    func oddNamesAsArguments() throws {
        let scratch = try ScratchFolder()
        for (name, escaped) in OddNames.all {
            let input = OddNames.path(scratch.url, name)
            try OddNames.copy("h264.mp4", to: input)
            let output = OddNames.path(scratch.url, OddNames.cover(name))
            let run = try tool.run(bytes: [input, Array("-o".utf8), output, Array("--json".utf8)])
            #expect(run.status == 0, "\(run.standardError)")
            #expect(run.outputLines.count == 1, "one line, even for a name holding a line break")
            #expect(
                run.standardOutput.contains(#""input":"\#(scratch.url.path)/\#(escaped).mp4""#), "\(run.standardOutput)"
            )
            #expect(run.standardOutput.contains(#""output":"\#(scratch.url.path)/\#(escaped).png""#))
            #expect(OddNames.head(output) == Self.png, "the cover is at the exact bytes of -o")
        }
    }

    @Test("file names that are not UTF-8 work in a list on standard input and in a folder walk")
    func oddNamesInListsAndWalks() throws {
        let inputs = try ScratchFolder()
        for (name, _) in OddNames.all { try OddNames.copy("h264.mp4", to: OddNames.path(inputs.url, name)) }

        // One path per line (the names without a line break), and NUL-separated (all of them).
        let lines: [UInt8] = OddNames.all.prefix(2).flatMap { entry -> [UInt8] in
            OddNames.path(inputs.url, entry.bytes) + [UInt8(ascii: "\n")]
        }
        let nulSeparated: [UInt8] = OddNames.all.flatMap { entry -> [UInt8] in
            OddNames.path(inputs.url, entry.bytes) + [0]
        }
        for list in [lines, nulSeparated] {
            let out = try ScratchFolder()
            let run = try tool.run(
                bytes: [Array("-".utf8), Array("--output-dir".utf8), Array(out.url.path.utf8), Array("--json".utf8)],
                input: list)
            #expect(run.status == 0, "\(run.standardError)")
            let expected = list == lines ? 2 : OddNames.all.count
            #expect(run.outputLines.count == expected)
            for (name, _) in OddNames.all.prefix(expected) {
                #expect(OddNames.head(OddNames.path(out.url, OddNames.cover(name))) == Self.png)
            }
        }

        // A folder walk: every file found, none skipped, covers named with the same bytes.
        let out = try ScratchFolder()
        let walk = try tool.run(
            bytes: [
                Array(inputs.url.path.utf8), Array("--output-dir".utf8), Array(out.url.path.utf8), Array("--json".utf8),
            ])
        #expect(walk.status == 0, "\(walk.standardError)")
        #expect(walk.outputLines.count == OddNames.all.count, "\(walk.standardOutput)")
        #expect(walk.outputLines.allSatisfy { $0.hasSuffix(#""error":null,"errorKind":null}"#) })
        for (name, escaped) in OddNames.all {
            #expect(OddNames.head(OddNames.path(out.url, OddNames.cover(name))) == Self.png)
            #expect(walk.standardOutput.contains(#""input":"\#(inputs.url.path)/\#(escaped).mp4""#))
        }
    }

    @Test("a link at -o is replaced by the cover; the file it points to is untouched")
    func linkAtOutput() throws {
        let scratch = try ScratchFolder()
        let victim = scratch.url.appendingPathComponent("victim.txt")
        try Data("precious".utf8).write(to: victim)
        let output = scratch.url.appendingPathComponent("cover.png")
        try FileManager.default.createSymbolicLink(at: output, withDestinationURL: victim)
        let run = try tool.run(["Fixtures/h264.mp4", "-o", output.path])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(try Data(contentsOf: victim) == Data("precious".utf8))
        #expect(OddNames.head(Array(output.path.utf8)) == Self.png)
        #expect(
            try FileManager.default.attributesOfItem(atPath: output.path)[.type] as? FileAttributeType == .typeRegular)
    }

    /// Starts a batch of `count` covers of one fixture into `out` and waits until it has
    /// `written` covers and a worker process per job is running (a guard against a hang: at most 120 s).
    ///
    /// The batch runs at a lower priority (nice 10, which its workers inherit) until then: under ThreadSanitizer with
    /// the whole suite running, this thread once waited for a core while a batch of 60 started and ended, and saw no
    /// worker. At nice 10 the batch gets about a tenth of what this thread gets whenever both can run. Afterwards
    /// the batch and its workers are put back to the priority of the tests (allowed to root, as in CI; otherwise it
    /// stays lower, which only makes the rest of the batch slower).
    private func startBatch(count: Int, jobs: Int, into out: URL, until written: Int) throws -> (RawProcess, [pid_t]) {
        let arguments =
            Array(
                repeating: Array(BuiltBinary.root.appendingPathComponent("Fixtures/h264.mp4").path.utf8), count: count)
            + [
                "--output-dir", out.path, "--json", "--jobs", "\(jobs)", "--max-size", "64x64",
            ].map { Array($0.utf8) }
        let batch = try RawProcess(tool.url, arguments)
        let process = __priority_which_t(PRIO_PROCESS.rawValue)
        let ownPriority = getpriority(process, 0)
        setpriority(process, id_t(batch.pid), 10)
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline {
            let workers = batch.children
            let covers = (try? FileManager.default.contentsOfDirectory(atPath: out.path))?.filter {
                $0.hasSuffix(".png")
            }
            // Every job's worker, not just the first: the batch forks them one after another, and under load the
            // first can write covers before the second exists.
            if workers.count >= jobs, (covers?.count ?? 0) >= written {
                for pid in [batch.pid] + workers { setpriority(process, id_t(pid), ownPriority) }
                return (batch, workers)
            }
            usleep(2000)
        }
        return (batch, [])
    }

    @Test("a worker crashing (SIGSEGV) on one input costs that input only: reported in its line, exit 1")
    func crashCostsOneInput() throws {
        let out = try ScratchFolder()
        let count = 60
        let (batch, workers) = try startBatch(count: count, jobs: 1, into: out.url, until: 1)
        let worker = try #require(workers.first, "the batch should run its inputs in a worker process")
        // What a crash inside FFmpeg does to the worker, sent from outside (no hook in the tool).
        kill(worker, SIGSEGV)
        let run = try batch.wait()
        #expect(run.status == 1)
        let lines = run.outputLines
        #expect(lines.count == count, "one line per input, the crashed one included")
        let crashed = lines.filter { !$0.hasSuffix(#""error":null,"errorKind":null}"#) }
        #expect(crashed.count == 1)
        #expect(
            crashed.first?.contains("crashed while making its cover (signal 11: Segmentation fault)") == true
                && crashed.first?.hasSuffix(#","errorKind":"crashed"}"#) == true,
            "\(crashed)")
        // Every other cover is written. The crashed input's own cover may be there too, complete: the signal can land
        // after its atomic rename and before the worker answered (the batch then reports the crash, and leaves the
        // file, which may as well be an earlier run's).
        let covers = out.contents.filter { $0.hasSuffix(".png") }
        #expect(covers.count == count - 1 || covers.count == count, "every other cover is written: \(covers.count)")
        for cover in covers {
            let bytes = try Data(contentsOf: out.url.appendingPathComponent(cover))
            #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) && bytes.count > 64, "\(cover) is a whole PNG")
        }
        #expect(out.contents.allSatisfy { !$0.hasPrefix(".") }, "no temporary file left: \(out.contents)")
        #expect(run.standardError.isEmpty, "\(run.standardError)")
    }

    /// The command line of process `pid` (its arguments joined by spaces), from /proc.
    private func commandLine(of pid: pid_t) -> String {
        let bytes = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))) ?? Data()
        return String(decoding: bytes.map { $0 == 0 ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
    }

    /// What each open descriptor of process `pid` refers to (`socket:[...]`, a path), by number.
    private func descriptors(of pid: pid_t) -> [Int: String] {
        let folder = "/proc/\(pid)/fd"
        var result: [Int: String] = [:]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            if let number = Int(entry),
                let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/\(entry)")
            {
                result[number] = target
            }
        }
        return result
    }

    @Test(
        "a batch's first workers are forked from it, holding nothing of it but their socket; one after a crash is started anew"
    )
    func forkedWorkers() throws {
        let out = try ScratchFolder()
        // Far more inputs than the batch makes while this thread looks at its workers: under ThreadSanitizer with the
        // whole suite running, this thread once got the processor back only after a batch of 400 had ended, and then
        // the worker it crashed had nothing left to be replaced for.
        let (batch, workers) = try startBatch(count: 4_000, jobs: 2, into: out.url, until: 1)
        defer {
            kill(-batch.pid, SIGKILL)
            _ = try? batch.wait()
        }
        #expect(workers.count == 2, "one worker per job: \(workers)")
        for worker in workers {
            // Forked: the batch's own command line, not the worker flag a started worker gets.
            #expect(!commandLine(of: worker).contains("--cover-worker"), "\(commandLine(of: worker).prefix(120))")
            let open = descriptors(of: worker)
            #expect(open[0]?.hasPrefix("socket:") == true, "its socket as standard input: \(open)")
            #expect(open[1] == "/dev/null" && open[2] == "/dev/null", "\(open)")
            // Not the batch's end of another worker's socket, nor the batch's standard output or error (files here).
            #expect(open.values.filter { $0.hasPrefix("socket:") }.count == 1, "\(open)")
            #expect(!open.values.contains { $0.hasSuffix("/stdout") || $0.hasSuffix("/stderr") }, "\(open)")
        }
        let crashed = try #require(workers.first)
        #expect(batch.children.contains(crashed), "the batch should still be running that worker")
        kill(crashed, SIGSEGV)
        var fresh: [pid_t] = []
        let deadline = Date().addingTimeInterval(30)
        while fresh.isEmpty, Date() < deadline {
            fresh = batch.children.filter { !workers.contains($0) }
            usleep(2000)
        }
        let started = try #require(fresh.first, "a fresh worker takes the crashed one's place")
        // Started anew once the batch's threads run: a copy of a multi-threaded process may not run FFmpeg.
        var line = commandLine(of: started)
        while !line.contains("--cover-worker"), Date() < deadline {
            usleep(2000)  // between its fork and its exec, /proc shows the batch's command line
            line = commandLine(of: started)
        }
        #expect(line.contains("--cover-worker"), "\(line.prefix(120))")
    }

    @Test("a batch killed with SIGKILL leaves only complete covers; the next run removes the temporary files it left")
    func killedBatch() throws {
        let out = try ScratchFolder()
        // Many more inputs than it writes before the kill: under ThreadSanitizer with the whole suite running, a batch
        // of 60 once ended before this thread saw its workers and three covers at the same time.
        let (batch, workers) = try startBatch(count: 400, jobs: 2, into: out.url, until: 3)
        #expect(!workers.isEmpty, "the batch should still be running its workers: \(out.contents.count) files")
        kill(-batch.pid, SIGKILL)  // the batch and its workers, mid-write or not
        let killed = try batch.wait()
        #expect(killed.status == 128 + SIGKILL)
        // A worker in the middle of a system call dies when the call returns (then it is a zombie until reaped):
        // the next run below must find its temporary file abandoned, so it starts once the workers have ended.
        let deadline = Date().addingTimeInterval(30)
        while workers.contains(where: RawProcess.isRunning), Date() < deadline {
            usleep(2000)
        }
        #expect(!workers.contains(where: RawProcess.isRunning), "the killed workers should have ended")
        for name in out.contents where !name.hasPrefix(".") {
            let bytes = try [UInt8](Data(contentsOf: out.url.appendingPathComponent(name)))
            #expect(bytes.starts(with: Self.png), "\(name) is a complete PNG")
            #expect(bytes.suffix(8) == [0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82], "\(name) ends with IEND")
        }
        // What a writer killed mid-write leaves (the kill above may have hit between writes).
        let abandoned = ".h264-9.png.cover-tmp-\(batch.pid)-Zz0Zz0"
        try Data("partial".utf8).write(to: out.url.appendingPathComponent(abandoned))
        let next = try tool.run(["Fixtures/h264.mp4", "-o", out.url.appendingPathComponent("next.png").path])
        #expect(next.status == 0, "\(next.standardError)")
        #expect(out.contents.allSatisfy { !$0.hasPrefix(".") }, "temporary files removed: \(out.contents)")
        #expect(out.contents.contains("next.png"))
    }

    @Test(
        "a disk filling mid-cover (a file-size limit) fails it in one line, leaving the old file and nothing else",
        .disabled(
            if: ProcessInfo.processInfo.environment["MULTICANVAS_SANITIZER"] != nil,
            "a sanitizer's runtime writes files of its own, and a file-size limit stops it with SIGBUS"),
        arguments: [false, true])
    func fileSizeLimit(inWorkers: Bool) throws {
        let scratch = try ScratchFolder()
        let input = BuiltBinary.root.appendingPathComponent("Fixtures/h264.mp4").path
        let output = scratch.url.appendingPathComponent("h264.png")
        try Data("previous".utf8).write(to: output)
        let arguments =
            inWorkers
            ? [
                input, BuiltBinary.root.appendingPathComponent("Fixtures/hevc.mp4").path, "--output-dir",
                scratch.url.path,
                "--jobs", "2",
            ]
            : [input, "-o", output.path]
        // A limit of 2 blocks (1-2 KiB) with SIGXFSZ ignored: write(2) writes up to the limit, then fails with EFBIG,
        // as on a disk that fills mid-file. The workers inherit both.
        let run = try runSubprocess(
            URL(fileURLWithPath: "/bin/sh"),
            ["-c", #"ulimit -f 2 && trap '' XFSZ && exec "$0" "$@""#, tool.url.path] + arguments)
        #expect(run.status == 1, "\(run.errorText)")
        let failures = run.errorText.split(separator: "\n").filter { $0.contains("cannot write: File too large") }
        #expect(failures.count == (inWorkers ? 2 : 1), "\(run.errorText)")
        #expect(try Data(contentsOf: output) == Data("previous".utf8))
        #expect(scratch.contents == ["h264.png"], "no temporary file left")
    }
}

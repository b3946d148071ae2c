import CoverBatch
import Foundation
import Locking
import Testing
import Thumbnails

@Suite("CoverBatchReporter: results printed in input order, in text or JSON")
struct CoverBatchReporterTests {
    /// Every event a reporter emits, in order.
    final class Recorder: Sendable {
        private let events = LockedValue<[CoverBatchReporter.Event]>([])
        func record(_ event: CoverBatchReporter.Event) { events.withLock { $0.append(event) } }
        var lines: [CoverBatchReporter.Event] {
            events.withLock { $0.filter { if case .progress = $0 { false } else { true } } }
        }
        var all: [CoverBatchReporter.Event] { events.withLock { $0 } }
    }

    func result(_ index: Int, _ name: String, failing: Bool = false, warnings: [String] = []) -> CoverJobResult {
        let job = CoverJob(input: FileSystemPath("in/\(name).mp4"), output: FileSystemPath("out/\(name).png"))
        let outcome: Result<WrittenCover, CoverJobError> =
            failing
            ? .failure(CoverJobError(.cover(.notAMediaFile), reason: "in/\(name).mp4: not a media file"))
            : .success(WrittenCover(width: 32, height: 18, actualTime: 1.5, warnings: warnings))
        return CoverJobResult(index: index, job: job, result: outcome)
    }

    @Test("results arriving out of order are printed in input order, as soon as the earlier ones are in")
    func order() {
        let recorder = Recorder()
        let reporter = CoverBatchReporter(programName: "tool", json: false, emit: recorder.record)
        reporter.report(result(2, "c"))
        #expect(recorder.lines.isEmpty, "input 2 waits for 0 and 1")
        reporter.report(result(0, "a"))
        #expect(recorder.lines == [.output("in/a.mp4 -> out/a.png (32x18 at 1.500 s)")])
        reporter.report(result(1, "b", failing: true))
        #expect(
            recorder.lines == [
                .output("in/a.mp4 -> out/a.png (32x18 at 1.500 s)"), .error("tool: in/b.mp4: not a media file"),
                .output("in/c.mp4 -> out/c.png (32x18 at 1.500 s)"),
            ])
        #expect(reporter.failures == 1)
        #expect(
            recorder.all.suffix(3) == [
                .progress(done: 3, failed: 1), .error("tool: in/b.mp4: not a media file"),
                .output("in/c.mp4 -> out/c.png (32x18 at 1.500 s)"),
            ], "the count includes the results printed after it")
    }

    @Test("JSON lines have exactly the seven fields; warnings and unreadable folders are reported")
    func json() throws {
        let recorder = Recorder()
        let reporter = CoverBatchReporter(programName: "tool", json: true, emit: recorder.record)
        reporter.report(
            unreadable: CoverInputs.UnreadableEntry(
                path: FileSystemPath(bytes: [0x64, 0xFF])!,
                error: ThumbnailError(.notReadable, reason: "d%FF: cannot list the directory: Permission denied")))
        reporter.report(result(0, "a", warnings: ["cut short"]))
        reporter.report(result(1, "b", failing: true))
        #expect(
            recorder.lines == [
                .output(
                    #"{"input":"d%FF","output":null,"width":null,"height":null,"actualTime":null,"#
                        + #""error":"d%FF: cannot list the directory: Permission denied","errorKind":"unreadable"}"#),
                .output(
                    #"{"input":"in/a.mp4","output":"out/a.png","width":32,"height":18,"actualTime":1.5,"#
                        + #""error":null,"errorKind":null}"#),
                .error("tool: warning: in/a.mp4: cut short"),
                .output(
                    #"{"input":"in/b.mp4","output":null,"width":null,"height":null,"actualTime":null,"#
                        + #""error":"in/b.mp4: not a media file","errorKind":"notVideo"}"#),
            ])
        #expect(reporter.failures == 2)
    }

    @Test("quotes and backslashes in names and reasons are escaped by the one JSON writer (OrderedJSON's JSONLine)")
    func jsonEscapes() {
        let recorder = Recorder()
        let reporter = CoverBatchReporter(programName: "tool", json: true, emit: recorder.record)
        let job = CoverJob(input: FileSystemPath(#"in/say "hi"\.mp4"#), output: FileSystemPath("out/x.png"))
        let error = CoverJobError(.cover(.notAMediaFile), reason: #"in/say "hi"\.mp4: not a media file"#)
        reporter.report(CoverJobResult(index: 0, job: job, result: .failure(error)))
        let expected =
            #"{"input":"in/say \"hi\"\\.mp4","output":null,"width":null,"height":null,"actualTime":null,"#
            + #""error":"in/say \"hi\"\\.mp4: not a media file","errorKind":"notVideo"}"#
        #expect(recorder.lines == [.output(expected)])
    }

    @Test("every kind of failure has an errorKind of the documented nine, the same one each time")
    func errorKinds() {
        let kinds = ThumbnailError.Kind.allCases.map(CoverJobError.Kind.cover) + [.timedOut, .crashed]
        let names = kinds.map(CoverBatchReporter.errorKindName)
        #expect(
            Set(names) == [
                "missing", "unreadable", "notVideo", "damaged", "unsupported", "timedOut", "crashed", "writeFailed",
                "refused",
            ])
        #expect(CoverBatchReporter.errorKindName(.cover(.decodeFailed)) == "damaged")
        #expect(CoverBatchReporter.errorKindName(.crashed) == "crashed")
        #expect(CoverBatchReporter.errorKindName(.cover(.noVideoStream)) == "notVideo")
    }

    @Test("many threads reporting at once still print every result once, in order")
    func concurrentReports() {
        let recorder = Recorder()
        let reporter = CoverBatchReporter(programName: "tool", json: false, emit: recorder.record)
        let count = 200
        DispatchQueue.concurrentPerform(iterations: count) { index in
            reporter.report(result((index * 37) % count, "n\((index * 37) % count)"))
        }
        #expect(recorder.lines == (0..<count).map { .output("in/n\($0).mp4 -> out/n\($0).png (32x18 at 1.500 s)") })
    }
}

import CommandLineSupport
import Testing

@Suite("Command-line support")
struct CommandLineSupportTests {
    @Test("JSON lines keep key order and escape strings")
    func jsonLine() {
        var inner = JSONLine()
        inner.add("index", .int(0))
        inner.add("ok", .bool(true))
        var line = JSONLine()
        line.add("input", .string("a \"b\"\\c\n\u{1}é"))
        line.add("output", .nullable(nil))
        line.add("time", .double(0.04))
        line.add("bad", .double(.nan))
        line.add("items", .array([.object(inner), .null]))
        #expect(
            line.description
                == #"{"input":"a \"b\"\\c\n\u0001é","output":null,"time":0.04,"bad":null,"items":[{"index":0,"ok":true},null]}"#
        )
    }

    @Test("the progress line fills in proportion and is invisible when asked")
    func progressLine() {
        let progress = ProgressLine(total: 4, visible: false)
        #expect(!progress.isVisible)
        #expect(progress.text(done: 0, failed: 0) == "[" + String(repeating: "-", count: 30) + "] 0/4 0%")
        #expect(progress.text(done: 2, failed: 1).hasPrefix("[" + String(repeating: "#", count: 15) + "-"))
        #expect(progress.text(done: 2, failed: 1).hasSuffix("2/4 50% (1 failed)"))
        #expect(progress.text(done: 4, failed: 0).contains(String(repeating: "#", count: 30)))
    }
}

import Observing
import Testing

final class Doc: KeyValueObservable {
    @Observed var title = ""
}

@Suite struct SmokeTests {
    @Test func observesTitle() {
        let doc = Doc()
        let seen = Recorder<String?>()
        let token = doc.observe(\.title) { _, change in seen.append(change.newValue) }
        doc.title = "a"
        #expect(seen.values == ["a"])
        token.invalidate()
    }
}

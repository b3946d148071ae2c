import Observing
import TestSupport
import Testing

/// O4: typed key paths, including chains; replacing a middle object re-targets the observation.
@Suite struct ChainTests {
    @Test func endValueChangeNotifies() {
        let folder = Folder(document: Document(title: "a"))
        let seen = Recorder<String>()
        let token = folder.observe(\.document?.title, options: [.old, .new]) { _, change in
            seen.append("\(String(describing: change.oldValue!))->\(String(describing: change.newValue!))")
        }
        folder.document?.title = "b"
        #expect(seen.values == [#"Optional("a")->Optional("b")"#])
        token.invalidate()
    }

    @Test func replacingTheMiddleRetargets() {
        let old = Document(title: "old")
        let new = Document(title: "new")
        let folder = Folder(document: old)
        let seen = Recorder<String?>()
        let token = folder.observe(\.document?.title) { _, change in seen.append(change.newValue!) }
        folder.document = new
        #expect(seen.values == ["new"])
        old.title = "ignored: no longer on the path"
        #expect(seen.values == ["new"])
        new.title = "seen"
        #expect(seen.values == ["new", "seen"])
        token.invalidate()
    }

    @Test func replacingTheMiddleWithAnEqualEndValueDoesNotNotify() {
        let folder = Folder(document: Document(title: "same"))
        let replacement = Document(title: "same")
        let calls = CallCounter()
        let token = folder.observe(\.document?.title) { _, _ in calls.increment() }
        folder.document = replacement
        #expect(calls.count == 0)
        replacement.title = "changed"
        #expect(calls.count == 1)
        token.invalidate()
    }

    @Test func nilMiddle() {
        let document = Document(title: "a", isFavorite: true)
        let folder = Folder(document: document)
        let seen = Recorder<String>()
        let token = folder.observe(\.document?.isFavorite, options: [.old, .new]) { _, change in
            seen.append("\(String(describing: change.oldValue!))->\(String(describing: change.newValue!))")
        }
        folder.document = nil
        document.isFavorite = false
        folder.document = Document(isFavorite: true)
        #expect(seen.values == ["Optional(true)->nil", "nil->Optional(true)"])
        token.invalidate()
    }

    @Test func threeLevelChain() {
        let library = Library()
        let seen = Recorder<String?>()
        let token = library.observe(\.folder.document?.title, options: [.initial, .new]) { _, change in
            seen.append(change.newValue!)
        }
        library.folder.document = Document(title: "one")
        let replacement = Folder(document: Document(title: "two"))
        let detached = library.folder
        library.folder = replacement
        detached.document?.title = "ignored"
        replacement.document?.title = "three"
        #expect(seen.values == [nil, "one", "two", "three"])
        token.invalidate()
    }

    @Test func computedPropertyIsObservedThroughWhatItReads() {
        let folder = Folder(document: Document(title: "t"))
        folder.name = "n"
        let seen = Recorder<String>()
        let token = folder.observe(\.summary) { _, change in seen.append(change.newValue!) }
        folder.name = "m"
        folder.document?.title = "u"
        folder.document = nil
        #expect(seen.values == ["m: t", "m: u", "m: -"])
        token.invalidate()
    }

    @Test func chainWithPriorOptionGetsAPriorBeforeEachChange() {
        let folder = Folder(document: Document(title: "a"))
        let seen = Recorder<String>()
        let token = folder.observe(\.document?.title, options: [.prior, .old, .new]) { folder, change in
            seen.append(
                "\(change.isPrior ? "prior" : "change") old=\(change.oldValue!!) new=\(String(describing: change.newValue))"
            )
        }
        folder.document?.title = "b"
        #expect(seen.values == ["prior old=a new=nil", "change old=a new=Optional(Optional(\"b\"))"])
        token.invalidate()
    }

    @Test func chainDoesNotRetainObjectsOnThePath() {
        let tracker = LifetimeTracker()
        let folder = Folder()
        let token: ObservationToken
        do {
            let document = tracker.watch(Document(title: "a"))
            folder.document = document
            token = folder.observe(\.document?.title) { _, _ in }
            folder.document = nil
        }
        tracker.expectAllFreed()
        #expect(token.isActive)
        folder.document = Document(title: "b")
        token.invalidate()
    }

    @Test func chainReportsTheKeyPathInDiagnostics() {
        let folder = Folder(document: Document())
        let token = folder.observe(\.document?.title) { _, _ in }
        let records = ObservationDiagnostics.liveObservations(of: folder)
        #expect(records.count == 1)
        #expect(records.first?.keyPath == "\\Folder.document.title")
        token.invalidate()
    }

    @Test func keyPathThatReadsNothingObservableIsReported() {
        let folder = Folder()
        let reports = Recorder<String>()
        let handler = ObservationDiagnostics.addIssueHandler { issue in
            if case .unobservableKeyPath(let type, _) = issue, type.hasSuffix("Folder") {
                reports.append(issue.description)
            }
        }
        let token = folder.observe(\.constant) { _, _ in }
        #expect(reports.values.count == 1)
        token.invalidate()
        handler.invalidate()
    }
}

extension Folder {
    var constant: Int { 42 }
}

extension ChainTests {
    /// A direct observer of `note` is not told of an equal replacement (equal values do not notify), but
    /// a chain through `note` still re-targets to the new instance.
    @Test func equalButDifferentMiddleStillRetargets() {
        let notebook = Notebook()
        let direct = CallCounter()
        let texts = Recorder<String>()
        let noteToken = notebook.observe(\.note) { _, _ in direct.increment() }
        let textToken = notebook.observe(\.note.text) { _, change in texts.append(change.newValue!) }
        let replacement = Note(id: 1, text: "second")
        notebook.note = replacement
        #expect(direct.count == 0)
        #expect(texts.values == ["second"])
        replacement.text = "third"
        #expect(texts.values == ["second", "third"])
        noteToken.invalidate()
        textToken.invalidate()
    }
}

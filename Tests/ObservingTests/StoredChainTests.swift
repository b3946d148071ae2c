import Foundation
import Observing
import TestSupport
import Testing

/// Models whose chains are stored properties all the way (no optional chaining): a change of the last property is
/// read from its storage without evaluating the path again, as long as the properties before it are unchanged.
private final class Page: KeyValueObservable, @unchecked Sendable {
    // Why `@unchecked Sendable` is safe: the only stored property is `@Observed` (its value lives behind its lock).
    @Observed var text: String

    init(_ text: String) { self.text = text }
}

private final class Book: KeyValueObservable, @unchecked Sendable {
    // Why `@unchecked Sendable` is safe: every stored property is `@Observed`.
    @Observed var title: String
    @Observed var page: Page
    @Observed var rating = 0

    /// Computed from `title`: a path ending here is not a path of stored properties.
    var loudTitle: String { title.uppercased() }

    init(_ title: String, page: String = "p") {
        self.title = title
        self.page = Page(page)
    }
}

private final class Shelf: KeyValueObservable, @unchecked Sendable {
    // Why `@unchecked Sendable` is safe: the only stored property is `@Observed`.
    @Observed var book: Book

    init(_ book: Book) { self.book = book }
}

@Suite("Chains of stored properties: the last property's changes without re-evaluating the path")
struct StoredChainTests {
    @Test("the last property's changes are delivered with the right old and new values; equal writes are not")
    func lastPropertyChanges() {
        let shelf = Shelf(Book("a"))
        let seen = Recorder<String>()
        let token = shelf.observe(\.book.title, options: [.old, .new]) { _, change in
            seen.append("\(change.oldValue!)->\(change.newValue!)")
        }
        shelf.book.title = "b"
        shelf.book.title = "b"
        shelf.book.title = "c"
        #expect(seen.values == ["a->b", "b->c"])
        token.invalidate()
    }

    @Test("replacing the middle re-targets: the old middle's changes are ignored, the new one's delivered")
    func middleReplaced() {
        let old = Book("old")
        let shelf = Shelf(old)
        let seen = Recorder<String>()
        let token = shelf.observe(\.book.title) { _, change in seen.append(change.newValue!) }
        shelf.book.title = "old 2"
        let new = Book("new")
        shelf.book = new
        old.title = "ignored"
        new.title = "new 2"
        shelf.book = Book("new 2")
        new.title = "ignored too"
        #expect(seen.values == ["old 2", "new", "new 2"])
        token.invalidate()
    }

    @Test("three levels: replacing either middle re-targets, and the end's changes keep coming")
    func threeLevels() {
        let shelf = Shelf(Book("a", page: "1"))
        let seen = Recorder<String>()
        let token = shelf.observe(\.book.page.text) { _, change in seen.append(change.newValue!) }
        shelf.book.page.text = "2"
        let oldPage = shelf.book.page
        shelf.book.page = Page("3")
        oldPage.text = "ignored"
        shelf.book.page.text = "4"
        shelf.book = Book("b", page: "5")
        shelf.book.page.text = "6"
        #expect(seen.values == ["2", "3", "4", "5", "6"])
        token.invalidate()
    }

    @Test("a path ending in a computed property is evaluated on each change")
    func computedEnd() {
        let shelf = Shelf(Book("a"))
        let seen = Recorder<String>()
        let token = shelf.observe(\.book.loudTitle) { _, change in seen.append(change.newValue!) }
        shelf.book.title = "b"
        shelf.book = Book("c")
        #expect(seen.values == ["B", "C"])
        token.invalidate()
    }

    @Test(
        "a change of the old middle's end, landing after the middle was replaced but before the chain heard of it, reports the new path's value"
    )
    func endChangeRacingAMiddleReplacement() throws {
        let old = Book("old")
        let shelf = Shelf(old)
        let seen = Recorder<String>()
        // Registered first, so it runs before the chain hears of the replacement: it has another thread write the
        // old middle's title, which the chain still observes, and waits for that write to be delivered.
        let racer = shelf.observe(\.book) { _, _ in
            let written = DispatchSemaphore(value: 0)
            Thread {
                old.title = "stale"
                written.signal()
            }.start()
            written.wait()
        }
        let token = shelf.observe(\.book.title) { _, change in seen.append(change.newValue!) }
        shelf.book = Book("new")
        #expect(seen.values == ["new"], "the stale title of the replaced middle is never the path's value")
        racer.invalidate()
        token.invalidate()
    }

    @Test("writers of the end and of the middle on two threads: the last value delivered is the path's")
    func concurrentWriters() {
        let shelf = Shelf(Book("start"))
        let last = Box<String>()
        let token = shelf.observe(\.book.title) { _, change in last.set(change.newValue!) }
        let books = (0..<4).map { Book("book \($0)") }
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            for round in 0..<2_000 { shelf.book.title = "title \(round)" }
        }
        DispatchQueue.global().async(group: group) {
            for round in 0..<500 { shelf.book = books[round % books.count] }
        }
        group.wait()
        shelf.book.title = "final"
        #expect(last.value == "final")
        #expect(shelf.book.title == "final")
        token.invalidate()
    }
}

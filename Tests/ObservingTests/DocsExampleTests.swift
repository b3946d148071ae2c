import Foundation
import Observing
import Testing

/// The Quick start of Docs/Observing.md, kept compiling and checked.
@Suite struct DocsExampleTests {
    final class Document: KeyValueObservable {
        @Observed var title = ""
        @Observed var isFavorite = false
    }

    final class Folder: KeyValueObservable {
        @Observed var document: Document?
        @ObservedArray var items: [Item] = []
    }

    @Test func quickStart() {
        let printed = Recorder<String>()
        let folder = Folder()
        let token = folder.observe(\.document?.isFavorite, options: [.initial, .new]) { folder, change in
            printed.append("favorite: \(String(describing: change.newValue ?? nil))")
        }
        folder.document = Document()
        folder.document?.isFavorite = true
        token.invalidate()
        #expect(printed.values == ["favorite: nil", "favorite: Optional(false)", "favorite: Optional(true)"])
    }

    @Test func keyValueObserverExample() {
        final class CellViewModel {
            private lazy var observer = KeyValueObserver(owner: self)
            let shown = Recorder<Bool>()

            func willDisplay(_ document: Document) {
                let shown = shown
                observer.observe(document, \.isFavorite, options: [.initial, .new]) { _, change in
                    shown.append(change.newValue!)
                }
            }

            func didEndDisplaying(_ document: Document) {
                observer.unobserve(document, \.isFavorite)
            }
        }
        let document = Document()
        let cell = CellViewModel()
        cell.willDisplay(document)
        cell.willDisplay(document)
        document.isFavorite = true
        cell.didEndDisplaying(document)
        cell.didEndDisplaying(document)
        document.isFavorite = false
        #expect(cell.shown.values == [false, true])
    }
}

import Foundation
import Observing

/// FBKVOController's test circle.
final class Circle: KeyValueObservable {
    @Observed var radius: Double = 0
    @Observed var borderWidth: Double = 0
}

/// A model that is shared between threads in the concurrency tests.
///
/// Why `@unchecked Sendable` is safe: every stored property is `@Observed`, whose value lives behind
/// the storage's lock, and the wrapper's own storage field is written only by the initializer.
final class Counter: KeyValueObservable, @unchecked Sendable {
    @Observed var value = 0
    @Observed var label = ""
}

final class Document: KeyValueObservable {
    @Observed var title: String
    @Observed var isFavorite = false

    init(title: String = "", isFavorite: Bool = false) {
        self.title = title
        self.isFavorite = isFavorite
    }
}

final class Folder: KeyValueObservable {
    @Observed var document: Document?
    @Observed var name = ""

    /// Computed from two `@Observed` properties: observable as a whole.
    var summary: String {
        "\(name): \(document?.title ?? "-")"
    }

    init(document: Document? = nil) {
        self.document = document
    }
}

final class Library: KeyValueObservable {
    @Observed var folder = Folder()
}

/// A value that is not `Equatable`: every write notifies.
struct Opaque {
    var number: Int
}

final class Holder: KeyValueObservable {
    @Observed var opaque = Opaque(number: 0)
}

class Shape: KeyValueObservable {
    @Observed var name = ""
    var baseToken: ObservationToken?
    let baseSeen = Recorder<String>()

    init() {
        let seen = baseSeen
        baseToken = observe(\.name) { _, change in seen.append("base:\(change.newValue ?? "")") }
    }
}

final class Square: Shape {
    @Observed var side = 0
    var subToken: ObservationToken?
    let subSeen = Recorder<String>()

    override init() {
        super.init()
        let seen = subSeen
        subToken = observe(\.name) { _, change in seen.append("sub:\(change.newValue ?? "")") }
    }
}

struct Item: Identifiable, Equatable, Sendable, CustomStringConvertible {
    var id: Int
    var name: String

    var description: String { "\(id):\(name)" }
}

/// Identifiable but not Equatable: a kept id never counts as a replacement.
struct Tag: Identifiable, Sendable {
    var id: Int
}

final class ItemList: KeyValueObservable {
    @ObservedArray var items: [Item] = []
    @ObservedArray var numbers: [Int] = []
    @ObservedArray var tags: [Tag] = []
    @ObservedArray var documents: [Opaque] = []
}

/// Equal by `id` only: replacing one by an equal but different instance must still re-target chains.
final class Note: KeyValueObservable, Equatable {
    let id: Int
    @Observed var text: String

    init(id: Int, text: String) {
        self.id = id
        self.text = text
    }

    static func == (lhs: Note, rhs: Note) -> Bool {
        lhs.id == rhs.id
    }
}

final class Notebook: KeyValueObservable {
    @Observed var note = Note(id: 1, text: "first")
}

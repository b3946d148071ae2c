import SeededRandom
import Testing

@testable import Observing

/// An observation that ended (invalidated, unobserved, its object gone) leaves the one registry at once, whatever the
/// order observations end in. Diagnostics list only active observations, so an ended one left listed would be
/// invisible there and cost every later audit a step: this reads the registry itself.
@Suite struct RegistryListingTests {
    /// How many observations of `objects` the registry lists, ended or not.
    private func listed(_ objects: [AnyObject]) -> Int {
        let identities = Set(objects.map(ObjectIdentifier.init))
        return Registry.all.count { identities.contains($0.info.objectIdentifier) }
    }

    @Test(arguments: 1...20) func endedObservationsLeaveTheRegistryInAnyOrder(seed: UInt64) {
        var generator = SplitMix64(seed: seed)
        let docs = (0..<4).map { Document(title: "doc \($0)") }
        let folders = docs.map { doc in
            let folder = Folder()
            folder.document = doc
            return folder
        }
        let objects: [AnyObject] = docs + folders
        let observers = [KeyValueObserver(), KeyValueObserver()]
        // Tokens of direct and chained observations, and pairs of two observers, ended one at a time in a random order.
        enum Ending {
            case token(ObservationToken)
            case pair(KeyValueObserver, Document)
        }
        var endings: [Ending] = []
        for index in 0..<16 {
            let doc = docs[index / 4]
            switch index % 4 {
            case 0: endings.append(.token(doc.observe(\.title) { _, _ in }))
            case 1: endings.append(.token(folders[index / 4].observe(\.document?.title) { _, _ in }))
            default:
                let observer = observers[index % 4 - 2]
                #expect(observer.observe(doc, \.isFavorite) { _, _ in })
                endings.append(.pair(observer, doc))
            }
        }
        #expect(listed(objects) == endings.count)
        var live = endings.count
        for ending in endings.shuffled(using: &generator) {
            switch ending {
            case .token(let token): token.invalidate()
            case .pair(let observer, let doc): #expect(observer.unobserve(doc, \.isFavorite))
            }
            live -= 1
            #expect(listed(objects) == live)
        }
    }

    /// Models only the next test uses: its observations are told apart by their key paths' root types, as the
    /// identities of objects that went away may already be another test's.
    private final class Leaf: KeyValueObservable {
        @Observed var value = 0
    }

    private final class Branch: KeyValueObservable {
        @Observed var leaf: Leaf?
    }

    @Test func observationsOfAnObjectThatWentAwayLeaveTheRegistry() {
        func listedOfTheseTypes() -> Int {
            Registry.all.count {
                $0.info.keyPath.keyPath is PartialKeyPath<Leaf> || $0.info.keyPath.keyPath is PartialKeyPath<Branch>
            }
        }
        let observer = KeyValueObserver()
        var tokens: [ObservationToken] = []
        do {
            let leaf = Leaf()
            let branch = Branch()
            branch.leaf = leaf
            tokens = [leaf.observe(\.value) { _, _ in }, branch.observe(\.leaf?.value) { _, _ in }]
            #expect(observer.observe(leaf, \.value) { _, _ in })
            #expect(listedOfTheseTypes() == 3)
        }
        #expect(listedOfTheseTypes() == 0)
        for token in tokens { token.invalidate() }
        #expect(listedOfTheseTypes() == 0)
    }

    @Test func unobservingAnObjectOrEverythingLeavesTheRegistry() {
        let observer = KeyValueObserver()
        let docs = [Document(), Document()]
        for doc in docs {
            #expect(observer.observe(doc, \.title) { _, _ in })
            #expect(observer.observe(doc, \.isFavorite) { _, _ in })
        }
        #expect(listed(docs) == 4)
        observer.unobserve(docs[0])
        #expect(listed([docs[0]]) == 0)
        #expect(listed([docs[1]]) == 2)
        observer.unobserveAll()
        #expect(listed(docs) == 0)
    }
}

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

    /// O1, O10: whatever order observations end in (tokens of direct and chained observations, two observers' pairs),
    /// the registry lists exactly the others, diagnostics list them, and exactly they are still called.
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
        let calls = Recorder<Int>()
        enum Ending {
            case token(ObservationToken)
            case pair(KeyValueObserver, Document)
        }
        var endings: [Int: Ending] = [:]
        for index in 0..<16 {
            let doc = docs[index / 4]
            switch index % 4 {
            case 0: endings[index] = .token(doc.observe(\.title) { _, _ in calls.append(index) })
            case 1:
                endings[index] = .token(folders[index / 4].observe(\.document?.title) { _, _ in calls.append(index) })
            default:
                let observer = observers[index % 4 - 2]
                #expect(observer.observe(doc, \.isFavorite) { _, _ in calls.append(index) })
                endings[index] = .pair(observer, doc)
            }
        }
        #expect(listed(objects) == endings.count)
        var live = Set(endings.keys)
        for index in endings.keys.sorted().shuffled(using: &generator) {
            switch endings[index]! {
            case .token(let token): token.invalidate()
            case .pair(let observer, let doc): #expect(observer.unobserve(doc, \.isFavorite))
            }
            live.remove(index)
            #expect(listed(objects) == live.count)
            #expect(objects.reduce(0) { $0 + ObservationDiagnostics.liveObservations(of: $1).count } == live.count)
            for (number, observer) in observers.enumerated() {
                #expect(
                    ObservationDiagnostics.liveObservations(registeredBy: observer).count
                        == live.count { $0 % 4 == number + 2 })
            }
            let before = calls.values.count
            for doc in docs {
                doc.title += "."
                doc.isFavorite.toggle()
            }
            #expect(Set(calls.values.dropFirst(before)) == live)
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
                $0.info.keyPath is PartialKeyPath<Leaf> || $0.info.keyPath is PartialKeyPath<Branch>
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

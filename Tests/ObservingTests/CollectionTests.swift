import Foundation
import Observing
import SeededRandom
import Synchronization
import Testing

/// O5 for ordered collections: every mutation kind with its exact index set, and whole assignment of
/// `Identifiable` elements diffed into removal, insertion and replacement.
@Suite struct CollectionTests {
    typealias Change = ObservedChange<[Item]>

    private func items(_ ids: Int...) -> [Item] {
        ids.map { Item(id: $0, name: "v\($0)") }
    }

    private func changes(_ list: ItemList, _ body: () -> Void) -> [Change] {
        let seen = Recorder<Change>()
        let token = list.observe(\.items, options: [.old, .new]) { _, change in seen.append(change) }
        body()
        token.invalidate()
        return seen.values
    }

    @Test func append() {
        let list = ItemList()
        list.items = items(0)
        #expect(
            changes(list) { list.$items.append(Item(id: 1, name: "v1")) } == [
                Change(kind: .insertion, oldValue: nil, newValue: items(1), indexes: [1])
            ])
        #expect(list.items == items(0, 1))
    }

    @Test func appendContentsOf() {
        let list = ItemList()
        list.items = items(0)
        #expect(
            changes(list) { list.$items.append(contentsOf: items(1, 2)) } == [
                Change(kind: .insertion, oldValue: nil, newValue: items(1, 2), indexes: [1, 2])
            ])
        #expect(changes(list) { list.$items.append(contentsOf: []) }.isEmpty)
    }

    @Test func insert() {
        let list = ItemList()
        list.items = items(0, 2)
        #expect(
            changes(list) { list.$items.insert(Item(id: 1, name: "v1"), at: 1) } == [
                Change(kind: .insertion, oldValue: nil, newValue: items(1), indexes: [1])
            ])
        #expect(
            changes(list) { list.$items.insert(contentsOf: items(7, 8), at: 0) } == [
                Change(kind: .insertion, oldValue: nil, newValue: items(7, 8), indexes: [0, 1])
            ])
        #expect(list.items == items(7, 8, 0, 1, 2))
    }

    @Test func remove() {
        let list = ItemList()
        list.items = items(0, 1, 2, 3)
        var removed: Item?
        #expect(
            changes(list) { removed = list.$items.remove(at: 1) } == [
                Change(kind: .removal, oldValue: items(1), newValue: nil, indexes: [1])
            ])
        #expect(removed == Item(id: 1, name: "v1"))
        #expect(
            changes(list) { list.$items.remove(atOffsets: [0, 2]) } == [
                Change(kind: .removal, oldValue: items(0, 3), newValue: nil, indexes: [0, 2])
            ])
        #expect(list.items == items(2))
        #expect(
            changes(list) { list.$items.removeAll() } == [
                Change(kind: .removal, oldValue: items(2), newValue: nil, indexes: [0])
            ])
        #expect(changes(list) { list.$items.removeAll() }.isEmpty)
    }

    @Test func replace() {
        let list = ItemList()
        list.items = items(0, 1)
        let replacement = Item(id: 9, name: "nine")
        #expect(
            changes(list) { list.$items[1] = replacement } == [
                Change(kind: .replacement, oldValue: items(1), newValue: [replacement], indexes: [1])
            ])
        #expect(list.$items[1] == replacement)
        #expect(list.$items.count == 2)
    }

    @Test func assignmentIsDiffedById() {
        let list = ItemList()
        list.items = items(0, 1, 2, 3)
        var renamed = items(0, 2, 4, 3)
        renamed[3].name = "renamed"
        #expect(
            changes(list) { list.items = renamed } == [
                Change(kind: .removal, oldValue: items(1), newValue: nil, indexes: [1]),
                Change(kind: .insertion, oldValue: nil, newValue: items(4), indexes: [2]),
                Change(
                    kind: .replacement, oldValue: items(3), newValue: [Item(id: 3, name: "renamed")], indexes: [3]),
            ])
    }

    @Test func assigningAnEqualArraySendsNothing() {
        let list = ItemList()
        list.items = items(0, 1)
        #expect(changes(list) { list.items = items(0, 1) }.isEmpty)
    }

    @Test func identifiableButNotEquatableElementsAreNeverReplaced() {
        let list = ItemList()
        list.tags = [Tag(id: 1), Tag(id: 2)]
        let seen = Recorder<String>()
        let token = list.observe(\.tags) { _, change in seen.append("\(change.kind) \(Array(change.indexes!))") }
        list.tags = [Tag(id: 2), Tag(id: 3)]
        #expect(seen.values == ["removal [0]", "insertion [1]"])
        token.invalidate()
    }

    @Test func plainElementsAreSetWhole() {
        let list = ItemList()
        let seen = Recorder<ObservedChange<[Int]>>()
        let token = list.observe(\.numbers) { _, change in seen.append(change) }
        list.numbers = [1, 2]
        list.numbers = [1, 2]
        list.$numbers.append(3)
        #expect(
            seen.values == [
                ObservedChange(kind: .setting, oldValue: [], newValue: [1, 2]),
                ObservedChange(kind: .insertion, oldValue: nil, newValue: [3], indexes: [2]),
            ])
        token.invalidate()
    }

    @Test func nonEquatableElementsAreSetOnEveryAssignment() {
        let list = ItemList()
        let calls = CallCounter()
        let token = list.observe(\.documents) { _, _ in calls.increment() }
        list.documents = []
        list.documents = []
        #expect(calls.count == 2)
        token.invalidate()
    }

    @Test func priorNotificationCarriesKindIndexesAndOldElements() {
        let list = ItemList()
        list.items = items(0, 1)
        let seen = Recorder<String>()
        let token = list.observe(\.items, options: [.prior, .old, .new]) { list, change in
            seen.append("\(change.isPrior) \(change.kind) \(Array(change.indexes!)) count=\(list.items.count)")
        }
        list.$items.remove(at: 0)
        #expect(seen.values == ["true removal [0] count=2", "false removal [0] count=1"])
        token.invalidate()
    }

    /// Applies each change to a mirror, as a collection view's batch update would, for many seeded
    /// random assignments and mutations: the mirror always ends equal to the model.
    @Test func mirrorFollowsRandomEdits() {
        var generator = SplitMix64(seed: 0x5eed)
        let list = ItemList()
        let mirror = Mirror()
        let token = list.observe(\.items, options: [.old, .new]) { _, change in mirror.apply(change) }
        for _ in 0..<400 {
            let count = list.items.count
            switch generator.next() % 6 {
            case 0:
                let ids = (0..<12).filter { _ in generator.next() % 2 == 0 }.shuffled(using: &generator)
                list.items = ids.map { Item(id: $0, name: "n\(generator.next() % 3)") }
            case 1:
                list.$items.insert(
                    Item(id: 100 + Int(generator.next() % 50), name: "i"), at: Int(generator.next() % UInt64(count + 1))
                )
            case 2 where count > 0:
                list.$items.remove(at: Int(generator.next() % UInt64(count)))
            case 3 where count > 0:
                list.$items[Int(generator.next() % UInt64(count))] = Item(id: 200, name: "r")
            case 4:
                list.$items.append(Item(id: 300, name: "a"))
            default:
                var offsets = IndexSet()
                for index in 0..<count where generator.next() % 3 == 0 {
                    offsets.insert(index)
                }
                list.$items.remove(atOffsets: offsets)
            }
            #expect(mirror.items == list.items)
        }
        token.invalidate()
    }
}

/// What a collection view shows, updated only through changes.
final class Mirror: Sendable {
    private let state = Protected<[Item]>([])

    var items: [Item] { state.withLock { $0 } }

    func apply(_ change: ObservedChange<[Item]>) {
        state.withLock { items in
            switch change.kind {
            case .setting:
                items = change.newValue!
            case .insertion:
                for (offset, index) in change.indexes!.enumerated() {
                    items.insert(change.newValue![offset], at: index)
                }
            case .removal:
                for index in change.indexes!.reversed() {
                    items.remove(at: index)
                }
            case .replacement:
                for (offset, index) in change.indexes!.enumerated() {
                    items[index] = change.newValue![offset]
                }
            }
        }
    }
}

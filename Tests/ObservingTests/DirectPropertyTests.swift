import TestSupport
import Testing

@testable import Observing

/// Two properties, the second sharing the first's storage when asked (`_b = _a`): the one case where the field
/// holding a property's storage, found by its address, could be another property's.
private final class Pair: KeyValueObservable {
    @Observed var a = 0
    @Observed var b = 0

    init(sharing: Bool = false) {
        if sharing {
            _b = _a
        }
    }

    /// Gives `a` a new storage (a wrapper assigned from outside).
    func replaceA(with value: Int) {
        _a = Observed(wrappedValue: value)
    }
}

/// A class whose subclass overrides an observed property with a computed one.
private class Base: KeyValueObservable {
    @Observed var value = 0
    @Observed var other = 0
}

private final class Overriding: Base {
    override var value: Int {
        get { other }
        set { other = newValue }
    }
}

/// A direct observation of a key path this thread has observed before reaches the property's storage without
/// evaluating the key path (`ThreadContext.directProperty(_:of:as:)`); these pin that it is the right storage. Each
/// scenario runs on a new thread, whose table of such key paths starts empty.
@Suite struct DirectPropertyTests {
    @Test func aKeyPathObservedBeforeIsFoundWithoutEvaluatingIt() async {
        let found = Recorder<Bool>()
        let seen = Recorder<Int>()
        await runOnThreads(1) { _ in
            let keyPath = \Pair.b
            let first = Pair()
            found.append(ThreadContext.current.directProperty(keyPath, of: first, as: Int.self) != nil)
            let token = first.observe(keyPath) { _, _ in }
            // The entry is made; the storage is found for the object already read through that key path.
            found.append(ThreadContext.current.directProperty(keyPath, of: first, as: Int.self) != nil)
            token.invalidate()
            let again = first.observe(keyPath, options: [.initial, .new]) { _, change in seen.append(change.newValue!) }
            first.a = 5
            first.b = 7
            again.invalidate()
        }
        // (Under ThreadSanitizer nothing is remembered: every observation evaluates its key path.)
        #expect(found.values == [false, ThreadContext.remembersDirectProperties])
        #expect(seen.values == [0, 7])
    }

    @Test func aSharedStorageDoesNotMisleadTheObservationOfAnotherObject() async {
        let seen = Recorder<String>()
        await runOnThreads(1) { _ in
            let keyPath = \Pair.b
            let plain = Pair()
            // `plain.a` read through `\Pair.a`; then `shared.b`'s storage is found at `a`'s field (the first one
            // holding it), and `plain.b` must not be looked for there.
            let tokenA = plain.observe(\.a) { _, _ in }
            let shared = Pair(sharing: true)
            let tokenShared = shared.observe(keyPath) { _, _ in }
            let token = plain.observe(keyPath) { _, change in seen.append("b=\(change.newValue!)") }
            plain.a = 1
            plain.b = 2
            for token in [tokenA, tokenShared, token] {
                token.invalidate()
            }
        }
        #expect(seen.values == ["b=2"])
    }

    @Test func keyPathsAPageApartFallInDifferentSets() {
        // Two key path literals seen here (the model's own and an app's), 4,096 bytes apart: their low twelve bits are
        // the same, and a table indexed by low bits gave both one entry, so each observation pushed the other out.
        let first: UInt = 0x55f5_856f_b140
        let second: UInt = 0x55f5_856f_a140
        #expect(ThreadContext.directPropertySet(for: first) != ThreadContext.directPropertySet(for: second))
        for address in [first, second, 0, UInt.max] {
            let set = ThreadContext.directPropertySet(for: address)
            #expect(set % 2 == 0 && set + 1 < ThreadContext.directPropertyCapacity)
        }
    }

    @Test func twoKeyPathsObservedInTurnAreBothFound() async {
        let found = Recorder<Bool>()
        await runOnThreads(1) { _ in
            let pair = Pair()
            for _ in 0..<2 {
                pair.observe(\.a) { _, _ in }.invalidate()
                pair.observe(\.b) { _, _ in }.invalidate()
            }
            found.append(ThreadContext.current.directProperty(\Pair.a, of: pair, as: Int.self) != nil)
            found.append(ThreadContext.current.directProperty(\Pair.b, of: pair, as: Int.self) != nil)
        }
        let remembered = ThreadContext.remembersDirectProperties
        #expect(found.values == [remembered, remembered])
    }

    @Test func anOverridingSubclassIsEvaluatedEveryTime() async {
        let seen = Recorder<Int>()
        await runOnThreads(1) { _ in
            let keyPath = \Base.value
            let base = Base()
            let tokenBase = base.observe(keyPath) { _, _ in }
            let object: Base = Overriding()
            let token = object.observe(keyPath, options: [.new]) { _, change in seen.append(change.newValue!) }
            object.other = 3
            tokenBase.invalidate()
            token.invalidate()
        }
        #expect(seen.values == [3])
    }

    @Test func aReplacedWrapperIsFollowed() async {
        let seen = Recorder<Int>()
        await runOnThreads(1) { _ in
            let keyPath = \Pair.a
            let pair = Pair()
            pair.observe(keyPath) { _, _ in }.invalidate()
            pair.replaceA(with: 10)
            let token = pair.observe(keyPath, options: [.initial, .new]) { _, change in seen.append(change.newValue!) }
            pair.a = 11
            token.invalidate()
        }
        #expect(seen.values == [10, 11])
    }
}

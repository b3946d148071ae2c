import Observing
import TestSupport
import Testing

/// O2: the owner-scoped observer. Also the counterparts of FBKVOController's own test suite
/// (FBKVOControllerTests.m, NSObject+FBKVOControllerTests.m); see Docs/Observing.md for the mapping.
@Suite struct KeyValueObserverTests {
    typealias Change = ObservedChange<Double>

    /// An owner in the FBKVOController sense: holds its observer, which holds only a weak reference back.
    final class Owner {
        lazy var observer = KeyValueObserver(owner: self)
    }

    @Test func observesEachObjectAndKeyPathAtMostOnce() {
        let circle = Circle()
        let observer = KeyValueObserver()
        let calls = CallCounter()
        #expect(observer.observe(circle, \.radius) { _, _ in calls.increment() })
        #expect(!observer.observe(circle, \.radius) { _, _ in calls.increment() })
        circle.radius = 1
        #expect(calls.count == 1)
        #expect(observer.observationCount == 1)
        #expect(observer.isObserving(circle, \.radius))
        #expect(!observer.isObserving(circle, \.borderWidth))
    }

    @Test func aRefusedSecondObservationMakesNoCallsAndLeavesTheFirstWhole() {
        let circle = Circle()
        let observer = KeyValueObserver()
        let seen = Recorder<String>()
        #expect(
            observer.observe(circle, \.radius, options: [.new]) { _, change in seen.append("first \(change.newValue!)")
            })
        #expect(
            !observer.observe(circle, \.radius, options: [.initial, .new]) { _, change in
                seen.append("second \(change.newValue!)")
            })
        circle.radius = 2
        #expect(seen.values == ["first 2.0"])
        #expect(observer.observationCount == 1)
        #expect(
            ObservationDiagnostics.liveObservations().filter { $0.objectIdentifier == ObjectIdentifier(circle) }.count
                == 1)
        #expect(observer.unobserve(circle, \.radius))
        circle.radius = 3
        #expect(seen.values == ["first 2.0"])
    }

    @Test func aPairAlreadyObservedIsRefusedWithoutEvaluatingItsKeyPathAgain() {
        let model = Summarized()
        let observer = KeyValueObserver()
        let reports = Recorder<String>()
        let issues = ObservationDiagnostics.addIssueHandler { issue in
            if case .unobservableKeyPath(let type, _) = issue, type.hasSuffix("Summarized") {
                reports.append(issue.description)
            }
        }
        #expect(observer.observe(model, \.constant) { _, _ in })
        #expect(!observer.observe(model, \.constant) { _, _ in })
        #expect(reports.values.count == 1)
        #expect(observer.observe(model, \.summary) { _, _ in })
        let reads = model.summaryReads.count
        #expect(!observer.observe(model, \.summary) { _, _ in })
        #expect(model.summaryReads.count == reads)
        observer.unobserveAll()
        issues.invalidate()
    }

    @Test func observingAgainAfterUnobserveStartsANewObservation() {
        let circle = Circle()
        let observer = KeyValueObserver()
        let seen = Recorder<String>()
        observer.observe(circle, \.radius) { _, _ in seen.append("first") }
        observer.unobserve(circle, \.radius)
        #expect(observer.observe(circle, \.radius) { _, _ in seen.append("second") })
        circle.radius = 1
        #expect(seen.values == ["second"])
    }

    @Test func unobserveIsIdempotentAndIgnoresStrayRemovals() {
        let circle = Circle()
        let stranger = Circle()
        let observer = KeyValueObserver()
        let calls = CallCounter()
        observer.unobserve(circle, \.radius)
        observer.unobserve(stranger)
        observer.unobserveAll()
        observer.observe(circle, \.radius) { _, _ in calls.increment() }
        observer.unobserve(stranger, \.radius)
        observer.unobserve(circle, \.borderWidth)
        circle.radius = 1
        observer.unobserve(circle, \.radius)
        observer.unobserve(circle, \.radius)
        observer.unobserveAll()
        observer.unobserveAll()
        circle.radius = 2
        #expect(calls.count == 1)
        #expect(observer.observationCount == 0)
    }

    /// FBKVO testUnobserveKeyPath.
    @Test func equalKeyPathsThatAreDifferentObjectsAreOnePair() {
        // `appending(path:)` makes a new key path object on every call: two objects, equal, of one type.
        // A key path literal in generic code is made anew at each call.
        func titlePath<Root: Folder>(_: Root.Type) -> KeyPath<Root, String?> & Sendable { \Root.document?.title }
        let first = titlePath(Folder.self)
        let second = titlePath(Folder.self)
        #expect(first == second && first !== second)
        let folder = Folder()
        folder.document = Document(title: "a")
        let observer = KeyValueObserver()
        let calls = CallCounter()
        #expect(observer.observe(folder, first) { _, _ in calls.increment() })
        #expect(!observer.observe(folder, second) { _, _ in calls.increment() })
        folder.document?.title = "b"
        #expect(calls.count == 1)
        #expect(observer.unobserve(folder, second))
        #expect(observer.observationCount == 0)
    }

    @Test func unobserveTellsWhetherAnActiveObservationEnded() {
        let observer = KeyValueObserver()
        let circle = Circle()
        #expect(!observer.unobserve(circle, \.radius))
        observer.observe(circle, \.radius) { _, _ in }
        #expect(observer.unobserve(circle, \.radius))
        #expect(!observer.unobserve(circle, \.radius))
        // An observation whose object went away had already ended: removing its pair ends nothing.
        do {
            let gone = Circle()
            observer.observe(gone, \.radius) { _, _ in }
            observer.observe(circle, \.borderWidth) { _, _ in }
            #expect(observer.observationCount == 2)
            withExtendedLifetime(gone) {}
        }
        #expect(observer.observationCount == 1)
        #expect(observer.unobserve(circle, \.borderWidth))
        #expect(observer.observationCount == 0)
        // Nor does removing a pair whose observation ended with the observer's owner.
        var owner: Owner? = Owner()
        let owned = KeyValueObserver(owner: owner!)
        owned.observe(circle, \.radius) { _, _ in }
        #expect(owned.isObserving(circle, \.radius))
        owner = nil
        #expect(!owned.isObserving(circle, \.radius))
        #expect(!owned.unobserve(circle, \.radius))
    }

    @Test func unobserveOneKeyPath() {
        let circle = Circle()
        let observer = KeyValueObserver()
        let calls = CallCounter()
        observer.observe(circle, \.radius, options: []) { _, _ in calls.increment() }
        observer.observe(circle, \.borderWidth, options: []) { _, _ in calls.increment() }
        circle.radius = 1
        circle.borderWidth = 1
        #expect(calls.count == 2)
        observer.unobserve(circle, \.borderWidth)
        circle.radius = 2
        circle.borderWidth = 2
        #expect(calls.count == 3)
    }

    /// FBKVO testUnobserveObject.
    @Test func unobserveOneObject() {
        let first = Circle()
        let second = Circle()
        let observer = KeyValueObserver()
        let seen = Recorder<ObjectIdentifier>()
        observer.observe(first, \.radius, options: []) { circle, _ in seen.append(ObjectIdentifier(circle)) }
        observer.observe(second, \.radius, options: []) { circle, _ in seen.append(ObjectIdentifier(circle)) }
        observer.observe(second, \.borderWidth, options: []) { circle, _ in seen.append(ObjectIdentifier(circle)) }
        observer.unobserve(second)
        first.radius = 1
        second.radius = 1
        second.borderWidth = 1
        #expect(seen.values == [ObjectIdentifier(first)])
    }

    /// FBKVO testBlockOptionsBasic: initial, then one call per change, with the object and the change.
    @Test func blockWithBasicOptions() {
        let circle = Circle()
        let observer = KeyValueObserver()
        let seen = Recorder<Change>()
        let objects = Recorder<ObjectIdentifier>()
        observer.observe(circle, \.radius, options: [.initial, .old, .new]) { circle, change in
            objects.append(ObjectIdentifier(circle))
            seen.append(change)
        }
        #expect(seen.values == [Change(kind: .setting, oldValue: nil, newValue: 0)])
        circle.radius = 1
        #expect(seen.values.count == 2)
        #expect(seen.values.last == Change(kind: .setting, oldValue: 0, newValue: 1))
        #expect(objects.values == [ObjectIdentifier(circle), ObjectIdentifier(circle)])
    }

    /// FBKVO testNSKeyValueObservingOptionsNone / Basic / All: the change matches what Cocoa KVO would
    /// send for those options (see also OptionsTests).
    struct OptionsCase: Sendable, CustomTestStringConvertible {
        let options: ObservationOptions
        let expected: [Change]
        var testDescription: String { "options \(options.rawValue)" }
    }

    @Test(arguments: [
        OptionsCase(options: [], expected: [Change(kind: .setting, oldValue: nil, newValue: nil)]),
        OptionsCase(
            options: [.initial, .old, .new],
            expected: [
                Change(kind: .setting, oldValue: nil, newValue: 1), Change(kind: .setting, oldValue: 1, newValue: 2),
            ]),
        OptionsCase(
            options: [.initial, .old, .new, .prior],
            expected: [
                Change(kind: .setting, oldValue: nil, newValue: 1),
                Change(kind: .setting, oldValue: 1, newValue: nil, isPrior: true),
                Change(kind: .setting, oldValue: 1, newValue: 2),
            ]),
    ])
    func optionsMatchCocoa(_ test: OptionsCase) {
        let circle = Circle()
        circle.radius = test.options.isEmpty ? 0 : 1
        let observer = KeyValueObserver()
        let seen = Recorder<Change>()
        observer.observe(circle, \.radius, options: test.options) { _, change in seen.append(change) }
        circle.radius = test.options.isEmpty ? 1 : 2
        #expect(seen.values == test.expected)
    }

    /// FBKVO testObserveKeyPathsOptionsBlockObservesEachOfTheKeyPaths (typed key paths: one call each).
    @Test func observesEachOfSeveralKeyPaths() {
        let circle = Circle()
        let observer = KeyValueObserver()
        let seen = Recorder<Double>()
        for keyPath in [\Circle.radius, \Circle.borderWidth] {
            observer.observe(circle, keyPath, options: [.new]) { _, change in seen.append(change.newValue!) }
        }
        circle.radius = 1
        circle.borderWidth = 10
        #expect(seen.values == [1, 10])
    }

    /// FBKVO testObserveKeyPathsOptionsContextUnobserveWithinBlockWithOptionInitial.
    @Test func unobserveInsideTheInitialCallback() {
        let circle = Circle()
        circle.radius = 1
        let observer = KeyValueObserver()
        let seen = Recorder<Double>()
        observer.observe(circle, \.radius, options: [.initial]) { circle, _ in
            seen.append(circle.radius)
            observer.unobserve(circle)
        }
        circle.radius = 2
        #expect(seen.values == [1])
        #expect(observer.observationCount == 0)
    }

    @Test func invalidatingTheTokenInsideTheInitialCallback() {
        let circle = Circle()
        let observer = KeyValueObserver()
        let calls = CallCounter()
        observer.observe(circle, \.radius, options: [.initial]) { circle, _ in
            calls.increment()
            observer.unobserveAll()
        }
        circle.radius = 2
        #expect(calls.count == 1)
    }

    /// FBKVO testDeallocatedController: releasing the observer ends its observations.
    @Test func releasingTheObserverEndsEverything() {
        let tracker = LifetimeTracker()
        let circle = Circle()
        let calls = CallCounter()
        do {
            let observer = tracker.watch(KeyValueObserver())
            observer.observe(circle, \.radius, options: [.initial]) { _, _ in calls.increment() }
            observer.observe(circle, \.borderWidth) { _, _ in calls.increment() }
            #expect(calls.count == 1)
        }
        circle.radius = 1
        circle.borderWidth = 1
        #expect(calls.count == 1)
        tracker.expectAllFreed()
        #expect(ObservationDiagnostics.liveObservations(of: circle).isEmpty)
    }

    /// FBKVO testDeallocatedObserver: the owner goes away while the observer lives on.
    @Test func ownerGoingAwayEndsEverything() {
        let tracker = LifetimeTracker()
        let circle = Circle()
        let calls = CallCounter()
        let observer: KeyValueObserver
        do {
            let owner = tracker.watch(Owner())
            observer = owner.observer
            observer.observe(circle, \.radius, options: [.initial]) { _, _ in calls.increment() }
            #expect(calls.count == 1)
            #expect(observer.observationCount == 1)
        }
        tracker.expectAllFreed()
        circle.radius = 1
        #expect(calls.count == 1)
        #expect(observer.observationCount == 0)
        #expect(!observer.observe(circle, \.borderWidth) { _, _ in calls.increment() })
        #expect(ObservationDiagnostics.liveObservations(of: circle).isEmpty)
    }

    /// FBKVO's lazily created controller touched first in dealloc.
    @Test func firstUseInsideDeinitIsSafe() {
        final class Cleaner {
            lazy var observer = KeyValueObserver(owner: self)
            let circle: Circle
            let result: Recorder<Bool>

            init(circle: Circle, result: Recorder<Bool>) {
                self.circle = circle
                self.result = result
            }

            deinit {
                observer.unobserveAll()
                result.append(observer.observe(circle, \.radius) { _, _ in })
                observer.unobserve(circle)
            }
        }
        let circle = Circle()
        let result = Recorder<Bool>()
        do {
            _ = Cleaner(circle: circle, result: result)
        }
        #expect(result.values == [false])
        #expect(ObservationDiagnostics.liveObservations(of: circle).isEmpty)
    }

    /// NSObject+FBKVOController's non-retaining controller: observed objects are never retained.
    @Test func observedObjectsAreNotRetained() {
        let tracker = LifetimeTracker()
        let owner = Owner()
        do {
            let circle = tracker.watch(Circle())
            owner.observer.observe(circle, \.radius) { _, _ in }
            #expect(owner.observer.observationCount == 1)
        }
        tracker.expectAllFreed()
        #expect(owner.observer.observationCount == 0)
        owner.observer.unobserveAll()
    }

    /// A new object at the address of a freed one is not mistaken for it.
    @Test func aFreedObjectsEntryDoesNotBlockANewObject() {
        let observer = KeyValueObserver()
        for _ in 0..<50 {
            let circle = Circle()
            let calls = CallCounter()
            #expect(observer.observe(circle, \.radius) { _, _ in calls.increment() })
            circle.radius = 1
            #expect(calls.count == 1)
        }
    }

    /// FBKVO testDebugDescriptionContainsClassName.
    @Test func debugDescriptionListsTheObservations() {
        let owner = Owner()
        let circle = Circle()
        owner.observer.observe(circle, \.radius) { _, _ in }
        owner.observer.observe(circle, \.borderWidth) { _, _ in }
        let text = String(reflecting: owner.observer)
        #expect(text.contains("KeyValueObserver"))
        #expect(text.contains("Owner"))
        #expect(text.contains("\\Circle.radius"))
        #expect(text.contains("\\Circle.borderWidth"))
    }

    @Test func diagnosticsNameTheOwner() {
        let owner = Owner()
        let circle = Circle()
        owner.observer.observe(circle, \.radius) { _, _ in }
        let records = ObservationDiagnostics.liveObservations(of: circle)
        #expect(records.count == 1)
        #expect(records.first?.ownerIdentifier == ObjectIdentifier(owner))
        #expect(records.first?.ownerType?.hasSuffix("Owner") == true)
        #expect(records.first?.keyPath == "\\Circle.radius")
        #expect(records.first?.description.contains("owned by") == true)
    }
}

/// A computed property whose getter counts its runs, and one that reads no `@Observed` property.
private final class Summarized: KeyValueObservable {
    @Observed var name = ""
    let summaryReads = CallCounter()
    var constant: Int { 42 }
    var summary: String {
        summaryReads.increment()
        return "[\(name)]"
    }
}

class Circle2: KeyValueObservable {
    @Observed var radius: Double = 0
}

final class Disc: Circle2 {
    @Observed var thickness: Double = 0
    /// One read of an inherited property, transformed: a different key, not the same property.
    var diameter: Double { radius * 2 }
}

/// A pair is keyed by its key path: a subclass key path names a property the subclass may override, so it is a pair
/// of its own (FBKVOController, keyed by name, would make them one).
@Suite struct KeyValueObserverPropertyKeyTests {
    @Test func subclassAndSuperclassKeyPathsOfOnePropertyAreTwoPairs() {
        let disc = Disc()
        let observer = KeyValueObserver()
        let calls = CallCounter()
        #expect(observer.observe(disc, \Disc.radius) { _, _ in calls.increment() })
        #expect(observer.observe(disc as Circle2, \Circle2.radius) { _, _ in calls.increment() })
        #expect(!observer.observe(disc, \Disc.radius) { _, _ in calls.increment() })
        #expect(observer.observationCount == 2)
        disc.radius = 1
        #expect(calls.count == 2, "each pair's handler ran once")
        #expect(observer.unobserve(disc as Circle2, \Circle2.radius))
        #expect(observer.isObserving(disc, \Disc.radius), "unobserving one key path left the other alive")
        disc.radius = 2
        #expect(calls.count == 3)
        observer.unobserveAll()
        #expect(ObservationDiagnostics.liveObservations(of: disc).isEmpty)
    }

    @Test func otherPropertiesAndComputedKeyPathsStayDistinct() {
        let disc = Disc()
        let observer = KeyValueObserver()
        #expect(observer.observe(disc, \Disc.radius) { _, _ in })
        #expect(observer.observe(disc, \Disc.thickness) { _, _ in })
        #expect(observer.observe(disc, \Disc.diameter) { _, _ in })
        #expect(observer.observationCount == 3)
        observer.unobserve(disc, \Disc.diameter)
        #expect(observer.isObserving(disc, \Disc.radius))
        #expect(observer.observationCount == 2)
    }
}

@Suite struct KeyValueObserverDiagnosticsTests {
    @Test("the registry lists an observer's observations, each record naming that observer; tokens name none")
    func perObserver() {
        let first = Document()
        let second = Document()
        let observer = KeyValueObserver()
        let other = KeyValueObserver()
        observer.observe(first, \.title) { _, _ in }
        observer.observe(second, \.title) { _, _ in }
        other.observe(first, \.title) { _, _ in }
        let token = first.observe(\.title) { _, _ in }
        let mine = ObservationDiagnostics.liveObservations(registeredBy: observer)
        #expect(Set(mine.map(\.objectIdentifier)) == [ObjectIdentifier(first), ObjectIdentifier(second)])
        #expect(mine.allSatisfy { $0.observerIdentifier == ObjectIdentifier(observer) })
        let onFirst = ObservationDiagnostics.liveObservations(ofObjectWith: ObjectIdentifier(first))
        #expect(onFirst.count == 3)
        #expect(onFirst.filter { $0.observerIdentifier == nil }.count == 1, "the token's")
        observer.unobserve(second, \.title)
        #expect(ObservationDiagnostics.liveObservations(registeredBy: observer).count == 1)
        token.invalidate()
        other.unobserveAll()
        observer.unobserveAll()
        #expect(ObservationDiagnostics.liveObservations(registeredBy: observer).isEmpty)
    }

    @Test("a count of live observations agrees with the records it stands for, whatever its observers")
    func countAgreesWithRecords() {
        let first = Document()
        var second: Document? = Document()
        let folder = Folder(document: first)
        let observer = KeyValueObserver()
        let other = KeyValueObserver()
        observer.observe(first, \.title) { _, _ in }
        observer.observe(first, \.isFavorite) { _, _ in }
        observer.observe(folder, \.document?.title) { _, _ in }
        other.observe(first, \.title) { _, _ in }
        if let second { other.observe(second, \.title) { _, _ in } }
        let token = first.observe(\.title) { _, _ in }
        func expectAgreement(_ when: Comment) {
            let records = ObservationDiagnostics.liveObservations()
            for scope: Set<ObjectIdentifier> in [
                [ObjectIdentifier(observer)], [ObjectIdentifier(other)],
                [ObjectIdentifier(observer), ObjectIdentifier(other)], [],
            ] {
                let expected = records.count { record in record.observerIdentifier.map(scope.contains) == true }
                let counted = ObservationDiagnostics.liveObservationCount(registeredBy: scope)
                #expect(counted == expected, "\(when): \(scope.count) observers")
            }
        }
        expectAgreement("all registered")
        #expect(ObservationDiagnostics.liveObservationCount(registeredBy: [ObjectIdentifier(observer)]) == 3)
        #expect(
            ObservationDiagnostics.liveObservationCount(registeredBy: [ObjectIdentifier(other)]) == 2,
            "the token's observation is no observer's")
        observer.unobserve(first, \.isFavorite)
        expectAgreement("after an unobserve")
        second = nil
        expectAgreement("after an observed object went away")
        #expect(ObservationDiagnostics.liveObservationCount(registeredBy: [ObjectIdentifier(other)]) == 1)
        token.invalidate()
        observer.unobserveAll()
        other.unobserveAll()
        #expect(ObservationDiagnostics.liveObservationCount(registeredBy: [ObjectIdentifier(observer)]) == 0)
    }
}

import Foundation
import Observing
import Testing

/// O5 (options, change contents) and O6 (didSet semantics; a prior notification sees the value before).
@Suite struct OptionsTests {
    typealias Change = ObservedChange<Double>

    private func record(_ options: ObservationOptions, initial radius: Double = 0, changes: [Double]) -> [Change] {
        let circle = Circle()
        circle.radius = radius
        let seen = Recorder<Change>()
        let token = circle.observe(\.radius, options: options) { _, change in seen.append(change) }
        for value in changes {
            circle.radius = value
        }
        token.invalidate()
        return seen.values
    }

    @Test func noOptionsDeliversKindOnly() {
        #expect(record([], changes: [1]) == [Change(kind: .setting, oldValue: nil, newValue: nil)])
    }

    @Test func newOnly() {
        #expect(
            record([.new], changes: [1, 2]) == [
                Change(kind: .setting, oldValue: nil, newValue: 1),
                Change(kind: .setting, oldValue: nil, newValue: 2),
            ])
    }

    @Test func oldOnly() {
        #expect(
            record([.old], changes: [1, 2]) == [
                Change(kind: .setting, oldValue: 0, newValue: nil),
                Change(kind: .setting, oldValue: 1, newValue: nil),
            ])
    }

    @Test func initialCarriesTheCurrentValue() {
        #expect(
            record([.initial, .new], initial: 5, changes: []) == [
                Change(kind: .setting, oldValue: nil, newValue: 5)
            ])
        #expect(record([.initial], initial: 5, changes: []) == [Change(kind: .setting, oldValue: nil, newValue: nil)])
    }

    @Test func initialOldNew() {
        #expect(
            record([.initial, .old, .new], initial: 1, changes: [2]) == [
                Change(kind: .setting, oldValue: nil, newValue: 1),
                Change(kind: .setting, oldValue: 1, newValue: 2),
            ])
    }

    @Test func allOptionsIncludingPrior() {
        #expect(
            record([.initial, .prior, .old, .new], initial: 1, changes: [2, 3]) == [
                Change(kind: .setting, oldValue: nil, newValue: 1),
                Change(kind: .setting, oldValue: 1, newValue: nil, isPrior: true),
                Change(kind: .setting, oldValue: 1, newValue: 2),
                Change(kind: .setting, oldValue: 2, newValue: nil, isPrior: true),
                Change(kind: .setting, oldValue: 2, newValue: 3),
            ])
    }

    @Test func priorWithoutOldCarriesNoValue() {
        #expect(
            record([.prior, .new], changes: [4]) == [
                Change(kind: .setting, oldValue: nil, newValue: nil, isPrior: true),
                Change(kind: .setting, oldValue: nil, newValue: 4),
            ])
    }

    @Test func handlerSeesTheStoredValueAndPriorSeesTheValueBefore() {
        let circle = Circle()
        circle.radius = 1
        let seen = Recorder<String>()
        let token = circle.observe(\.radius, options: [.prior, .new]) { circle, change in
            seen.append("\(change.isPrior ? "prior" : "after") reads \(circle.radius)")
        }
        circle.radius = 2
        #expect(seen.values == ["prior reads 1.0", "after reads 2.0"])
        token.invalidate()
    }

    @Test func handlerReceivesTheObservedObject() {
        let circle = Circle()
        let seen = Recorder<ObjectIdentifier>()
        let token = circle.observe(\.radius) { object, _ in seen.append(ObjectIdentifier(object)) }
        circle.radius = 3
        #expect(seen.values == [ObjectIdentifier(circle)])
        token.invalidate()
    }

    @Test func equalValuesDoNotNotify() {
        let circle = Circle()
        let calls = CallCounter()
        let token = circle.observe(\.radius, options: [.prior, .new]) { _, _ in calls.increment() }
        circle.radius = 0
        #expect(calls.count == 0)
        circle.radius = 1
        circle.radius = 1
        #expect(calls.count == 2)
        token.invalidate()
    }

    @Test func nonEquatableValuesNotifyEveryWrite() {
        let holder = Holder()
        let seen = Recorder<Int>()
        let token = holder.observe(\.opaque) { _, change in seen.append(change.newValue!.number) }
        holder.opaque = Opaque(number: 0)
        holder.opaque = Opaque(number: 0)
        #expect(seen.values == [0, 0])
        token.invalidate()
    }

    @Test func propertiesAndObjectsAreIndependent() {
        let first = Circle()
        let second = Circle()
        let seen = Recorder<String>()
        let radius = first.observe(\.radius) { _, _ in seen.append("radius") }
        let border = second.observe(\.borderWidth) { _, _ in seen.append("border") }
        first.borderWidth = 1
        second.radius = 1
        #expect(seen.values.isEmpty)
        first.radius = 2
        second.borderWidth = 2
        #expect(seen.values == ["radius", "border"])
        radius.invalidate()
        border.invalidate()
    }

    @Test func subclassAndSuperclassObserveTheSameKeyPathIndependently() {
        let square = Square()
        square.name = "a"
        #expect(square.baseSeen.values == ["base:a"])
        #expect(square.subSeen.values == ["sub:a"])
        square.subToken?.invalidate()
        square.name = "b"
        #expect(square.baseSeen.values == ["base:a", "base:b"])
        #expect(square.subSeen.values == ["sub:a"])
        square.subToken = square.observe(\.name) { _, _ in }
        square.baseToken?.invalidate()
        square.name = "c"
        #expect(square.baseSeen.values == ["base:a", "base:b"])
        square.subToken?.invalidate()
    }

    @Test func subclassKeyPathToAnInheritedPropertyNotifies() {
        let square = Square()
        let seen = Recorder<String>()
        let token = square.observe(\Square.name, options: [.old, .new]) { _, change in
            seen.append("\(change.oldValue!)->\(change.newValue!)")
        }
        square.name = "x"
        square.side = 3
        #expect(seen.values == ["->x"])
        token.invalidate()
    }

    @Test func oneKeyPathObservedOnManyObjectsFollowsEachObjectsOwnProperty() {
        // The first registration of `\.radius` evaluates the key path; the later ones find the storage the way the
        // first one remembered: each must still follow its own object.
        let circles = (0..<20).map { _ in Circle() }
        let seen = Recorder<String>()
        let tokens = circles.enumerated().map { index, circle in
            circle.observe(\.radius, options: [.new]) { _, change in seen.append("\(index):\(change.newValue!)") }
        }
        circles[7].radius = 7
        circles[0].radius = 1
        circles[19].borderWidth = 3
        #expect(seen.values == ["7:7.0", "0:1.0"])
        for token in tokens { token.invalidate() }
        circles[7].radius = 8
        #expect(seen.values == ["7:7.0", "0:1.0"])
    }

    @Test func anArrayPropertyAndAGenericClassPropertyRegisteredAgainFollowTheirOwnObjects() {
        let lists = (0..<3).map { _ in ItemList() }
        let boxes = (0..<3).map { Box(item: $0) }
        let names = (0..<3).map { Box(item: "\($0)") }
        let seen = Recorder<String>()
        let tokens =
            lists.enumerated().map { index, list in
                list.observe(\.numbers, options: [.new]) { _, change in seen.append("list \(index) \(change.kind)") }
            }
            + boxes.enumerated().map { index, box in
                box.observe(\.item, options: [.new]) { _, change in seen.append("box \(index) \(change.newValue!)") }
            }
            + names.enumerated().map { index, box in
                box.observe(\.item, options: [.new]) { _, change in seen.append("name \(index) \(change.newValue!)") }
            }
        lists[2].$numbers.append(7)
        boxes[1].item = 10
        names[2].item = "x"
        #expect(seen.values == ["list 2 insertion", "box 1 10", "name 2 x"])
        for token in tokens { token.invalidate() }
    }

    @Test func aSubclassOverridingAnObservedPropertyIsObservedThroughItsOverride() {
        // `\Dial.level` is first registered on a `Dial`, so its storage is remembered; on a `FineDial`, whose
        // `level` is an override that reads and writes `fine`, the same key path must follow `fine`.
        let dial = Dial()
        let warmUp = dial.observe(\Dial.level) { _, _ in }
        let fineDial: Dial = FineDial()
        let seen = Recorder<Int>()
        let token = fineDial.observe(\Dial.level, options: [.new]) { _, change in seen.append(change.newValue!) }
        fineDial.level = 5
        (fineDial as? FineDial)?.fine = 6
        #expect(seen.values == [5, 6])
        token.invalidate()
        warmUp.invalidate()
    }
}

private class Dial: KeyValueObservable {
    @Observed var level = 0
}

private final class FineDial: Dial {
    @Observed var fine = 0

    override var level: Int {
        get { fine }
        set { fine = newValue }
    }
}

private final class Box<Item>: KeyValueObservable {
    @Observed var item: Item

    init(item: Item) { self.item = item }
}

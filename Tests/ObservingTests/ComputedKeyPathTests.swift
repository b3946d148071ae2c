import Observing
import Testing

/// Computed properties over `@Observed` ones, in each shape. Cocoa KVO, for comparison (it cannot run here): a
/// computed key is a key of its own there too, distinct from the stored keys it reads; it follows them only when the
/// class declares them (`keyPathsForValuesAffectingClamped` returning `raw`), and then reports the computed value on
/// every write of `raw`, equal or not. Observing needs no declaration: it records what the getter reads.
private final class Clamp: KeyValueObservable {
    @Observed var raw = 0
    @Observed var scale = 1

    /// Settable, reads one stored property and transforms it.
    var clamped: Int {
        get { max(0, raw) }
        set { raw = newValue }
    }

    /// Settable, reads one stored property and returns it unchanged: still a property of its own.
    var mirrored: Int {
        get { raw }
        set { raw = newValue }
    }

    /// Read-only, one stored property.
    var isPositive: Bool { raw > 0 }

    /// Read-only, several stored properties.
    var scaled: Int { raw * scale }
}

@Suite("Computed properties are observed through what they read and report their own value")
struct ComputedKeyPathTests {
    @Test func aSettableComputedPropertyReportsItsOwnValue() {
        let gauge = Clamp()
        let seen = Recorder<String>()
        let token = gauge.observe(\.clamped, options: [.old, .new]) { _, change in
            seen.append("\(change.oldValue!)->\(change.newValue!)")
        }
        gauge.raw = -5  // clamped stays 0: nothing to report (KVO with a declared dependency: 0->0)
        gauge.raw = 3
        gauge.clamped = -1  // stores -1 in raw; clamped is 0 again
        #expect(seen.values == ["0->3", "3->0"])
        token.invalidate()
    }

    @Test func aComputedPropertyReturningTheStoredValueIsStillItsOwnKeyPath() {
        let gauge = Clamp()
        let seen = Recorder<Int>()
        let token = gauge.observe(\.mirrored, options: [.new]) { _, change in seen.append(change.newValue!) }
        gauge.raw = 2
        gauge.mirrored = 4
        #expect(seen.values == [2, 4])
        token.invalidate()
    }

    @Test func readOnlyComputedPropertiesOfOneAndOfSeveralProperties() {
        let gauge = Clamp()
        let positive = Recorder<Bool>()
        let scaled = Recorder<Int>()
        let a = gauge.observe(\.isPositive, options: [.new]) { _, change in positive.append(change.newValue!) }
        let b = gauge.observe(\.scaled, options: [.new]) { _, change in scaled.append(change.newValue!) }
        gauge.raw = 2
        gauge.scale = 3
        gauge.raw = 5
        gauge.raw = -1
        #expect(positive.values == [true, false])
        #expect(scaled.values == [2, 6, 15, -3])
        a.invalidate()
        b.invalidate()
    }

    @Test func storedAndComputedPropertiesAreDistinctPairsOfAKeyValueObserver() {
        let gauge = Clamp()
        let observer = KeyValueObserver()
        let seen = Recorder<String>()
        #expect(observer.observe(gauge, \.raw, options: [.new]) { _, change in seen.append("raw \(change.newValue!)") })
        #expect(
            observer.observe(gauge, \.clamped, options: [.new]) { _, change in
                seen.append("clamped \(change.newValue!)")
            })
        #expect(observer.observe(gauge, \.mirrored, options: [.new]) { _, _ in })
        #expect(!observer.observe(gauge, \.clamped) { _, _ in }, "the same computed key path is one pair")
        #expect(observer.observationCount == 3)
        gauge.raw = -5
        #expect(seen.values == ["raw -5"])
        #expect(observer.unobserve(gauge, \.clamped))
        #expect(observer.isObserving(gauge, \.raw))
        #expect(observer.isObserving(gauge, \.mirrored))
        #expect(!observer.isObserving(gauge, \.clamped))
        observer.unobserveAll()
    }

    @Test func theComputedPropertyFirstThenTheStoredOne() {
        let gauge = Clamp()
        let observer = KeyValueObserver()
        #expect(observer.observe(gauge, \.clamped) { _, _ in })
        #expect(observer.observe(gauge, \.raw) { _, _ in })
        #expect(observer.unobserve(gauge, \.raw))
        #expect(observer.isObserving(gauge, \.clamped))
        observer.unobserveAll()
    }
}

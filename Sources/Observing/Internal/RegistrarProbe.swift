import Dispatch
import Foundation
import Observation
import ObservingThreadLocal
import Synchronization

/// Tells whether anything but its owner holds an `ObservationRegistrar`'s inner state: a tracking collecting an
/// access to it (inside `withObservationTracking`'s `apply`), or registered with it (after `apply` returned, until
/// its `onChange` ran or it was cancelled). When nothing does, no tracking can be told of a write, so the write can
/// skip the registrar's `willSet` and `didSet` (two lock round trips and two dictionary look-ups in the Observation
/// runtime, about 570 instructions of a write that costs about 105 without them).
///
/// How: a registrar is one reference to a private object whose first stored property is the registrar's context,
/// itself one reference to the `ManagedBuffer` holding its lock and trackings. An access list or a registered
/// tracking keeps a copy of the context, so the buffer is uniquely referenced exactly when nothing but the registrar
/// holds it. The probe reads that reference and asks the runtime whether it is unique
/// (`swift_isUniquelyReferenced_nonNull_native`, the entry point `isKnownUniquelyReferenced` compiles to).
///
/// Why it is sound: the probe says "held elsewhere" whenever a copy of the context exists, which is a superset of
/// "a tracking would be told" (a copy held for an instant by another thread's `willSet` only makes a write tell the
/// registrar needlessly). A write is checked before its store, which is where Swift Observation's own `willSet`
/// looks for trackings: a tracking that reads the old value and registers after that check misses the write with
/// an `@Observable` class too.
///
/// Why it is safe: the layout is the Observation runtime's, not a public contract, so it is verified once per
/// process before the probe is used (`isUsable`): reflection must find the buffer where the probe reads it, and
/// the probe must answer "unique" for a fresh registrar, "held" inside `apply` and while a tracking is registered,
/// and "unique" after it fired. If any of this fails (another toolchain's layout), `isUsable` is false and every
/// write tells the registrar, as before.
@usableFromInline
enum RegistrarProbe {
    /// Whether the probe reads registrars correctly in this process (checked once, on a thread of its own so that
    /// no tracking of the caller's sees the check's registrar).
    @usableFromInline
    static let isUsable: Bool = {
        let result = Atomic(false)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            result.store(selfTest(), ordering: .releasing)
            done.signal()
        }
        thread.start()
        done.wait()
        return result.load(ordering: .acquiring)
    }()

    /// Whether something other than `registrar` holds its inner state. Meaningful only when `isUsable`.
    @inlinable
    @inline(__always)
    static func isHeldElsewhere(_ registrar: ObservationRegistrar) -> Bool {
        !isUniquelyReferenced(buffer(of: registrar))
    }

    /// The address of the `ManagedBuffer` of `registrar`'s context.
    @inlinable
    @inline(__always)
    static func buffer(of registrar: ObservationRegistrar) -> UnsafeRawPointer {
        withUnsafeBytes(of: registrar) { bytes in
            let extent = bytes.load(as: UnsafeRawPointer.self)
            // The first stored property of a Swift object follows its header (metadata and reference counts).
            return extent.load(fromByteOffset: 2 * MemoryLayout<UnsafeRawPointer>.size, as: UnsafeRawPointer.self)
        }
    }

    @inlinable
    @inline(__always)
    static func isUniquelyReferenced(_ object: UnsafeRawPointer) -> Bool {
        observing_is_uniquely_referenced(object)
    }

    private final class Subject: Observable {
        var value = 0
    }

    private static func selfTest() -> Bool {
        let registrar = ObservationRegistrar()
        guard MemoryLayout<ObservationRegistrar>.size == MemoryLayout<UnsafeRawPointer>.size,
            let expected = reflectedBuffer(of: registrar), expected == buffer(of: registrar)
        else { return false }
        let subject = Subject()
        let fresh = !isHeldElsewhere(registrar)
        var heldInApply = false
        let fired = Atomic(false)
        withObservationTracking {
            registrar.access(subject, keyPath: \.value)
            heldInApply = isHeldElsewhere(registrar)
        } onChange: {
            fired.store(true, ordering: .relaxed)
        }
        let heldWhileRegistered = isHeldElsewhere(registrar)
        registrar.willSet(subject, keyPath: \.value)
        registrar.didSet(subject, keyPath: \.value)
        let freedAfterFiring = !isHeldElsewhere(registrar)
        return fresh && heldInApply && heldWhileRegistered && fired.load(ordering: .relaxed) && freedAfterFiring
    }

    /// The buffer's address as reflection finds it (registrar -> extent -> context -> state -> buffer), or nil when
    /// the path is not there.
    private static func reflectedBuffer(of registrar: ObservationRegistrar) -> UnsafeRawPointer? {
        func only(_ value: Any) -> Any? {
            let children = Mirror(reflecting: value).children
            return children.count == 1 ? children.first?.value : nil
        }
        guard let extent = only(registrar), let context = firstChild(of: extent), let state = only(context),
            let buffer = only(state), type(of: buffer) is AnyClass
        else { return nil }
        return UnsafeRawPointer(Unmanaged.passUnretained(buffer as AnyObject).toOpaque())
    }

    private static func firstChild(of value: Any) -> Any? {
        Mirror(reflecting: value).children.first?.value
    }
}

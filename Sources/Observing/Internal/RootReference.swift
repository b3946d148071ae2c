import ObservingThreadLocal

/// The observed object, as an observation holds it: not retained, and, on Linux, without a weak reference.
///
/// A weak reference gives the object a side table (an allocation the first time), after which every retain and
/// release of the object, anywhere in the program, takes the runtime's slow path; and it makes the state holding it
/// impossible to move bit by bit (every move of an observation's state went through value witnesses). Here the
/// reference is unowned instead, which counts in the object's own reference-count word:
/// - an unowned reference count, taken by the observation when it is made and given back in its `deinit`, keeps the
///   object's memory (not the object: its deinit runs as usual), so the address never names another object while the
///   observation exists (a count taken by hand, not an `unowned` stored property: every copy of one of those is a
///   count taken and given back, about 70 instructions each);
/// - the object is alive while its deinit has not begun, which the runtime tells without touching anything else:
///   `swift_tryRetain` retains it only if it is not deinitializing (what loading a weak reference does), and
///   `swift_isDeallocating` reads the same bit.
///
/// Both runtime functions act on native Swift objects only, which every class is on Linux. Where Objective-C
/// interoperability exists, an observed class may be an `NSObject` subclass, so there this is a weak reference, as
/// before.
@usableFromInline
struct RootReference {
    #if canImport(ObjectiveC)
        private weak var reference: AnyObject?

        init(_ object: AnyObject) {
            reference = object
        }

        /// The object, retained, if it is still alive.
        @usableFromInline
        var object: AnyObject? {
            reference
        }

        /// Whether the object is still alive.
        var isAlive: Bool {
            reference != nil
        }
    #else
        /// The object's address. Its memory is kept allocated by an unowned reference count that the observation
        /// takes when it makes this (`retainMemory`) and gives back in its `deinit` (`releaseMemory`).
        @usableFromInline let address: UnsafeMutableRawPointer

        init(_ object: AnyObject) {
            address = Unmanaged.passUnretained(object).toOpaque()
        }

        /// The object, retained, if its deinit has not begun.
        @usableFromInline
        var object: AnyObject? {
            guard observing_try_retain(address) else { return nil }
            return Unmanaged<AnyObject>.fromOpaque(address).takeRetainedValue()
        }

        /// Whether the object's deinit has not begun (it may begin right after).
        var isAlive: Bool {
            !observing_is_deallocating(address)
        }

        /// Takes an unowned reference count on the object (call once, while it is alive).
        func retainMemory() {
            observing_unowned_retain(address)
        }

        /// Gives back the count `retainMemory()` took; the address must not be used after.
        func releaseMemory() {
            observing_unowned_release(address)
        }
    #endif
}

#if !canImport(ObjectiveC)
    /// Why `@unchecked Sendable` is safe: it is an address, immutable, and only handed to the runtime's reference-count
    /// functions (atomic) or turned into a strong reference the same way a weak reference's load would; nothing of the
    /// object is touched through it, and the object reaches another thread only if it is itself `Sendable`.
    extension RootReference: @unchecked Sendable {}
#endif

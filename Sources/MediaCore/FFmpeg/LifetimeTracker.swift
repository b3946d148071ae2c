#if THUMBNAILS_TEST_HOOKS
    import Locking

    /// Counts the FFmpeg resource owners (``FormatContext``, ``MemoryIO``, ``Decoder``, ``Packet``,
    /// ``Frame``, ``Scaler``) created and freed while it is the task-local ``current`` one: a test
    /// runs covers inside `LifetimeTracker.$current.withValue(tracker)` and then requires every
    /// count back at zero.
    ///
    /// A test hook: compiled only with `THUMBNAILS_TEST_HOOKS` (debug builds, and the release build
    /// of the tests: Tools/test.sh), like each owner's ``OwnerLifetime``. A release build of the
    /// library has neither, so its owners pay nothing (not even the task-local read).
    package final class LifetimeTracker: Sendable {
        /// The tracker of the code running in this task, if any.
        @TaskLocal package static var current: LifetimeTracker?

        private let counts = LockedValue<[String: Int]>([:])

        package func created(_ name: String) {
            counts.withLock { $0[name, default: 0] += 1 }
        }

        package func freed(_ name: String) {
            counts.withLock { $0[name, default: 0] -= 1 }
        }

        /// Owners created and not yet freed, by type; types back at zero are left out.
        package var live: [String: Int] { counts.withLock { $0.filter { $0.value != 0 } } }
        /// Every type seen so far (to check the scope really counted something).
        package var typesSeen: Set<String> { counts.withLock { Set($0.keys) } }
    }

    /// An FFmpeg owner's membership in the ``LifetimeTracker`` current where it was made: counted
    /// as created when the owner's stored properties are initialised, as freed when they are
    /// destroyed (after the owner's `deinit` freed its FFmpeg object, or when its `init` throws).
    package struct OwnerLifetime: ~Copyable {
        private let tracker: LifetimeTracker?
        private let name: String

        package init<Owner: AnyObject>(of owner: Owner.Type) {
            tracker = LifetimeTracker.current
            name = String(describing: owner)
            tracker?.created(name)
        }

        deinit {
            tracker?.freed(name)
        }
    }
#else
    /// Without `THUMBNAILS_TEST_HOOKS` (a release build of the library): nothing, so an FFmpeg
    /// owner's ``OwnerLifetime`` member is empty and its initialiser compiles to nothing.
    package struct OwnerLifetime: ~Copyable {
        @inline(__always) package init<Owner: AnyObject>(of owner: Owner.Type) {}
    }
#endif

import CanvasKit

/// How a ``CollectionHost`` lays out and orders its cell callbacks.
public struct CollectionHostConfiguration: Sendable, Equatable {
    /// Whether cells are configured ahead of display, as `UICollectionView`'s cell prefetching does.
    public enum Prefetching: Sendable, Equatable {
        /// Cells are configured right before they are displayed and recycled right after they end.
        case disabled
        /// Items up to `distance` positions outside the viewport get `cellForItem` without being displayed (they may
        /// never be); a cell leaving the viewport gets `didEndDisplaying` one layout pass late; a cell that ended but
        /// is still within `distance` of the viewport is displayed again without a new `cellForItem`.
        case enabled(distance: Int)
    }

    /// The order of the display callbacks within one layout pass.
    public enum CallbackOrder: Sendable, Equatable {
        /// Ends first, then displays in ascending index order, then prefetches in ascending index order.
        case indexOrder
        /// All callbacks of a pass in a pseudo-random order drawn from `seed` (reproducible), as when cells are laid
        /// out by a custom layout; a new item may be displayed before an old one ended, so it gets a new cell.
        case shuffled(seed: UInt64)
    }

    /// What happens to the displayed cells when the screen leaves the window.
    public enum Disappearance: Sendable, Equatable {
        /// UIKit's behaviour: the cells stay in the collection and get no `didEndDisplaying` (Apple documents
        /// `didEndDisplaying` as telling that a cell was removed from the collection, "as opposed to monitoring the
        /// view itself to see when it disappears"), and none of them gets `willDisplay` again on return.
        case keepsCellsDisplayed
        /// A stricter host: every displayed cell gets `didEndDisplaying` before ``CollectionHostDelegate/screenWillDisappear()``,
        /// and the visible cells get `willDisplay` again (without a new `cellForItem`) before
        /// ``CollectionHostDelegate/screenDidAppear()``.
        case endsDisplayingVisibleCells
    }

    /// The number of items visible at once (V); at least 1.
    public var viewportSize: Int
    /// Prefetching mode; ``Prefetching/disabled`` by default.
    public var prefetching: Prefetching
    /// Callback order within a layout pass; ``CallbackOrder/indexOrder`` by default.
    public var callbackOrder: CallbackOrder
    /// Behaviour on `screenWillDisappear`; UIKit's ``Disappearance/keepsCellsDisplayed`` by default.
    public var disappearance: Disappearance

    /// Creates a configuration. A `viewportSize` below 1 is raised to 1 and a negative prefetch distance to 0.
    public init(
        viewportSize: Int,
        prefetching: Prefetching = .disabled,
        callbackOrder: CallbackOrder = .indexOrder,
        disappearance: Disappearance = .keepsCellsDisplayed
    ) {
        self.viewportSize = max(1, viewportSize)
        if case .enabled(let distance) = prefetching {
            self.prefetching = .enabled(distance: max(0, distance))
        } else {
            self.prefetching = prefetching
        }
        self.callbackOrder = callbackOrder
        self.disappearance = disappearance
    }

    /// The prefetch distance, 0 when prefetching is disabled.
    var prefetchDistance: Int {
        if case .enabled(let distance) = prefetching { return distance }
        return 0
    }

    /// Whether ends of display are delivered one pass late.
    var deliversLateEnds: Bool {
        if case .enabled = prefetching { return true }
        return false
    }
}

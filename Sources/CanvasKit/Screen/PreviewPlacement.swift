/// Which cell hosts the live camera preview, derived from what the cells show, never moved by effects.
///
/// The rule: the preview is in the cell that shows the canvas in live preview or recording (its display is
/// `livePreview` or `recording`) while that cell is displayed and the screen is on screen; in no cell otherwise. So
/// it is taken out when that cell ends displaying or is reused, put back when it is displayed again, and never left
/// in a cell that shows another canvas. When two displayed cells show the previewing canvas at once (a prefetched cell
/// displayed again beside a new one), the one displayed or updated last hosts it.
///
/// A value: each input returns the ``Move`` it causes, if any, and the caller (the screen adapter; the Apple layer
/// turns a move into removing and adding an `AVCaptureVideoPreviewLayer`) carries it out. `Cell` names a cell; the
/// adapter uses `ObjectIdentifier`s.
public struct PreviewPlacement<Cell: Hashable & Sendable>: Sendable {
    /// A change of host: take the preview out of `from` (if any), then put it into `to` (if any). Never `from == to`.
    public struct Move: Sendable, Hashable {
        /// The cell the preview leaves.
        public let from: Cell?
        /// The cell the preview enters.
        public let to: Cell?

        /// A move from `from` to `to`.
        public init(from: Cell?, to: Cell?) {
            self.from = from
            self.to = to
        }
    }

    private struct CellState: Sendable {
        var canvas: CanvasID?
        var showsPreview = false
        var isDisplayed = false
        /// When the cell last became displayed or started showing the preview (larger: later).
        var stamp: UInt64 = 0
    }

    private var cells: [Cell: CellState] = [:]
    private var clock: UInt64 = 0
    /// The cell hosting the preview now, if any.
    public private(set) var host: Cell?
    /// Whether the screen is on screen (nothing hosts the preview while it is away).
    public private(set) var isScreenVisible = true

    /// No cell known, the screen on screen, nothing hosted.
    public init() {}

    /// The canvas whose cell hosts the preview, if any.
    public var hostCanvas: CanvasID? { host.flatMap { cells[$0]?.canvas } }

    /// The canvas `cell` shows, if it shows one.
    public func canvas(shownBy cell: Cell) -> CanvasID? { cells[cell]?.canvas }

    /// `cell` now shows `canvas` with `display` (it was bound in `cellForItemAt`, or its display changed); a nil
    /// `canvas` or `display`: it shows nothing.
    public mutating func cell(_ cell: Cell, shows canvas: CanvasID?, display: CanvasDisplay?) -> Move? {
        var state = cells[cell] ?? CellState()
        let showsPreview = canvas != nil && display?.isHighlighted == true
        if showsPreview && (!state.showsPreview || state.canvas != canvas) { state.stamp = tick() }
        state.canvas = canvas
        state.showsPreview = showsPreview
        cells[cell] = state
        return settle()
    }

    /// `cell` is about to be displayed (`willDisplay`).
    public mutating func cellWillDisplay(_ cell: Cell) -> Move? {
        var state = cells[cell] ?? CellState()
        state.isDisplayed = true
        state.stamp = tick()
        cells[cell] = state
        return settle()
    }

    /// `cell` is no longer displayed (`didEndDisplaying`).
    public mutating func cellDidEndDisplaying(_ cell: Cell) -> Move? {
        cells[cell]?.isDisplayed = false
        return settle()
    }

    /// `cell` is being reused for another item: it shows nothing and is not displayed until told again.
    public mutating func cellWillBeReused(_ cell: Cell) -> Move? {
        cells[cell] = CellState()
        return settle()
    }

    /// The screen leaves the window: no cell hosts the preview until it is back.
    public mutating func screenWillDisappear() -> Move? {
        isScreenVisible = false
        return settle()
    }

    /// The screen is back: the preview returns to the cell the rule names.
    public mutating func screenDidAppear() -> Move? {
        isScreenVisible = true
        return settle()
    }

    private mutating func tick() -> UInt64 {
        clock += 1
        return clock
    }

    /// Applies the rule; the move from the previous host to the new one, if they differ.
    private mutating func settle() -> Move? {
        var best: (cell: Cell, stamp: UInt64)?
        if isScreenVisible {
            for (cell, state) in cells where state.isDisplayed && state.showsPreview {
                if best == nil || state.stamp > best!.stamp { best = (cell, state.stamp) }
            }
        }
        let next = best?.cell
        guard next != host else { return nil }
        let move = Move(from: host, to: next)
        host = next
        return move
    }
}

/// What ``DisplayLifecycleBinder`` tracks: an object owning a ``CanvasCellViewModel``. `CanvasScreenAdapter` keeps
/// one per cell it made; a screen that forwards the hooks itself may pass its cells.
///
/// Main-actor isolated, like a `UICollectionViewCell` and the hooks that take it.
@MainActor
public protocol CanvasCellViewModelHolder: AnyObject {
    /// The view-model: the same one for the holder's whole life once made. The display hooks do nothing for a holder
    /// that has none yet (it was never configured, so nothing of it is observed).
    var viewModel: CanvasCellViewModel? { get }
}

/// Connects the collection's display hooks to the cell view-models, so observations live exactly while a cell is
/// displayed on a screen that is on screen.
///
/// | hook | what the binder does |
/// | --- | --- |
/// | `willDisplay(cell, index)` | remembers the cell as displayed; if the screen is on screen, starts its observations |
/// | `didEndDisplaying(cell, index)` | forgets the cell; stops its observations (the model stays bound) |
/// | `prepareForReuse(cell)` | forgets the cell; unbinds its view-model (stops observations, cancels its cover) |
/// | `screenWillDisappear()` | stops the observations of every displayed cell (UIKit sends no `didEndDisplaying` then) |
/// | `screenDidAppear()` | starts them again for every cell still displayed |
///
/// Registration is never done in `cellForItem` (that only binds) nor at cell creation. Because the view-models key
/// their observations by (model identity, key path), the order of the hooks does not matter: a repeated
/// `willDisplay`, an end without a start, a reuse for another model, an end after a disappear, or a `willDisplay`
/// while the screen is away are all harmless. Every registration and removal lands in ``log``.
///
/// The binder assumes its screen is on screen until ``screenWillDisappear()``. It is main-actor isolated, like the
/// collection view whose hooks it receives.
@MainActor
public final class DisplayLifecycleBinder {
    /// The registrations and removals of every view-model created through this binder.
    public let log: RegistrationLog
    /// Whether the screen is on screen (observations run only then).
    public private(set) var isScreenVisible = true

    private var displayed: [ObjectIdentifier: CanvasCellViewModel] = [:]

    /// A binder recording into `log`. The default log audits without keeping the history (see
    /// ``RegistrationLog/init(keepsEntries:)``), so a long-lived screen does not grow with every scroll.
    public init(log: RegistrationLog = RegistrationLog(keepsEntries: false)) {
        self.log = log
    }

    /// The cells the binder considers displayed (between `willDisplay` and `didEndDisplaying`).
    public var displayedCellCount: Int { displayed.count }

    /// Whether `cell` is considered displayed.
    public func isDisplaying(_ cell: some CanvasCellViewModelHolder) -> Bool {
        displayed[ObjectIdentifier(cell)] != nil
    }

    /// The cell is about to be displayed at `index`: observe its model while the screen is on screen.
    public func willDisplay(_ cell: some CanvasCellViewModelHolder, at index: Int) {
        guard let viewModel = cell.viewModel else { return }
        displayed[ObjectIdentifier(cell)] = viewModel
        if isScreenVisible { viewModel.startObserving(in: .willDisplay) }
    }

    /// The cell is no longer displayed: stop observing (harmless if it never started).
    public func didEndDisplaying(_ cell: some CanvasCellViewModelHolder, at index: Int) {
        displayed[ObjectIdentifier(cell)] = nil
        cell.viewModel?.stopObserving(in: .didEndDisplaying)
    }

    /// The cell is being reused: unbind its view-model entirely.
    public func prepareForReuse(_ cell: some CanvasCellViewModelHolder) {
        displayed[ObjectIdentifier(cell)] = nil
        cell.viewModel?.unbind(in: .prepareForReuse)
    }

    /// The screen leaves the window: every observation of every displayed cell ends; the cells stay displayed.
    public func screenWillDisappear() {
        isScreenVisible = false
        for viewModel in displayed.values { viewModel.stopObserving(in: .screenWillDisappear) }
    }

    /// The screen is back: the displayed cells observe again (and re-derive what changed meanwhile).
    public func screenDidAppear() {
        isScreenVisible = true
        for viewModel in displayed.values { viewModel.startObserving(in: .screenDidAppear) }
    }
}

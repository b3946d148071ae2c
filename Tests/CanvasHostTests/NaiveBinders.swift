import CanvasHost
import CanvasKit
import Foundation
import Locking
import Observing

/// The original screen's mistakes, one per strategy, replayed on the same host, board and audit as ours.
enum NaiveStrategy: String, CaseIterable, Sendable {
    /// Registers the model's observers in `cellForItem`, removes them in `didEndDisplaying`, ignores disappearance.
    case registersInCellForItem
    /// Registers once, when a cell is created (its first configuration), and never again nor ever removes.
    case registersAtCellCreation
    /// Registers in `willDisplay`, removes in `didEndDisplaying`, but on disappear removes only `status` (and
    /// registers everything again on appear).
    case removesOneKeyPathOnDisappear
    /// Registers in `willDisplay`, remembers only the key paths (not the model), and removes them in `cellForItem`
    /// after the cell was already given its new model: the removal hits the wrong object.
    case forgetsWhichModel
}

/// What a naive cell draws, written from observation handlers.
final class NaiveRendering: Sendable {
    private let value = LockedValue<CanvasDisplay?>(nil)
    var display: CanvasDisplay? {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}

/// A cell that tracks its observers the way the original code did: by key path name.
final class NaiveCell: CollectionHostCell {
    var model: CanvasModel?
    var registeredKeyPaths: Set<String> = []
    var hasRegisteredOnce = false
    let rendering = NaiveRendering()
    weak var source: NaiveSource?

    func prepareForReuse() {
        source?.prepareForReuse(self)
    }
}

/// Data source and delegate implementing one naive strategy. Observers live in a KVO-like table keyed by (object,
/// key path): adding twice makes two observers (each a new `KeyValueObserver` the log audits), removing one that is
/// not there is logged as such (with Cocoa KVO, an exception).
final class NaiveSource: CollectionHostDataSource, CollectionHostDelegate {
    let strategy: NaiveStrategy
    let board: CanvasBoard
    let log = RegistrationLog()
    var items: [CanvasModel]
    private var table: [String: [KeyValueObserver]] = [:]
    private var displayed: [ObjectIdentifier: NaiveCell] = [:]
    private var hasDisappeared = false

    /// The keys a naive cell observes, one by one: what its display reads of the model.
    static let keyPaths = ["status", "segments", "isUndoArmed"]

    init(strategy: NaiveStrategy, board: CanvasBoard) {
        self.strategy = strategy
        self.board = board
        items = board.canvases
    }

    var displayedCount: Int { displayed.count }

    private func tableKey(_ model: CanvasModel, _ keyPath: String) -> String {
        "\(ObjectIdentifier(model)) \(keyPath)"
    }

    /// `addObserver(_:forKeyPath:)`: always a new observer.
    func addObserver(_ cell: NaiveCell, to model: CanvasModel, keyPath: String, in hook: LifecycleHook) {
        let rendering = cell.rendering
        let board = self.board
        let handler: @Sendable (CanvasModel) -> Void = { [weak board] model in
            rendering.display = model.display(boardIsRecording: board?.isRecording ?? false)
        }
        let observer = log.makeObserver()
        switch keyPath {
        case "status": observer.observe(model, \.status, options: []) { model, _ in handler(model) }
        case "isUndoArmed": observer.observe(model, \.isUndoArmed, options: []) { model, _ in handler(model) }
        default: observer.observe(model, \.segments, options: []) { model, _ in handler(model) }
        }
        table[tableKey(model, keyPath), default: []].append(observer)
        cell.registeredKeyPaths.insert(keyPath)
        log.record(
            .registered, RegistrationKey(object: model, objectName: model.id.description, keyPath: keyPath), in: hook)
    }

    /// `removeObserver(_:forKeyPath:)` on `model`: removes one observer if there is one.
    /// Recorded before it is made, as the log wants.
    func removeObserver(_ cell: NaiveCell, from model: CanvasModel, keyPath: String, in hook: LifecycleHook) {
        log.record(
            .removed, RegistrationKey(object: model, objectName: model.id.description, keyPath: keyPath), in: hook)
        let key = tableKey(model, keyPath)
        if var observers = table[key], !observers.isEmpty {
            observers.removeLast().unobserveAll()
            table[key] = observers.isEmpty ? nil : observers
        }
        cell.registeredKeyPaths.remove(keyPath)
    }

    private func show(_ cell: NaiveCell) {
        cell.rendering.display = cell.model?.display(boardIsRecording: board.isRecording)
    }

    func numberOfItems() -> Int { items.count }

    func makeCell() -> NaiveCell {
        let cell = NaiveCell()
        cell.source = self
        return cell
    }

    func cellForItem(at index: Int, configuring cell: NaiveCell) {
        let model = items[index]
        switch strategy {
        case .registersInCellForItem:
            cell.model = model
            for keyPath in Self.keyPaths { addObserver(cell, to: model, keyPath: keyPath, in: .cellForItem) }
        case .registersAtCellCreation:
            cell.model = model
            if !cell.hasRegisteredOnce {
                cell.hasRegisteredOnce = true
                for keyPath in Self.keyPaths { addObserver(cell, to: model, keyPath: keyPath, in: .cellCreation) }
            }
        case .removesOneKeyPathOnDisappear:
            cell.model = model
        case .forgetsWhichModel:
            cell.model = model
            for keyPath in cell.registeredKeyPaths {
                removeObserver(cell, from: model, keyPath: keyPath, in: .cellForItem)
            }
        }
        show(cell)
    }

    func willDisplay(_ cell: NaiveCell, at index: Int) {
        displayed[ObjectIdentifier(cell)] = cell
        guard let model = cell.model else { return }
        switch strategy {
        case .registersInCellForItem, .registersAtCellCreation: break
        case .removesOneKeyPathOnDisappear, .forgetsWhichModel:
            for keyPath in Self.keyPaths { addObserver(cell, to: model, keyPath: keyPath, in: .willDisplay) }
        }
        show(cell)
    }

    func didEndDisplaying(_ cell: NaiveCell, at index: Int) {
        displayed[ObjectIdentifier(cell)] = nil
        guard let model = cell.model else { return }
        switch strategy {
        case .registersInCellForItem, .removesOneKeyPathOnDisappear:
            for keyPath in cell.registeredKeyPaths {
                removeObserver(cell, from: model, keyPath: keyPath, in: .didEndDisplaying)
            }
        case .registersAtCellCreation, .forgetsWhichModel: break
        }
    }

    func prepareForReuse(_ cell: NaiveCell) {}

    func screenWillDisappear() {
        guard strategy == .removesOneKeyPathOnDisappear else { return }
        hasDisappeared = true
        for cell in displayed.values {
            if let model = cell.model {
                removeObserver(cell, from: model, keyPath: "status", in: .screenWillDisappear)
            }
        }
    }

    func screenDidAppear() {
        guard strategy == .removesOneKeyPathOnDisappear, hasDisappeared else { return }
        for cell in displayed.values {
            guard let model = cell.model else { continue }
            for keyPath in Self.keyPaths { addObserver(cell, to: model, keyPath: keyPath, in: .screenDidAppear) }
            show(cell)
        }
    }
}

/// A canvas screen built on a naive strategy, wired to the board exactly like ``CanvasScreen``.
@MainActor
final class NaiveScreen: LifecycleSubject {
    var keysPerCell: Int { NaiveSource.keyPaths.count }
    let board: CanvasBoard
    let source: NaiveSource
    let host: CollectionHost<NaiveSource>
    private var token: ObservationToken?

    init(strategy: NaiveStrategy, board: CanvasBoard, configuration: CollectionHostConfiguration) {
        self.board = board
        source = NaiveSource(strategy: strategy, board: board)
        host = CollectionHost(dataSource: source, configuration: configuration)
        host.delegate = source
        token = board.observe(\.canvases, options: [.new]) { [weak self] _, change in
            MainActor.assumeIsolated { self?.apply(change) }
        }
    }

    private func apply(_ change: ObservedChange<[CanvasModel]>) {
        let source = self.source
        let indexes = change.indexes ?? IndexSet()
        let elements = change.newValue ?? []
        try? host.performBatchUpdates { batch in
            switch change.kind {
            case .insertion:
                for (offset, index) in indexes.enumerated() { source.items.insert(elements[offset], at: index) }
                batch.insertItems(at: indexes)
            case .removal:
                for index in indexes.reversed() { source.items.remove(at: index) }
                batch.deleteItems(at: indexes)
            case .replacement, .setting:
                break
            }
        }
    }

    var log: RegistrationLog { source.log }
    var reloads: Int { host.statistics.reloads }
    var isOnScreen: Bool { host.isOnScreen }
    var shownDisplays: [(index: Int, shown: CanvasDisplay?)] {
        host.visibleCells.map { ($0.index, $0.cell.rendering.display) }
    }
    var displayedCount: Int { host.displayedCells.count }
    func appear() { host.screenDidAppear() }
    func disappear() { host.screenWillDisappear() }
    func scroll(toOffset offset: Int) { host.scroll(toOffset: offset) }
}

import Foundation
import Locking
import Observing

@testable import CanvasKit

/// Observes every property of every model of a board, its `isRecording` and its `canvases`, and records each
/// notification in order.
final class BoardRecorder: Sendable {
    enum Entry: Equatable, CustomStringConvertible {
        case status(CanvasID, old: CanvasStatus?, new: CanvasStatus?)
        case selected(CanvasID, old: Bool?, new: Bool?)
        case videoURL(CanvasID, old: URL??, new: URL??)
        case recording(old: Bool?, new: Bool?)
        case canvases(ObservedChangeKind, IndexSet?)

        var canvas: CanvasID? {
            switch self {
            case .status(let id, _, _), .selected(let id, _, _), .videoURL(let id, _, _): id
            case .recording, .canvases: nil
            }
        }

        var description: String {
            switch self {
            case .status(let id, let old, let new):
                "\(id).status \(old.map(\.rawValue) ?? "?") -> \(new.map(\.rawValue) ?? "?")"
            case .selected(let id, let old, let new):
                "\(id).isSelected \(String(describing: old)) -> \(String(describing: new))"
            case .videoURL(let id, _, _): "\(id).videoURL"
            case .recording(let old, let new): "isRecording \(String(describing: old)) -> \(String(describing: new))"
            case .canvases(let kind, let indexes): "canvases \(kind) \(indexes.map { Array($0) } ?? [])"
            }
        }
    }

    private let log = LockedValue<[Entry]>([])
    private let tokens = LockedValue<[ObservationToken]>([])
    /// Called at every notification, after it is recorded (for checks that read the models mid-event).
    private let probe: LockedValue<(@Sendable () -> Void)?> = LockedValue(nil)

    var entries: [Entry] { log.withLock { $0 } }

    func reset() { log.withLock { $0.removeAll() } }

    func setProbe(_ body: @escaping @Sendable () -> Void) { probe.withLock { $0 = body } }

    private func record(_ entry: Entry) {
        log.withLock { $0.append(entry) }
        probe.withLock { $0 }?()
    }

    /// Starts observing `board` and each of its current models (models added later are observed with `watch`).
    func watch(_ board: CanvasBoard) {
        var new: [ObservationToken] = [
            board.observe(\.isRecording) { [weak self] _, change in
                self?.record(.recording(old: change.oldValue, new: change.newValue))
            },
            board.observe(\.canvases) { [weak self] _, change in
                self?.record(.canvases(change.kind, change.indexes))
            },
        ]
        for model in board.canvases { new += tokens(for: model) }
        tokens.withLock { $0 += new }
    }

    func watch(_ model: CanvasModel) {
        let new = tokens(for: model)
        tokens.withLock { $0 += new }
    }

    private func tokens(for model: CanvasModel) -> [ObservationToken] {
        let id = model.id
        return [
            model.observe(\.status) { [weak self] _, change in
                self?.record(.status(id, old: change.oldValue, new: change.newValue))
            },
            model.observe(\.isSelected) { [weak self] _, change in
                self?.record(.selected(id, old: change.oldValue, new: change.newValue))
            },
            model.observe(\.videoURL) { [weak self] _, change in
                self?.record(.videoURL(id, old: change.oldValue, new: change.newValue))
            },
        ]
    }
}

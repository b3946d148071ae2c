import Foundation
import Observing

// Stand-ins for the canvaskit branch's CanvasModel and CanvasBoard, with the surface the lifecycle code uses.
// This file is deleted when that branch's real types are merged.

/// One canvas, observable (provisional).
public final class CanvasModel: KeyValueObservable, @unchecked Sendable {
    // Why `@unchecked Sendable` is safe: `id` is an immutable Sendable value and every other stored property is
    // `@Observed`, whose value lives behind the wrapper's lock.
    /// The canvas's identity.
    public let id: CanvasID
    /// Its status.
    @Observed public internal(set) var status: CanvasStatus
    /// Whether it is selected.
    @Observed public internal(set) var isSelected: Bool
    /// Its last take.
    @Observed public internal(set) var videoURL: URL?

    init(_ state: CanvasState) {
        id = state.id
        status = state.status
        isSelected = state.isSelected
        videoURL = state.videoURL
    }

    /// What the canvas shows.
    public func display(boardIsRecording: Bool) -> CanvasDisplay {
        CanvasDisplay(status: status, videoURL: videoURL, boardIsRecording: boardIsRecording)
    }

    func apply(_ state: CanvasState) {
        status = state.status
        isSelected = state.isSelected
        videoURL = state.videoURL
    }
}

/// The observable board (provisional).
public final class CanvasBoard: KeyValueObservable, @unchecked Sendable {
    // Why `@unchecked Sendable` is safe: every stored property is `@Observed`/`@ObservedArray` (behind their locks).
    /// The canvases in board order.
    @ObservedArray public internal(set) var canvases: [CanvasModel] = []
    /// Whether a canvas records.
    @Observed public internal(set) var isRecording = false
    /// The state.
    @Observed public private(set) var state: BoardState

    /// A board of `canvasCount` empty canvases.
    public init(canvasCount: Int) {
        let state = BoardState(canvasCount: canvasCount)
        self.state = state
        $canvases.append(contentsOf: state.canvases.map(CanvasModel.init))
    }

    /// Applies `event`.
    @discardableResult
    public func send(_ event: CanvasEvent) -> CanvasReaction {
        var next = state
        let reaction = next.handle(event)
        guard case .accepted(let effects) = reaction else { return reaction }
        state = next
        for effect in effects {
            switch effect {
            case .canvasesRemoved(let indexes):
                for index in indexes.reversed() { $canvases.remove(at: index) }
            case .canvasesInserted(let indexes):
                for index in indexes { $canvases.insert(CanvasModel(next[index]), at: index) }
            default: break
            }
        }
        for (index, model) in $canvases.elements.enumerated() { model.apply(next[index]) }
        isRecording = next.isRecording
        return reaction
    }
}

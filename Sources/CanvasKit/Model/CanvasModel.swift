import Foundation
import Observing

// Why `@unchecked Sendable` is safe: the stored properties are `id`, an immutable `Sendable` value, and three
// `@Observed` wrappers. Each wrapper holds a `PropertyStorage` (Observing's lock-protected, `Sendable` box) and an
// immutable equality closure that captures nothing. No other state exists, so no data race is possible; Swift
// cannot see it only because `Observed` does not declare a conditional `Sendable` conformance.

/// The observable model of one canvas: what a cell's view-model observes.
///
/// Only the `CanvasBoard` that owns a model writes it, and it writes a property only when the value changes, so each
/// notification is a real change. Observe with `model.observe(\.status) { model, change in ... }` (import
/// `Observing`). What the canvas shows is derived with `display(boardIsRecording:)`, never stored.
///
/// While the board applies an event, a canvas that gives up the preview is written `status` first, then
/// `isSelected`; one that takes the preview is written `isSelected` first, then `status`. So between two
/// notifications an observer may see "selected, noPreview", never "inPreview but not selected": two canvases never
/// look like they hold the camera at once.
///
/// Thread safety: every property is read and written under its own lock (`@Observed`), so a model may be read from
/// any thread and handed to queue or main-actor observations.
public final class CanvasModel: KeyValueObservable, Identifiable, @unchecked Sendable, CustomStringConvertible {
    /// The canvas's stable identity; it survives index shifts when other canvases are added or removed.
    public let id: CanvasID
    /// What the canvas is doing with the camera.
    @Observed public internal(set) var status: CanvasStatus
    /// Whether the canvas holds the camera preview (highlighted border).
    @Observed public internal(set) var isSelected: Bool
    /// The last finished take, or nil.
    @Observed public internal(set) var videoURL: URL?

    /// A model mirroring `state`.
    init(_ state: CanvasState) {
        id = state.id
        status = state.status
        isSelected = state.isSelected
        videoURL = state.videoURL
    }

    /// The current values as a value snapshot.
    public var snapshot: CanvasState {
        CanvasState(id: id, status: status, isSelected: isSelected, videoURL: videoURL)
    }

    /// What the canvas shows, given whether some canvas on the board is recording (`CanvasBoard.isRecording`).
    public func display(boardIsRecording: Bool) -> CanvasDisplay {
        CanvasDisplay(status: status, videoURL: videoURL, boardIsRecording: boardIsRecording)
    }

    /// The snapshot's description, e.g. `#2 inPreview selected take=a.mov`.
    public var description: String { snapshot.description }
}

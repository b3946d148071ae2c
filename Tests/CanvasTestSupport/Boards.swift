import CanvasKit
import Foundation

/// Builders shared by the tests.
package enum Boards {
    package static let directory = URL(fileURLWithPath: "/takes/", isDirectory: true)

    package static func take(_ name: String) -> URL {
        URL(fileURLWithPath: name, relativeTo: directory)
    }

    /// A board from a compact picture: one character per canvas, `.` no take, `t` a take named after its index;
    /// the selection is given separately.
    package static func board(_ takes: String, selection: BoardState.Selection? = nil) -> BoardState {
        let urls = takes.enumerated().map { $0.element == "t" ? take("\($0.offset).mov") : nil }
        do {
            return try BoardState(takes: urls, selection: selection)
        } catch {
            preconditionFailure("bad test board: \(error)")
        }
    }

    /// Every state the types can express for a board of `count` canvases, with takes present or absent:
    /// (1 + 2 * count) selections times 2^count take patterns.
    package static func allStates(count: Int) -> [BoardState] {
        var states: [BoardState] = []
        var selections: [BoardState.Selection?] = [nil]
        for index in 0..<count {
            for phase in BoardState.Selection.Phase.allCases { selections.append(.init(index: index, phase: phase)) }
        }
        for mask in 0..<(1 << count) {
            let takes = (0..<count).map { mask & (1 << $0) != 0 ? take("\($0).mov") : nil }
            for selection in selections {
                states.append(try! BoardState(takes: takes, selection: selection))
            }
        }
        return states
    }

    /// Every event worth trying on `state`: each index from -1 to `count` for tap, delete and remove; record; cancel;
    /// add; stop with a fresh file, with the file of another canvas's take, and with the recording canvas's own take.
    package static func events(for state: BoardState, fresh: URL) -> [CanvasEvent] {
        var events: [CanvasEvent] = [
            .record, .cancel, .add, .stop(fresh), .recordingStarted(at: HostTime(seconds: 2)),
            .recordingFailed(.notAuthorized), .recordingCutShort(.call, file: fresh),
            .recordingCutShort(.cameraTaken, file: nil),
        ]
        for index in -1...state.count {
            events += [.tap(index), .delete(index), .remove(index)]
        }
        // By identity: every canvas's, and one no canvas has.
        events += state.indices.map { .tapCanvas(state.id(at: $0)) } + [.tapCanvas(CanvasID(rawValue: .max))]
        let recording = state.recordingIndex
        if let other = state.indices.first(where: { $0 != recording && state.videoURL(at: $0) != nil }) {
            events.append(.stop(state.videoURL(at: other)!))
            events.append(.recordingCutShort(.call, file: state.videoURL(at: other)!))
        }
        if let recording, let own = state.videoURL(at: recording) {
            events.append(.stop(own))
        }
        return events
    }
}

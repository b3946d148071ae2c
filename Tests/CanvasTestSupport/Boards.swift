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
        allStates(count: count, segmentsPerTake: 1)
    }

    /// Every selection of a board of `count` canvases times every take pattern with up to `segmentsPerTake` segments
    /// per take ((1 + 2 * count) * (segmentsPerTake + 1)^count states). Segment k of canvas i is `i.mov` (k = 0) or
    /// `i-k.mov`, one second long, and starts at timeline 0 plus the segments before it. `maximumTakeLength` is set on
    /// every board.
    package static func allStates(count: Int, segmentsPerTake: Int, maximumTakeLength: Double? = nil) -> [BoardState] {
        var states: [BoardState] = []
        var selections: [BoardState.Selection?] = [nil]
        for index in 0..<count {
            for phase in BoardState.Selection.Phase.allCases { selections.append(.init(index: index, phase: phase)) }
        }
        let base = segmentsPerTake + 1
        var patterns = 1
        for _ in 0..<count { patterns *= base }
        for pattern in 0..<patterns {
            var rest = pattern
            var segments: [[TakeSegment]] = []
            for index in 0..<count {
                let n = rest % base
                rest /= base
                segments.append(
                    (0..<n).map { k in
                        TakeSegment(
                            url: take(k == 0 ? "\(index).mov" : "\(index)-\(k).mov"), start: Double(k), duration: 1)
                    })
            }
            for selection in selections {
                var state = try! BoardState(segments: segments, selection: selection)
                state.maximumTakeLength = maximumTakeLength
                states.append(state)
            }
        }
        return states
    }

    /// Every event worth trying on `state`: each index from -1 to `count` for tap, delete, undo and remove; record;
    /// resume; cancel; add; stop with a fresh file (one second long), with the file of another canvas's take, and with
    /// a file of the recording canvas's own take; the soundtrack and microphone settings; disarming an undo; and with
    /// `includingMissing`, marking each take's first and last file missing (and a file of no take) and relinking.
    package static func events(for state: BoardState, fresh: URL, includingMissing: Bool = true) -> [CanvasEvent] {
        var events: [CanvasEvent] = [
            .record, .resume, .cancel, .add, .stop(fresh, duration: 1), .recordingStarted(at: HostTime(seconds: 2)),
            .recordingFailed(.notAuthorized), .recordingCutShort(.call, file: fresh, duration: 1),
            .recordingCutShort(.cameraTaken, file: nil), .disarmUndo, .setMicrophone(!state.recordsSound),
            .setSoundtrack(state.soundtrack == nil ? Soundtrack(url: take("music.m4a"), gain: 0.5) : nil),
        ]
        for index in -1...state.count {
            events += [.tap(index), .delete(index), .remove(index), .undo(index)]
        }
        if includingMissing {
            // The missing mark: each take's first and last file, a file of no take, out of range; relink everywhere.
            for index in -1...state.count {
                let own = state.indices.contains(index) ? state.segments(at: index).map(\.url) : []
                events.append(.markMissing(index, own.first ?? fresh))
                if own.count > 1, let last = own.last { events.append(.markMissing(index, last)) }
                events.append(.relink(index))
            }
        }
        // By identity: every canvas's, and one no canvas has.
        events += state.indices.map { .tapCanvas(state.id(at: $0)) } + [.tapCanvas(CanvasID(rawValue: .max))]
        let recording = state.recordingIndex
        if let other = state.indices.first(where: { $0 != recording && state.videoURL(at: $0) != nil }) {
            events.append(.stop(state.videoURL(at: other)!))
            events.append(.recordingCutShort(.call, file: state.videoURL(at: other)!))
        }
        if let recording {
            // The take's own files: its first and its last segment.
            let own = state.segments(at: recording).map(\.url)
            if let first = own.first { events.append(.stop(first, duration: 1)) }
            if own.count > 1, let last = own.last { events.append(.stop(last, duration: 1)) }
        }
        return events
    }
}

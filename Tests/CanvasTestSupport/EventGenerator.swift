import CanvasKit
import Foundation
import SeededRandom

/// Seeded random event sequences, biased towards events that are accepted, with a few out-of-range indexes and
/// reused take files.
package struct EventGenerator {
    package var generator: SplitMix64
    package var maxCount = 12
    private var takes = 0

    package init(seed: UInt64) {
        generator = SplitMix64(seed: seed)
    }

    package mutating func sequence(length: Int, start: BoardState) -> [CanvasEvent] {
        var state = start
        var events: [CanvasEvent] = []
        for _ in 0..<length {
            let event = next(for: state)
            events.append(event)
            _ = state.handle(event)
        }
        return events
    }

    private mutating func next(for state: BoardState) -> CanvasEvent {
        let roll = Int.random(in: 0..<100, using: &generator)
        let index = Int.random(in: 0..<(state.count + (roll % 10 == 0 ? 2 : 0)), using: &generator)
        switch roll {
        case 0..<32: return .tap(index)
        case 32..<42: return .record
        case 42..<46: return .resume
        case 46..<58:
            takes += 1
            if roll % 6 == 0, let reused = state.indices.compactMap(state.videoURL(at:)).first { return .stop(reused) }
            return .stop(Boards.take("r\(takes).mov"), duration: Double(roll % 3))
        case 58..<61: return .cancel
        case 61: return .recordingStarted(at: HostTime(seconds: Double(index)))
        case 62: return .recordingFailed(RecorderProblem.allCases[index % RecorderProblem.allCases.count])
        case 63:
            takes += 1
            let file = index % 2 == 0 ? Boards.take("c\(takes).mov") : nil
            return .recordingCutShort(.call, file: file)
        case 64..<68: return .delete(index)
        case 68..<73: return .undo(index)
        case 73: return .disarmUndo
        case 74: return .setSoundtrack(index % 2 == 0 ? Soundtrack(url: Boards.take("m\(index).m4a")) : nil)
        case 75: return .setMicrophone(index % 2 == 0)
        case 76..<88: return state.count < maxCount ? .add : .tap(index)
        default: return .remove(index)
        }
    }

    /// Simpler forms of an event, for shrinking: smaller indexes.
    package static func simplifications(of event: CanvasEvent) -> [CanvasEvent] {
        switch event {
        case .tap(let index): (0..<max(index, 0)).map(CanvasEvent.tap)
        case .delete(let index): (0..<max(index, 0)).map(CanvasEvent.delete)
        case .remove(let index): (0..<max(index, 0)).map(CanvasEvent.remove)
        case .undo(let index): (0..<max(index, 0)).map(CanvasEvent.undo)
        default: []
        }
    }
}

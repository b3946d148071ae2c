import CanvasTestSupport
import Foundation

@testable import CanvasKit

/// A bounded model checker: breadth-first search over every board reachable from an empty board whose maximum take
/// length is two one-second segments, with takes collapsed to their number of segments (0, 1 or 2: the limit bounds
/// it), checking `Invariants` on every transition. The soundtrack and the microphone setting are left out of the
/// abstract state (the events that set them are tried on every state).
///
/// With `marksMissing`, the missing mark is searched too (`markMissing` of each take's first and last file, `relink`):
/// the restore is what marks a take in an app, but it does so by sending that event, so the event reaches every state
/// a restore can leave. The mark multiplies the states per canvas by two for a take of one segment and by three for
/// one of two, so it is searched on the smaller boards only.
struct ModelChecker {
    /// The abstract state: board size, selection, each canvas's number of segments and which of them is marked
    /// missing, the armed undo, and whether the recording continues a take.
    struct Key: Hashable, CustomStringConvertible {
        var count: Int
        var selection: BoardState.Selection?
        /// Two bits per canvas: its number of segments.
        var segments: UInt64
        var armed: Int?
        var resuming: Bool
        /// Two bits per canvas: 0 no mark, k + 1 its segment k is marked missing.
        var missing: UInt64 = 0

        init(_ state: BoardState) {
            count = state.count
            selection = state.selection
            segments = 0
            for index in state.indices {
                let take = state.segments(at: index)
                segments |= UInt64(min(take.count, 3)) << UInt64(2 * index)
                let marked = take.firstIndex(where: \.isMissing).map { $0 + 1 } ?? 0
                missing |= UInt64(min(marked, 3)) << UInt64(2 * index)
            }
            armed = state.armedUndo.flatMap(state.index(of:))
            resuming = state.isResuming
        }

        init(
            count: Int, selection: BoardState.Selection?, segments: UInt64, armed: Int?, resuming: Bool,
            missing: UInt64 = 0
        ) {
            self.count = count
            self.selection = selection
            self.segments = segments
            self.armed = armed
            self.resuming = resuming
            self.missing = missing
        }

        func segmentCount(at index: Int) -> Int { Int((segments >> UInt64(2 * index)) & 3) }
        func missingMark(at index: Int) -> Int { Int((missing >> UInt64(2 * index)) & 3) }

        var description: String {
            let canvases = (0..<count).map { index -> String in
                var text = String(repeating: "t", count: segmentCount(at: index))
                if missingMark(at: index) > 0 { text += "m\(missingMark(at: index) - 1)" }
                if text.isEmpty { text = "." }
                if let selection, selection.index == index {
                    text += selection.phase == .inPreview ? "P" : (resuming ? "R+" : "R")
                }
                if armed == index { text += "?" }
                return text
            }
            return "[" + canvases.joined(separator: " ") + "]"
        }
    }

    struct Violation {
        var path: [CanvasEvent]
        var problems: [String]
    }

    struct Report {
        var reachable = 0
        var transitions = 0
        var accepted = 0
        var violations: [Violation] = []
        var declaredButUnreachable: [Key] = []
        var effectKinds: Set<CanvasEffect.Kind> = []
        var rejectionKinds: Set<CanvasRejection.Kind> = []
        var displayKinds: Set<CanvasDisplay.Kind> = []
        var statuses: Set<CanvasStatus> = []
        var maxDepth = 0
        /// The shortest violation (BFS finds violations in order of path length).
        var shortestViolation: Violation? { violations.first }
    }

    var startCount: Int
    var maxCount: Int
    /// Whether `markMissing` and `relink` are tried (and the mark is part of the declared states).
    var marksMissing = false
    var transition: (BoardState, CanvasEvent) -> BoardOutcome = BoardState.transition(from:on:)

    func run() -> Report {
        var report = Report()
        var start = BoardState(canvasCount: startCount)
        start.maximumTakeLength = 2
        var parent: [Key: (Key, CanvasEvent)] = [:]
        var visited: Set<Key> = [Key(start)]
        var frontier = [start]
        var depth: [Key: Int] = [Key(start): 0]
        var fresh = 0
        var head = 0
        while head < frontier.count {
            let state = frontier[head]
            head += 1
            let key = Key(state)
            report.maxDepth = max(report.maxDepth, depth[key]!)
            for index in state.indices {
                report.displayKinds.insert(state.display(at: index).kind)
                report.statuses.insert(state[index].status)
            }
            fresh += 1
            let snapshot = Invariants.Snapshot(state)
            let file = URL(fileURLWithPath: "/bfs/\(fresh).mov")
            for event in Boards.events(for: state, fresh: file, includingMissing: marksMissing) {
                report.transitions += 1
                let outcome = transition(state, event)
                let problems = Invariants.check(before: snapshot, event: event, outcome: outcome)
                switch outcome {
                case .rejected(let rejection):
                    report.rejectionKinds.insert(rejection.kind)
                case .accepted(let next, let effects, _):
                    report.accepted += 1
                    for effect in effects { report.effectKinds.insert(effect.kind) }
                    let nextKey = Key(next)
                    if next.count <= maxCount, !visited.contains(nextKey) {
                        visited.insert(nextKey)
                        parent[nextKey] = (key, event)
                        depth[nextKey] = depth[key]! + 1
                        frontier.append(next)
                    }
                }
                if !problems.isEmpty {
                    report.violations.append(
                        Violation(path: path(to: key, parent: parent) + [event], problems: problems))
                }
            }
        }
        report.reachable = visited.count
        report.declaredButUnreachable = declaredKeys().filter { !visited.contains($0) }
        return report
    }

    /// Every abstract state the types declare for boards of 1 to `maxCount` canvases with takes of at most two
    /// segments: an undo armed only on a canvas with a take while nothing records, a recording that continues a take
    /// only of one segment (two are the limit).
    func declaredKeys() -> [Key] {
        var keys: [Key] = []
        for count in 1...maxCount {
            var selections: [BoardState.Selection?] = [nil]
            for index in 0..<count {
                for phase in BoardState.Selection.Phase.allCases {
                    selections.append(.init(index: index, phase: phase))
                }
            }
            var patterns: UInt64 = 1
            for _ in 0..<count { patterns *= 3 }
            for pattern in 0..<patterns {
                var segments: UInt64 = 0
                var rest = pattern
                for index in 0..<count {
                    segments |= (rest % 3) << UInt64(2 * index)
                    rest /= 3
                }
                for selection in selections {
                    for missing in missingMarks(count: count, segments: segments) {
                        keys += Self.keys(count: count, selection: selection, segments: segments, missing: missing)
                    }
                }
            }
        }
        return keys
    }

    /// The declared keys of one selection, take pattern and missing marks: with no undo armed, with each take's undo
    /// armed while nothing records, and a recording that continues its take (of one segment).
    private static func keys(count: Int, selection: BoardState.Selection?, segments: UInt64, missing: UInt64) -> [Key] {
        let base = Key(
            count: count, selection: selection, segments: segments, armed: nil, resuming: false, missing: missing)
        var keys = [base]
        if let selection, selection.phase == .recording {
            if base.segmentCount(at: selection.index) == 1 {
                keys.append(
                    Key(
                        count: count, selection: selection, segments: segments, armed: nil, resuming: true,
                        missing: missing))
            }
            return keys
        }
        for index in 0..<count where base.segmentCount(at: index) > 0 {
            keys.append(
                Key(
                    count: count, selection: selection, segments: segments, armed: index, resuming: false,
                    missing: missing))
        }
        return keys
    }

    /// Every combination of missing marks of a take pattern (none but 0 without `marksMissing`): per canvas, no mark or
    /// one of its segments.
    private func missingMarks(count: Int, segments: UInt64) -> [UInt64] {
        var marks: [UInt64] = [0]
        guard marksMissing else { return marks }
        for index in 0..<count {
            let choices = Int((segments >> UInt64(2 * index)) & 3)
            marks = marks.flatMap { mark in
                (0...choices).map { mark | (UInt64($0) << UInt64(2 * index)) }
            }
        }
        return marks
    }

    private func path(to key: Key, parent: [Key: (Key, CanvasEvent)]) -> [CanvasEvent] {
        var events: [CanvasEvent] = []
        var current = key
        while let (previous, event) = parent[current] {
            events.append(event)
            current = previous
        }
        return events.reversed()
    }
}

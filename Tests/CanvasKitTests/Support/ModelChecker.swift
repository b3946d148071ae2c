import CanvasTestSupport
import Foundation

@testable import CanvasKit

/// A bounded model checker: breadth-first search over every board reachable from an empty board, with takes
/// collapsed to present/absent, checking `Invariants` on every transition.
struct ModelChecker {
    /// The abstract state: board size, selection, and which canvases have a take.
    struct Key: Hashable, CustomStringConvertible {
        var count: Int
        var selection: BoardState.Selection?
        var takes: UInt64

        init(_ state: BoardState) {
            count = state.count
            selection = state.selection
            takes = 0
            for index in state.indices where state.videoURL(at: index) != nil { takes |= 1 << UInt64(index) }
        }

        init(count: Int, selection: BoardState.Selection?, takes: UInt64) {
            self.count = count
            self.selection = selection
            self.takes = takes
        }

        var description: String {
            let canvases = (0..<count).map { index -> String in
                var text = takes & (1 << UInt64(index)) != 0 ? "t" : "."
                if let selection, selection.index == index { text += selection.phase == .inPreview ? "P" : "R" }
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
    var transition: (BoardState, CanvasEvent) -> BoardOutcome = BoardState.transition(from:on:)

    func run() -> Report {
        var report = Report()
        let start = BoardState(canvasCount: startCount)
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
            for event in Boards.events(for: state, fresh: URL(fileURLWithPath: "/bfs/\(fresh).mov")) {
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

    /// Every abstract state the types declare for boards of 1 to `maxCount` canvases.
    func declaredKeys() -> [Key] {
        var keys: [Key] = []
        for count in 1...maxCount {
            var selections: [BoardState.Selection?] = [nil]
            for index in 0..<count {
                for phase in BoardState.Selection.Phase.allCases {
                    selections.append(.init(index: index, phase: phase))
                }
            }
            for takes in 0..<(UInt64(1) << UInt64(count)) {
                for selection in selections { keys.append(Key(count: count, selection: selection, takes: takes)) }
            }
        }
        return keys
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

import Foundation
import Testing

@testable import CanvasKit

/// Breadth-first search over every board reachable from an empty board (takes as present/absent).
@Suite("Bounded model check")
struct ModelCheckTests {
    /// The board sizes searched. Under ThreadSanitizer (Tools/sanitize.sh sets MULTICANVAS_SANITIZER) only the small
    /// one: the search runs on one thread, so the sanitizer has nothing to check in it, and there the large one holds
    /// one of the two test threads for five minutes, starving the tests that race threads against each other.
    /// (Takes of up to two segments and an armed undo make a board of n canvases about 3^n * n times larger than one
    /// with takes present or absent: 5 canvases is the largest searched in a debug build's time.)
    static let sizes = ProcessInfo.processInfo.environment["MULTICANVAS_SANITIZER"] == nil ? [3, 5] : [3]

    @Test("Every reachable state keeps the invariants and every declared state is reachable", arguments: sizes)
    func reachableStates(canvasCount: Int) {
        // The missing mark is searched on the small boards (it multiplies a take's states by two or three).
        let marksMissing = canvasCount <= 3
        let checker = ModelChecker(startCount: canvasCount, maxCount: canvasCount, marksMissing: marksMissing)
        let report = checker.run()
        let shortest = report.shortestViolation.map {
            $0.path.map(\.description).joined(separator: "; ") + " -> " + $0.problems.joined(separator: ", ")
        }
        print(
            """
            model check, \(canvasCount) canvases\(marksMissing ? " with missing marks" : "") (boards of 1-\(canvasCount) reachable by remove): \
            \(report.reachable) reachable states, \(report.transitions) transitions (\(report.accepted) accepted), \
            depth \(report.maxDepth); shortest violation: \(shortest ?? "none"); \
            declared but unreachable: \(report.declaredButUnreachable.isEmpty ? "none" : "\(report.declaredButUnreachable)")
            """)
        #expect(report.violations.isEmpty, "shortest violation: \(shortest ?? "")")
        #expect(report.declaredButUnreachable.isEmpty, "dead states: \(report.declaredButUnreachable.prefix(10))")
        // Every declared state is reached, and nothing else.
        #expect(report.reachable == checker.declaredKeys().count)
        #expect(
            report.effectKinds == Set(CanvasEffect.Kind.allCases.filter { !$0.isRestoreReport }),
            "an effect no event produces is dead code")
        let missingRejections: Set<CanvasRejection.Kind> = [.notInTake, .takeNotMissing, .takeMissing]
        #expect(
            report.rejectionKinds
                == Set(CanvasRejection.Kind.allCases).subtracting(marksMissing ? [] : missingRejections),
            "a rejection never given is dead code")
        // Every display kind is reached by events (the missing one by `markMissing`, as a restore sends it).
        #expect(report.displayKinds == Set(CanvasDisplay.Kind.allCases).subtracting(marksMissing ? [] : [.missing]))
        #expect(report.statuses == Set(CanvasStatus.allCases))
    }

    @Test("The checker finds the shortest path to a violation in a broken transition function")
    func findsViolations() throws {
        // A mutant that forgets to report the replaced take: I3 breaks on the second stop into the same canvas.
        let mutant: (BoardState, CanvasEvent) -> BoardOutcome = { state, event in
            switch BoardState.transition(from: state, on: event) {
            case .accepted(let next, let effects, let change):
                .accepted(next: next, effects: effects.filter { $0.kind != .takeReplaced }, change: change)
            case .rejected(let rejection): .rejected(rejection)
            }
        }
        let report = ModelChecker(startCount: 2, maxCount: 2, transition: mutant).run()
        let shortest = try #require(report.shortestViolation)
        #expect(shortest.path.map(\.word) == ["tap", "record", "stop", "record", "stop"])
        #expect(shortest.problems.contains { $0.hasPrefix("I3") })

        // A mutant that unlocks taps while recording breaks I2 after three events.
        let unlocked: (BoardState, CanvasEvent) -> BoardOutcome = { state, event in
            if case .tap(let index) = event, let recording = state.recordingIndex, index != recording,
                state.indices.contains(index)
            {
                var next = state
                next.selection = .init(index: index, phase: .inPreview)
                var change = BoardChange(selection: state.selection)
                change.selectionAfter = next.selection
                return .accepted(next: next, effects: [.movePreview(from: recording, to: index)], change: change)
            }
            return BoardState.transition(from: state, on: event)
        }
        let broken = try #require(
            ModelChecker(startCount: 2, maxCount: 2, transition: unlocked).run().shortestViolation)
        #expect(broken.path.map(\.description) == ["tap 0", "record", "tap 1"])
    }
}

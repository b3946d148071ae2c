import CanvasHost
import CanvasSimulation
import Foundation
import Testing

@testable import CanvasKit

/// The exported transition table is compared with committed golden files, so a rule change shows in review.
/// Regenerate them with `UPDATE_GOLDEN=1 swift test --filter TransitionTableTests`.
@Suite("Transition table export")
struct TransitionTableTests {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    private func compare(_ generated: String, golden name: String) throws {
        let url = Self.fixtures.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["UPDATE_GOLDEN"] == "1" {
            try generated.write(to: url, atomically: true, encoding: .utf8)
        }
        let golden = try String(contentsOf: url, encoding: .utf8)
        if generated != golden {
            let generatedLines = generated.split(separator: "\n", omittingEmptySubsequences: false)
            let goldenLines = golden.split(separator: "\n", omittingEmptySubsequences: false)
            let first = zip(generatedLines, goldenLines).enumerated().first { $0.element.0 != $0.element.1 }
            Issue.record(
                """
                \(name) differs from the transition function (first difference at line \((first?.offset ?? min(generatedLines.count, goldenLines.count)) + 1)):
                golden:    \(first.map { String($0.element.1) } ?? "(end)")
                generated: \(first.map { String($0.element.0) } ?? "(end)")
                Review the rule change, then run UPDATE_GOLDEN=1 swift test --filter TransitionTableTests.
                """)
        }
    }

    @Test("Markdown matches the golden file")
    func markdownGolden() throws {
        try compare(TransitionTable().markdown, golden: "transition-table.md")
    }

    @Test("DOT matches the golden file")
    func dotGolden() throws {
        try compare(TransitionTable().dot, golden: "transition-table.dot")
    }

    @Test("Rows come from running the transition function, not from a copy")
    func rowsComeFromTheFunction() throws {
        let table = TransitionTable()
        let move = try #require(table.rows.first { $0.state == "s inPreview" && $0.event == "tap j" })
        #expect(move.outcome == "j selected, inPreview; s deselected, noPreview")
        #expect(move.effects == "move preview s -> j")
        let locked = try #require(table.rows.first { $0.state == "s recording, s has a take" && $0.event == "tap j" })
        #expect(locked.outcome == "rejected: locked while recording: s is recording")

        // A changed rule changes the table: a mutant that keeps the preview on s when j is tapped.
        let mutant = TransitionTable { state, event in
            if case .tap = event, state.selection?.phase == .inPreview { return .rejected(.nothingToRecord) }
            return BoardState.transition(from: state, on: event)
        }
        #expect(mutant.markdown != table.markdown)
        #expect(mutant.dot != table.dot)
    }

    @Test("Every rule and every rejection appears in the table")
    func coverage() {
        let table = TransitionTable()
        var effectKinds: Set<CanvasEffect.Kind> = []
        var rejectionKinds: Set<CanvasRejection.Kind> = []
        for scenario in table.scenarios {
            for event in scenario.events {
                switch BoardState.transition(from: scenario.board, on: event) {
                case .accepted(_, let effects, _): for effect in effects { effectKinds.insert(effect.kind) }
                case .rejected(let rejection): rejectionKinds.insert(rejection.kind)
                }
            }
        }
        #expect(effectKinds == Set(CanvasEffect.Kind.allCases.filter { !$0.isRestoreReport }))
        // The table is written by index; a tap by identity is a tap at its canvas's index, or refused when the canvas
        // is gone (that rejection is covered by the exhaustive tests).
        #expect(rejectionKinds == Set(CanvasRejection.Kind.allCases.filter { $0 != .canvasNotOnBoard }))
        #expect(
            Set(table.displayRows.map { $0.shows.split(separator: " ")[0] })
                == Set(CanvasDisplay.Kind.allCases.map { Substring($0.rawValue) }))
    }
}

import CanvasKit
import Foundation

extension TransitionTable {
    /// The table as Markdown: the boards, the transition table (state, event, outcome, effects) and what a canvas
    /// shows. Deterministic: the same code gives the same bytes.
    public var markdown: String {
        var lines = [
            "<!-- Generated from BoardState.transition by TransitionTable; do not edit by hand. -->",
            "# Canvas board transitions",
            "",
            "Representative boards (`s` is the selected canvas, `n` the index one past the end):",
            "",
        ]
        for scenario in scenarios {
            let canvases = scenario.board.indices.map { index in
                let canvas = scenario.board[index]
                let take = canvas.segments.isEmpty ? "no take" : TransitionTable.takeName(canvas)
                return
                    "\(scenario.names[index]) \(canvas.status.rawValue) (\(take)\(canvas.isUndoArmed ? ", undo armed" : ""))"
            }
            var settings = ""
            if let limit = scenario.board.maximumTakeLength {
                settings += "; maximum take length \(TakeLength.describe(limit))"
            }
            lines.append("- \(scenario.label): " + canvases.joined(separator: ", ") + settings)
        }
        lines += ["", "| state | event | outcome | effects |", "| --- | --- | --- | --- |"]
        for row in rows {
            lines.append("| \(cell(row.state)) | `\(row.event)` | \(cell(row.outcome)) | \(cell(row.effects)) |")
        }
        lines += ["", "## What a canvas shows", "", "| canvas | shows | highlighted |", "| --- | --- | --- |"]
        for row in displayRows {
            lines.append("| \(row.canvas) | \(cell(row.shows)) | \(row.isHighlighted ? "yes" : "no") |")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The table as a Graphviz DOT digraph over the three phases of a board (none selected, `s inPreview`,
    /// `s recording`). Accepted events are solid edges labelled `event / effects`; rejected events are dashed
    /// self-loops labelled `event: reason kind`. Duplicate edges are merged.
    public var dot: String {
        let phases = ["none selected", "s inPreview", "s recording"]
        var lines = [
            "// Generated from BoardState.transition by TransitionTable; do not edit by hand.",
            "digraph CanvasBoard {",
            "  rankdir=LR;",
            "  node [shape=box, style=rounded];",
        ]
        for (index, phase) in phases.enumerated() {
            lines.append("  p\(index) [label=\(quoted(phase))];")
        }
        var seen: Set<String> = []
        for row in rows {
            let from = phases.firstIndex(of: row.phaseBefore) ?? 0
            let to = phases.firstIndex(of: row.phaseAfter) ?? 0
            let edge: String
            if row.isAccepted {
                edge = "  p\(from) -> p\(to) [label=\(quoted("\(row.event) / \(row.effects)"))];"
            } else {
                let reason = row.outcome.dropFirst("rejected: ".count).prefix { $0 != ":" }
                edge = "  p\(from) -> p\(to) [style=dashed, color=gray40, label=\(quoted("\(row.event): \(reason)"))];"
            }
            if seen.insert(edge).inserted { lines.append(edge) }
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    private func cell(_ text: String) -> String {
        text.replacingOccurrences(of: "|", with: "\\|")
    }

    private func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}

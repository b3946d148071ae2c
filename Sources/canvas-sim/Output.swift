import CanvasKit
import CanvasSimulation
import CommandLineSupport
import Foundation
import OrderedJSON

/// How canvas-sim prints steps: a readable table per step (text) or one JSON object per step.
enum Output {
    // MARK: JSON

    /// One step as exactly the JSON line of Docs/canvas-sim.md: `step`, `event`, `accepted`, `reason`, `canvases` (each
    /// `index`, `status`, `selected`, `video`, `segments`, `undoArmed`, `shows`), `effects`, `screen` (`viewport`: the
    /// first and last canvas on screen, or null while the screen is away; `preview`: the canvas whose cell holds the
    /// live preview, or null), `music` (the board's soundtrack: `file`, `start`, `gain`, `loop`, or null) and `mic`,
    /// nothing else, so readers that compare whole objects with the contract keep working. A cover that failed during
    /// the step is reported as one more effect string, `cover failed N FILE: REASON`, after the event's own effects.
    /// With a draft (`durable` not nil), one more key at the end: `durable`, the number of the last record synced to
    /// the draft when the step was printed.
    static func json(_ step: SimulationStep, durable: UInt64? = nil) -> String {
        var line = JSONLine()
        line.add("step", .int(step.number))
        line.add("event", .string(step.event))
        line.add("accepted", .bool(step.isAccepted))
        line.add("reason", .nullable(step.reason))
        line.add("canvases", .array(step.canvases.map { .object(json($0)) }))
        let coverFailures = step.coverFailures.map { failure in
            "cover failed \(failure.index) \(TakeName.describe(failure.videoURL)): \(failure.reason)"
        }
        line.add("effects", .array((step.effects.map(\.description) + coverFailures).map { .string($0) }))
        var screen = JSONLine()
        screen.add("viewport", step.viewport.map { .array([.int($0.lowerBound), .int($0.upperBound)]) } ?? .null)
        screen.add("preview", step.previewIndex.map { .int($0) } ?? .null)
        line.add("screen", .object(screen))
        line.add("music", step.soundtrack.map { .object(json($0)) } ?? .null)
        line.add("mic", .bool(step.recordsSound))
        if let durable { line.add("durable", .int(Int(clamping: durable))) }
        return line.description
    }

    /// What opening a draft found, as the first JSON line: `draft` (the file), `new`, `sequence` (the last record
    /// restored), `snapshot`, `replayed`, `dropped`, `corruption` (only when the journal was damaged: what was found, where it was kept), `effects` (the restore's, for the app to handle) and `canvases`
    /// (the board as restored).
    static func json(draft: BoardDraft, named name: String, canvases: [SimulationCanvas]) -> String {
        let restore = draft.restore
        var line = JSONLine()
        line.add("draft", .string(name))
        line.add("new", .bool(restore.isNew))
        line.add("sequence", .int(Int(clamping: restore.sequence)))
        line.add("snapshot", .int(Int(clamping: restore.snapshotSequence)))
        line.add("replayed", .int(restore.replayedRecords))
        line.add("dropped", .int(restore.droppedRecords))
        if let corruption = restore.corruption { line.add("corruption", .string(corruption.description)) }
        line.add("effects", .array(restore.effects.map { .string($0.description) }))
        line.add("canvases", .array(canvases.map { .object(json($0)) }))
        return line.description
    }

    /// What opening a draft found, in text: `draft: FILE resumed at record 12 (...)` and one line per effect.
    static func text(draft: BoardDraft, named name: String) -> String {
        let restore = draft.restore
        var text =
            restore.isNew
            ? "draft: \(name) created\n"
            : "draft: \(name) resumed at record \(restore.sequence) (snapshot at record "
                + "\(restore.snapshotSequence), \(restore.replayedRecords) records replayed)\n"
        if let corruption = restore.corruption { text += "draft: corrupt journal: \(corruption)\n" }
        for effect in restore.effects { text += "draft: \(effect)\n" }
        return text
    }

    private static func json(_ canvas: SimulationCanvas) -> JSONLine {
        var object = JSONLine()
        object.add("index", .int(canvas.index))
        object.add("status", .string(canvas.status.rawValue))
        object.add("selected", .bool(canvas.isSelected))
        object.add("video", .nullable(canvas.videoURL.map(TakeName.describe)))
        object.add("segments", .array(canvas.segments.map { .string(TakeName.describe($0.url)) }))
        object.add("undoArmed", .bool(canvas.isUndoArmed))
        if let missing = canvas.segments.first(where: \.isMissing) {
            object.add("missing", .string(TakeName.describe(missing.url)))
        }
        object.add("shows", .string(canvas.shows.name))
        return object
    }

    private static func json(_ soundtrack: Soundtrack) -> JSONLine {
        var object = JSONLine()
        object.add("file", .string(TakeName.describe(soundtrack.url)))
        object.add("start", .double(soundtrack.start))
        object.add("gain", .double(soundtrack.gain))
        object.add("loop", .bool(soundtrack.loops))
        return object
    }

    // MARK: Text

    /// The heading and table of the board before any event.
    static func initialBoard(_ canvases: [SimulationCanvas], screen: String) -> String {
        "initial board\n" + table(canvases, onScreen: true) + "  screen: \(screen)\n"
    }

    /// One step: the event and whether it was accepted, the canvases, the effects, cover errors, the screen.
    static func text(_ step: SimulationStep) -> String {
        var text = "\nstep \(step.number): \(step.event): "
        text += step.reason.map { "rejected: \($0)" } ?? "accepted"
        text += "\n" + table(step.canvases, onScreen: step.isOnScreen)
        text +=
            "  effects: " + (step.effects.isEmpty ? "none" : step.effects.map(\.description).joined(separator: ", "))
        text += "\n"
        for failure in step.coverFailures {
            text += "  cover error: canvas \(failure.index): \(failure.reason)\n"
        }
        text += "  screen: \(screen(step))\n"
        if step.soundtrack != nil || !step.recordsSound {
            text +=
                "  board: \(step.soundtrack.map { "\($0)" } ?? "no music"), mic \(step.recordsSound ? "on" : "off")\n"
        }
        return text
    }

    /// `on screen, viewport 0-3 of 4, preview 0, cells made 4, reused 0, live observations 21`: the JSON's `screen`
    /// (the viewport is `none` while the screen is away, the preview `none` when no cell holds it) and the host's
    /// figures.
    static func screen(_ step: SimulationStep) -> String {
        screen(
            onScreen: step.isOnScreen, viewport: step.viewport, preview: step.previewIndex, count: step.canvases.count,
            made: step.cellsMade, reused: step.cellsReused, observations: step.liveObservations)
    }

    static func screen(
        onScreen: Bool, viewport: ClosedRange<Int>?, preview: Int?, count: Int, made: Int, reused: Int,
        observations: Int
    ) -> String {
        let range = viewport.map { "\($0.lowerBound)-\($0.upperBound)" } ?? "none"
        return
            "\(onScreen ? "on screen" : "away"), viewport \(range) of \(count), preview \(preview.map(String.init) ?? "none"), "
            + "cells made \(made), reused \(reused), live observations \(observations)"
    }

    /// The canvases as an aligned table, indented by two spaces. The `cell` column says `visible` (a cell on screen
    /// shows the canvas), `offscreen` (scrolled away) or `away` (the screen has disappeared).
    static func table(_ canvases: [SimulationCanvas], onScreen: Bool) -> String {
        let header = ["canvas", "status", "selected", "video", "shows", "cell", "cover"]
        let rows = canvases.map { canvas in
            [
                String(canvas.index), canvas.status.rawValue, canvas.isSelected ? "yes" : "no",
                videoColumn(canvas),
                canvas.shows.name + (canvas.shows.take?.isUndoArmed == true ? " (delete the last segment?)" : ""),
                canvas.isVisible ? "visible" : onScreen ? "offscreen" : "away", coverColumn(canvas),
            ]
        }
        let widths = header.indices.map { column in
            ([header] + rows).map { $0[column].count }.max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            var text = " "
            for (column, cell) in cells.enumerated() {
                text += " " + cell
                if column < cells.count - 1 { text += String(repeating: " ", count: widths[column] - cell.count) }
            }
            return text + "\n"
        }
        return ([header] + rows).map(line).joined()
    }

    /// The take's files joined by `+`, with the number of segments and the length when there are several (`a.mov+b.mov
    /// (2 segments, 3s)`), then `missing a.mov` when a file is marked missing; or `-`.
    private static func videoColumn(_ canvas: SimulationCanvas) -> String {
        let files = takeColumn(canvas)
        guard let missing = canvas.segments.first(where: \.isMissing) else { return files }
        return files + ", missing " + TakeName.describe(missing.url)
    }

    private static func takeColumn(_ canvas: SimulationCanvas) -> String {
        guard !canvas.segments.isEmpty else { return canvas.videoURL.map(TakeName.describe) ?? "-" }
        let files = canvas.segments.map { TakeName.describe($0.url) }.joined(separator: "+")
        guard canvas.segments.count > 1 else { return files }
        let length = canvas.segments.reduce(0) { $0 + $1.duration }
        return files + " (\(canvas.segments.count) segments, \(TakeLength.describe(length)))"
    }

    /// `160x90` (the image loaded), `simulated` (a bare `stop`: no file), `failed`, or `-`.
    private static func coverColumn(_ canvas: SimulationCanvas) -> String {
        guard canvas.videoURL != nil else { return "-" }
        if let cover = canvas.cover { return "\(cover.width)x\(cover.height)" }
        if canvas.takeIsSimulated { return "simulated" }
        if canvas.coverError != nil { return "failed" }
        return "-"
    }

    /// The summary printed at the end of a text run.
    static func summary(_ summary: SimulationSummary) -> String {
        """

        summary
          events accepted: \(summary.accepted)
          events rejected: \(summary.rejected)
          live observations: \(summary.liveObservations) (cell view-model registrations: \(summary.cellRegistrations))
          reloads: \(summary.reloads)
          stale cells: \(summary.staleCells)
          registration violations: \(summary.registrationViolations)
          cells made: \(summary.cellsMade), reused: \(summary.cellsReused)

        """
    }
}

import Foundation

@testable import CanvasKit

/// The invariants of the state machine (Docs/CanvasKit.md), checked on the derived per-canvas snapshots (not on the representation that
/// makes most of them hold by construction), and the rules every accepted transition must follow.
///
/// Written with plain loops: the model checker runs it hundreds of thousands of times in a debug build.
enum Invariants {
    /// Violations of the state invariants (N >= 1, I1, I2, unique take files) by `state`.
    static func check(_ state: BoardState) -> [String] {
        check(Snapshot(state))
    }

    static func check(_ snapshot: Snapshot) -> [String] {
        let state = snapshot.state
        var problems: [String] = []
        if state.count < 1 { problems.append("board has no canvas") }
        var selected = 0
        var recording = 0
        let isRecording = state.isRecording
        for index in 0..<snapshot.canvases.count {
            let canvas = snapshot.canvases[index]
            if canvas.isSelected { selected += 1 }
            if canvas.status == .recording { recording += 1 }
            if canvas.status != .noPreview && !canvas.isSelected {
                problems.append("I1: canvas \(index) is \(canvas.status) but not selected")
            }
            if canvas.isSelected && canvas.status == .noPreview {
                problems.append("I1: canvas \(index) is selected but shows no preview")
            }
            let display = canvas.display(boardIsRecording: isRecording)
            if display.isHighlighted != canvas.isSelected {
                problems.append(
                    "display: canvas \(index) highlighted=\(display.isHighlighted) selected=\(canvas.isSelected)")
            }
            for (position, file) in snapshot.files[index].enumerated() {
                for earlier in snapshot.files[index][..<position] where sameFile(earlier, file) {
                    problems.append("canvas \(index) has the file \(file) twice")
                }
                for other in 0..<index where snapshot.files[other].contains(where: { sameFile($0, file) }) {
                    problems.append("canvases \(other) and \(index) share a take file")
                }
            }
            if canvas.isUndoArmed && (canvas.segments.isEmpty || isRecording) {
                problems.append("canvas \(index) has an armed undo it cannot confirm")
            }
        }
        if selected > 1 { problems.append("I1: \(selected) canvases are selected") }
        if recording > 1 { problems.append("I2: \(recording) canvases are recording") }
        return problems
    }

    static func sameFile(_ a: URL?, _ b: URL?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        return a == b || a.absoluteURL == b.absoluteURL
    }

    private static func index(of id: CanvasID, in ids: [CanvasID]) -> Int? {
        for index in 0..<ids.count where ids[index] == id { return index }
        return nil
    }

    /// The per-canvas arrays of a board, computed once and shared by every event tried on it.
    struct Snapshot {
        let state: BoardState
        let ids: [CanvasID]
        let takes: [URL?]
        /// Every canvas's segment files, in order.
        let files: [[URL]]
        let canvases: [CanvasState]

        init(_ state: BoardState) {
            self.state = state
            var ids: [CanvasID] = []
            var takes: [URL?] = []
            var files: [[URL]] = []
            var canvases: [CanvasState] = []
            for index in 0..<state.count {
                let canvas = state[index]
                ids.append(canvas.id)
                takes.append(canvas.videoURL)
                files.append(canvas.segments.map(\.url))
                canvases.append(canvas)
            }
            self.ids = ids
            self.takes = takes
            self.files = files
            self.canvases = canvases
        }
    }

    /// Violations of the transition rules by `outcome`, the outcome of `event` on `before`.
    static func check(before: BoardState, event: CanvasEvent, outcome: BoardOutcome) -> [String] {
        check(before: Snapshot(before), event: event, outcome: outcome)
    }

    /// Violations of the transition rules by `outcome`, the outcome of `event` on `snapshot.state`.
    static func check(before snapshot: Snapshot, event: CanvasEvent, outcome: BoardOutcome) -> [String] {
        let before = snapshot.state
        var problems: [String] = []
        // The in-place form must agree with the pure form and leave a rejected board untouched.
        var inPlace = before
        let step = inPlace.handle(event)
        if step.outcome(next: inPlace) != outcome { problems.append("handle(_:) disagrees with transition") }
        if !step.isAccepted, inPlace != before { problems.append("a rejected event changed the board") }

        guard case .accepted(let after, let effects, let change) = outcome else { return problems }
        let afterSnapshot = Snapshot(after)
        problems += check(afterSnapshot)
        problems += checkWrites(change.writes(after: after), before: snapshot, after: afterSnapshot)
        switch event {
        case .tap, .tapCanvas, .delete, .add, .remove, .undo:
            if before.isRecording { problems.append("I2: \(event) accepted while recording") }
        case .record, .resume, .stop, .cancel, .recordingStarted, .recordingFailed, .recordingCutShort, .disarmUndo,
            .setSoundtrack, .setMicrophone, .markMissing, .relink:
            break
        }
        // Every accepted event but an undo leaves no undo armed; an undo leaves at most its own canvas's armed.
        let armed = afterSnapshot.canvases.indices.filter { afterSnapshot.canvases[$0].isUndoArmed }
        if case .undo(let index) = event {
            if armed.count > 1 || (armed.first.map { $0 != index } ?? false) { problems.append("undo armed \(armed)") }
        } else if !armed.isEmpty {
            problems.append("\(event) left undo armed on \(armed)")
        }

        let beforeIDs = snapshot.ids
        let afterIDs = afterSnapshot.ids

        // I3: a take that disappears is reported, by an event that may remove takes; nothing else is reported.
        var reported: [URL] = []
        var newTakes: [URL] = []
        var previewEffects: [CanvasEffect] = []
        var inserted: [IndexSet] = []
        var removed: [IndexSet] = []
        var startsRecording = false
        for effect in effects {
            switch effect {
            case .takeReplaced, .takeRemoved, .segmentRemoved: reported += effect.givenUpFiles
            case .takeFinished(_, let url): newTakes.append(url)
            case .attachPreview, .movePreview, .detachPreview: previewEffects.append(effect)
            case .canvasesInserted(let set): inserted.append(set)
            case .canvasesRemoved(let set): removed.append(set)
            case .startRecording: startsRecording = true
            case .takeDiscarded, .coverWanted, .recordingStarted, .recordingFailed, .recordingCutShort,
                .takeLimitReached, .soundtrackChanged, .microphoneChanged:
                break
            // Only a draft's restore reports these; no event does.
            case .takeInterrupted, .takeMissing, .draftRecordsDropped: problems.append("\(effect) from an event")
            }
        }
        var lost: [URL] = []
        var expectedRemoved = IndexSet()
        for oldIndex in 0..<beforeIDs.count {
            let newIndex = index(of: beforeIDs[oldIndex], in: afterIDs)
            if newIndex == nil { expectedRemoved.insert(oldIndex) }
            for old in snapshot.files[oldIndex] {
                if let newIndex, afterSnapshot.files[newIndex].contains(where: { sameFile($0, old) }) { continue }
                lost.append(old)
            }
        }
        if lost.count != reported.count || zip(lost, reported).contains(where: { !sameFile($0, $1) }) {
            problems.append(
                "I3: takes lost \(lost.map(TakeName.describe)) but reported \(reported.map(TakeName.describe))")
        }
        if !lost.isEmpty {
            switch event {
            case .stop, .delete, .remove, .recordingCutShort, .undo: break
            default: problems.append("I3: \(event) removed a take")
            }
        }
        var gained: [URL] = []
        var expectedInserted = IndexSet()
        for newIndex in 0..<afterIDs.count {
            let oldIndex = index(of: afterIDs[newIndex], in: beforeIDs)
            if oldIndex == nil { expectedInserted.insert(newIndex) }
            for new in afterSnapshot.files[newIndex] {
                // A stop that re-records into a file of the take it replaces finishes it all the same.
                let kept = oldIndex.map { snapshot.files[$0].contains { sameFile($0, new) } } ?? false
                if kept && !newTakes.contains(where: { sameFile($0, new) }) { continue }
                gained.append(new)
            }
        }
        if gained.count != newTakes.count || zip(gained, newTakes).contains(where: { !sameFile($0, $1) }) {
            problems.append(
                "takes gained \(gained.map(TakeName.describe)) but finished \(newTakes.map(TakeName.describe))")
        }

        // Preview: attach, move or detach exactly when the previewing canvas changes, else nothing.
        let previewBefore = before.selection.map { beforeIDs[$0.index] }
        let previewAfter = after.selection.map { afterIDs[$0.index] }
        var expectedPreview: [CanvasEffect] = []
        switch (previewBefore, previewAfter) {
        case (nil, let to?): expectedPreview = [.attachPreview(to: index(of: to, in: afterIDs)!)]
        case (let from?, nil): expectedPreview = [.detachPreview(from: index(of: from, in: beforeIDs)!)]
        case (let from?, let to?) where from != to:
            expectedPreview = [.movePreview(from: index(of: from, in: beforeIDs)!, to: index(of: to, in: afterIDs)!)]
        default: break
        }
        if previewEffects != expectedPreview {
            problems.append("preview effects \(previewEffects) but expected \(expectedPreview)")
        }

        // Recording starts only by record, into the previewing canvas, and ends by stop or cancel, or by the recorder's
        // failure to start or a cut short.
        if before.isRecording != after.isRecording || startsRecording {
            switch (event, before.selection, after.selection) {
            case (let start, let s?, let t?)
            where (start == .record || start == .resume) && s.phase == .inPreview
                && t == .init(index: s.index, phase: .recording):
                let playing = before.timelineTakes.filter { $0.index != s.index }
                let segments = event == .record ? 0 : before.segments(at: s.index).count
                if effects.count != 1 || effects.first?.recordingPlayback?.takes != playing
                    || effects.first?.recordingIndex != s.index || effects.first?.recordingSettings?.segment != segments
                    || effects.first?.recordingPlayback?.soundtrack != before.soundtrack
                    || effects.first?.recordingSettings?.recordsSound != before.recordsSound
                {
                    problems.append("record effects \(effects)")
                }
            case (.stop, let s?, let t?), (.cancel, let s?, let t?), (.recordingFailed, let s?, let t?),
                (.recordingCutShort, let s?, let t?):
                if s.phase != .recording || t != .init(index: s.index, phase: .inPreview) {
                    problems.append("\(event) did not return the recording canvas to inPreview")
                }
            default:
                problems.append(
                    "recording changed by \(event): \(String(describing: before.selection)) -> \(String(describing: after.selection))"
                )
            }
        }
        if case .cancel = event, effects != [.takeDiscarded(index: before.recordingIndex ?? -1)] {
            problems.append("cancel effects \(effects)")
        }
        if case .recordingStarted(let time) = event,
            effects != [.recordingStarted(index: before.recordingIndex ?? -1, at: time)]
        {
            problems.append("started effects \(effects)")
        }
        if case .recordingFailed(let problem) = event,
            effects != [.recordingFailed(index: before.recordingIndex ?? -1, problem: problem)]
        {
            problems.append("failed effects \(effects)")
        }
        if case .recordingCutShort(let problem, let file, _, _) = event {
            // Ended as stop exactly when the file became the canvas's take; as cancel otherwise, with the take kept.
            let index = before.recordingIndex ?? -1
            let finished = effects.contains { $0.kind == .takeFinished }
            let ending: CutShortEnding = finished ? .stop : .cancel
            if effects.first != .recordingCutShort(index: index, problem: problem, endedAs: ending)
                || (finished && (file == nil || !sameFile(after.segments(at: index).last?.url, file)))
                || (!finished && Array(effects.dropFirst()) != [.takeDiscarded(index: index)])
            {
                problems.append("cut-short effects \(effects)")
            }
        }

        // Collection changes: exactly the identities that appeared or disappeared, in one effect each, the removal
        // last; the others keep their order.
        if inserted != (expectedInserted.isEmpty ? [] : [expectedInserted]) {
            problems.append("inserted \(expectedInserted), effects \(inserted)")
        }
        if removed != (expectedRemoved.isEmpty ? [] : [expectedRemoved]) {
            problems.append("removed \(expectedRemoved), effects \(removed)")
        }
        if !removed.isEmpty, effects.last?.kind != .canvasesRemoved {
            problems.append("canvasesRemoved is not the last effect")
        }
        var survivorsBefore: [CanvasID] = []
        for id in beforeIDs where index(of: id, in: afterIDs) != nil { survivorsBefore.append(id) }
        var survivorsAfter: [CanvasID] = []
        for id in afterIDs where index(of: id, in: beforeIDs) != nil { survivorsAfter.append(id) }
        if survivorsBefore != survivorsAfter { problems.append("surviving canvases changed order") }

        // A tap touches at most the tapped canvas and the one that was selected (and disarms an undo), and never a
        // take.
        if case .tap(let tapped) = event {
            for newIndex in 0..<afterIDs.count {
                let id = afterIDs[newIndex]
                if id == beforeIDs[tapped] || id == previewBefore { continue }
                var old = index(of: id, in: beforeIDs).map { snapshot.canvases[$0] }
                old?.isUndoArmed = false
                if let old, afterSnapshot.canvases[newIndex] != old {
                    problems.append("tap \(tapped) changed canvas \(newIndex)")
                }
            }
        }
        return problems
    }

    /// Violations by `writes` of what the models must see: performed one by one on per-canvas values that start as
    /// `before`, every write changes a value, no write leaves a canvas previewing without being selected or two
    /// canvases selected, and the values end as `after` (matched by position, with insertions and removals).
    static func checkWrites(_ writes: [BoardWrite], before: Snapshot, after: Snapshot) -> [String] {
        /// What one model holds: its first file and its segments are two properties.
        struct Model: Equatable {
            var status: CanvasStatus
            var isSelected: Bool
            var videoURL: URL?
            var segments: [TakeSegment]
            var isUndoArmed: Bool
            init(_ canvas: CanvasState) {
                status = canvas.status
                isSelected = canvas.isSelected
                videoURL = canvas.videoURL
                segments = canvas.segments
                isUndoArmed = canvas.isUndoArmed
            }
        }
        var canvases = before.canvases.map(Model.init)
        var isRecording = before.state.isRecording
        var problems: [String] = []
        for write in writes {
            var changed = true
            switch write {
            case .status(let index, let status):
                guard canvases.indices.contains(index) else { return ["write \(write) out of range"] }
                changed = canvases[index].status != status
                canvases[index].status = status
            case .isSelected(let index, let value):
                guard canvases.indices.contains(index) else { return ["write \(write) out of range"] }
                changed = canvases[index].isSelected != value
                canvases[index].isSelected = value
            case .videoURL(let index, let url):
                guard canvases.indices.contains(index) else { return ["write \(write) out of range"] }
                changed = canvases[index].videoURL != url
                canvases[index].videoURL = url
            case .segments(let index, let segments):
                guard canvases.indices.contains(index) else { return ["write \(write) out of range"] }
                changed = canvases[index].segments != segments
                canvases[index].segments = segments
            case .isUndoArmed(let index, let value):
                guard canvases.indices.contains(index) else { return ["write \(write) out of range"] }
                changed = canvases[index].isUndoArmed != value
                canvases[index].isUndoArmed = value
            case .isRecording(let value):
                changed = isRecording != value
                isRecording = value
            case .insertCanvas(let index):
                guard index <= canvases.count, after.canvases.indices.contains(index) else {
                    return ["write \(write) out of range"]
                }
                canvases.insert(Model(after.canvases[index]), at: index)
            case .removeCanvas(let index):
                guard canvases.indices.contains(index) else { return ["write \(write) out of range"] }
                canvases.remove(at: index)
            }
            if !changed { problems.append("write \(write) changes nothing") }
            if canvases.contains(where: { $0.status != .noPreview && !$0.isSelected }) {
                problems.append("after write \(write) a canvas previews without being selected")
            }
            if canvases.count(where: \.isSelected) > 1 {
                problems.append("after write \(write) two canvases are selected")
            }
        }
        if canvases != after.canvases.map(Model.init) || isRecording != after.state.isRecording {
            problems.append("writes \(writes) do not bring the models to the next board")
        }
        return problems
    }
}

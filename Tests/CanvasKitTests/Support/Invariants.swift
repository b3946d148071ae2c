import Foundation
@testable import CanvasKit

/// The invariants of DESIGN section 2, checked on the derived per-canvas snapshots (not on the representation that
/// makes most of them hold by construction), and the rules every accepted transition must follow.
enum Invariants {
    /// Violations of the state invariants (N >= 1, I1, I2, unique take files) by `state`.
    static func check(_ state: BoardState) -> [String] {
        var problems: [String] = []
        let canvases = state.canvases
        if canvases.isEmpty { problems.append("board has no canvas") }
        let selected = canvases.indices.filter { canvases[$0].isSelected }
        if selected.count > 1 { problems.append("I1: canvases \(selected) are all selected") }
        for (index, canvas) in canvases.enumerated() {
            if canvas.status != .noPreview && !canvas.isSelected {
                problems.append("I1: canvas \(index) is \(canvas.status) but not selected")
            }
            if canvas.isSelected && canvas.status == .noPreview {
                problems.append("I1: canvas \(index) is selected but shows no preview")
            }
            let display = state.display(at: index)
            if display.isHighlighted != canvas.isSelected {
                problems.append("display: canvas \(index) highlighted=\(display.isHighlighted) selected=\(canvas.isSelected)")
            }
        }
        let recording = canvases.indices.filter { canvases[$0].status == .recording }
        if recording.count > 1 { problems.append("I2: canvases \(recording) are all recording") }
        let files = canvases.compactMap { $0.videoURL?.absoluteURL }
        if Set(files).count != files.count { problems.append("two canvases share a take file") }
        return problems
    }

    /// Violations of the transition rules by `outcome`, the outcome of `event` on `before`.
    static func check(before: BoardState, event: CanvasEvent, outcome: BoardOutcome) -> [String] {
        var problems: [String] = []
        // The in-place form must agree with the pure form and leave a rejected board untouched.
        var inPlace = before
        let reaction = inPlace.handle(event)
        switch (outcome, reaction) {
        case (.accepted(let next, let effects), .accepted(let inPlaceEffects)):
            if next != inPlace || effects != inPlaceEffects { problems.append("handle(_:) disagrees with transition") }
        case (.rejected(let rejection), .rejected(let inPlaceRejection)):
            if rejection != inPlaceRejection { problems.append("handle(_:) rejects for another reason") }
            if inPlace != before { problems.append("a rejected event changed the board") }
        default:
            problems.append("handle(_:) and transition disagree on acceptance")
        }

        let lockedEvent: Bool
        switch event {
        case .tap, .delete, .add, .remove: lockedEvent = true
        case .record, .stop, .cancel: lockedEvent = false
        }

        guard case .accepted(let after, let effects) = outcome else { return problems }
        problems += check(after)
        if before.isRecording && lockedEvent { problems.append("I2: \(event) accepted while recording") }

        let beforeIDs = before.indices.map(before.id(at:))
        let afterIDs = after.indices.map(after.id(at:))
        let afterIndex = Dictionary(uniqueKeysWithValues: afterIDs.enumerated().map { ($0.element, $0.offset) })
        let beforeIndex = Dictionary(uniqueKeysWithValues: beforeIDs.enumerated().map { ($0.element, $0.offset) })

        // I3: a take that disappears is reported, by an event that may remove takes; nothing else is reported.
        var reported: [URL] = []
        var newTakes: [URL] = []
        for effect in effects {
            switch effect {
            case .takeReplaced(_, let url), .takeRemoved(_, let url): reported.append(url)
            case .takeFinished(let index, let url):
                // A stop that re-records into the canvas's own file finishes a take without changing the board.
                if before.canvas(at: index)?.videoURL?.absoluteURL != url.absoluteURL { newTakes.append(url) }
            default: break
            }
        }
        var lost: [URL] = []
        for (index, id) in beforeIDs.enumerated() {
            guard let old = before.videoURL(at: index) else { continue }
            if let newIndex = afterIndex[id], after.videoURL(at: newIndex)?.absoluteURL == old.absoluteURL { continue }
            lost.append(old)
        }
        if lost.map(\.absoluteURL) != reported.map(\.absoluteURL) {
            problems.append("I3: takes lost \(lost.map(TakeName.describe)) but reported \(reported.map(TakeName.describe))")
        }
        if !lost.isEmpty {
            switch event {
            case .stop, .delete, .remove: break
            default: problems.append("I3: \(event) removed a take")
            }
        }
        var gained: [URL] = []
        for (index, id) in afterIDs.enumerated() {
            guard let new = after.videoURL(at: index) else { continue }
            if let oldIndex = beforeIndex[id], before.videoURL(at: oldIndex)?.absoluteURL == new.absoluteURL { continue }
            gained.append(new)
        }
        if gained.map(\.absoluteURL) != newTakes.map(\.absoluteURL) {
            problems.append("takes gained \(gained.map(TakeName.describe)) but finished \(newTakes.map(TakeName.describe))")
        }

        // Preview: attach, move or detach exactly when the previewing canvas changes, else nothing.
        let previewBefore = before.selection.map { beforeIDs[$0.index] }
        let previewAfter = after.selection.map { afterIDs[$0.index] }
        var expectedPreview: [CanvasEffect] = []
        switch (previewBefore, previewAfter) {
        case (nil, let to?): expectedPreview = [.attachPreview(to: afterIndex[to]!)]
        case (let from?, nil): expectedPreview = [.detachPreview(from: beforeIndex[from]!)]
        case (let from?, let to?) where from != to:
            expectedPreview = [.movePreview(from: beforeIndex[from]!, to: afterIndex[to]!)]
        default: break
        }
        let previewEffects = effects.filter {
            [.attachPreview, .movePreview, .detachPreview].contains($0.kind)
        }
        if previewEffects != expectedPreview {
            problems.append("preview effects \(previewEffects) but expected \(expectedPreview)")
        }

        // Recording starts only by record, into the previewing canvas, and ends by stop or cancel.
        if before.isRecording != after.isRecording || effects.contains(where: { $0.kind == .startRecording }) {
            switch (event, before.selection, after.selection) {
            case (.record, let s?, let t?) where s.phase == .inPreview && t == .init(index: s.index, phase: .recording):
                if effects != [.startRecording(into: s.index)] { problems.append("record effects \(effects)") }
            case (.stop, let s?, let t?), (.cancel, let s?, let t?):
                if s.phase != .recording || t != .init(index: s.index, phase: .inPreview) {
                    problems.append("\(event) did not return the recording canvas to inPreview")
                }
            default:
                problems.append("recording changed by \(event): \(String(describing: before.selection)) -> \(String(describing: after.selection))")
            }
        }
        if case .cancel = event, effects != [.takeDiscarded(index: before.recordingIndex ?? -1)] {
            problems.append("cancel effects \(effects)")
        }

        // Collection changes: exactly the identities that appeared or disappeared, others keep their order.
        let inserted = IndexSet(afterIDs.indices.filter { beforeIndex[afterIDs[$0]] == nil })
        let removed = IndexSet(beforeIDs.indices.filter { afterIndex[beforeIDs[$0]] == nil })
        let insertEffects = effects.compactMap { if case .canvasesInserted(let set) = $0 { set } else { nil } }
        let removeEffects = effects.compactMap { if case .canvasesRemoved(let set) = $0 { set } else { nil } }
        if insertEffects != (inserted.isEmpty ? [] : [inserted]) { problems.append("inserted \(inserted), effects \(insertEffects)") }
        if removeEffects != (removed.isEmpty ? [] : [removed]) { problems.append("removed \(removed), effects \(removeEffects)") }
        if beforeIDs.filter({ afterIndex[$0] != nil }) != afterIDs.filter({ beforeIndex[$0] != nil }) {
            problems.append("surviving canvases changed order")
        }
        if let last = effects.last, !removed.isEmpty, last.kind != .canvasesRemoved {
            problems.append("canvasesRemoved is not the last effect")
        }

        // A tap touches at most the tapped canvas and the one that was selected, and never a take.
        if case .tap(let index) = event {
            let involved = Set([before.id(at: index)] + (previewBefore.map { [$0] } ?? []))
            for (newIndex, id) in afterIDs.enumerated() where !involved.contains(id) {
                if after[newIndex] != before[beforeIndex[id]!] { problems.append("tap \(index) changed canvas \(newIndex)") }
            }
        }
        return problems
    }
}

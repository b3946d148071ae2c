import Foundation

@testable import CanvasKit

/// An independent oracle: the rules table written out literally over per-canvas fields (the representation the
/// original product used, with its flags), to cross-check `BoardState.transition` event by event.
struct ReferenceBoard: Equatable {
    struct Canvas: Equatable {
        var status: CanvasStatus = .noPreview
        var isSelected = false
        var videoURL: URL?
    }

    var canvases: [Canvas]
    /// The canvases' identities as of the board this one was made from (a by-identity tap is resolved through them;
    /// not kept up by `add` and `remove`, and not compared).
    let ids: [CanvasID]

    static func == (lhs: ReferenceBoard, rhs: ReferenceBoard) -> Bool { lhs.canvases == rhs.canvases }

    init(_ state: BoardState) {
        canvases = state.canvases.map { Canvas(status: $0.status, isSelected: $0.isSelected, videoURL: $0.videoURL) }
        ids = state.canvases.map(\.id)
    }

    func matches(_ state: BoardState) -> Bool {
        canvases == ReferenceBoard(state).canvases
    }

    /// Applies one event; returns the effects, or the rejection (and leaves the board as it was).
    mutating func apply(_ event: CanvasEvent) -> Result<[CanvasEffect], Rejected> {
        let selected = canvases.firstIndex { $0.isSelected }
        let recording = canvases.firstIndex { $0.status == .recording }
        func inRange(_ index: Int) -> Bool { index >= 0 && index < canvases.count }
        switch event {
        case .tapCanvas(let id):
            guard let i = ids.firstIndex(of: id) else { return .failure(.init(.canvasNotOnBoard(id))) }
            return apply(.tap(i))
        case .tap(let i):
            guard inRange(i) else { return .failure(.init(.indexOutOfRange(index: i, count: canvases.count))) }
            if let recording { return .failure(.init(.lockedWhileRecording(recordingIndex: recording))) }
            if let s = selected {
                canvases[s].isSelected = false
                canvases[s].status = .noPreview
                if s == i { return .success([.detachPreview(from: s)]) }
                canvases[i].isSelected = true
                canvases[i].status = .inPreview
                return .success([.movePreview(from: s, to: i)])
            }
            canvases[i].isSelected = true
            canvases[i].status = .inPreview
            return .success([.attachPreview(to: i)])
        case .record:
            if let recording { return .failure(.init(.alreadyRecording(index: recording))) }
            guard let s = selected else { return .failure(.init(.nothingToRecord)) }
            canvases[s].status = .recording
            // Every other canvas's take plays (the board's own starts are 0 here: the events carry none).
            let playing = canvases.indices.filter { $0 != s }.compactMap { index in
                canvases[index].videoURL.map { SyncedPlayback.Take(index: index, url: $0, start: 0) }
            }
            return .success([.startRecording(into: s, playback: SyncedPlayback(hostTime: .zero, takes: playing))])
        case .stop(let url, _):
            guard let r = recording else { return .failure(.init(.nothingRecording)) }
            if let other = canvases.indices.first(where: {
                $0 != r && canvases[$0].videoURL?.absoluteURL == url.absoluteURL
            }) {
                return .failure(.init(.takeInUse(url: url, index: other)))
            }
            let old = canvases[r].videoURL
            canvases[r].videoURL = url
            canvases[r].status = .inPreview
            var effects: [CanvasEffect] = [.takeFinished(index: r, url: url)]
            if let old, old.absoluteURL != url.absoluteURL { effects.append(.takeReplaced(index: r, oldURL: old)) }
            effects.append(.coverWanted(index: r, url: url))
            return .success(effects)
        case .cancel:
            guard let r = recording else { return .failure(.init(.nothingRecording)) }
            canvases[r].status = .inPreview
            return .success([.takeDiscarded(index: r)])
        case .recordingStarted(let time):
            guard let r = recording else { return .failure(.init(.nothingRecording)) }
            return .success([.recordingStarted(index: r, at: time)])
        case .recordingFailed(let problem):
            guard let r = recording else { return .failure(.init(.nothingRecording)) }
            canvases[r].status = .inPreview
            return .success([.recordingFailed(index: r, problem: problem)])
        case .recordingCutShort(let problem, let file, let start):
            guard let r = recording else { return .failure(.init(.nothingRecording)) }
            if let file, case .success(let effects) = apply(.stop(file, start: start)) {
                return .success([.recordingCutShort(index: r, problem: problem, endedAs: .stop)] + effects)
            }
            canvases[r].status = .inPreview
            return .success([
                .recordingCutShort(index: r, problem: problem, endedAs: .cancel), .takeDiscarded(index: r),
            ])
        case .delete(let i):
            guard inRange(i) else { return .failure(.init(.indexOutOfRange(index: i, count: canvases.count))) }
            if let recording { return .failure(.init(.lockedWhileRecording(recordingIndex: recording))) }
            guard let url = canvases[i].videoURL else { return .failure(.init(.noTake(index: i))) }
            canvases[i].videoURL = nil
            return .success([.takeRemoved(index: i, url: url)])
        case .add:
            if let recording { return .failure(.init(.lockedWhileRecording(recordingIndex: recording))) }
            canvases.append(Canvas())
            return .success([.canvasesInserted(IndexSet(integer: canvases.count - 1))])
        case .remove(let i):
            guard inRange(i) else { return .failure(.init(.indexOutOfRange(index: i, count: canvases.count))) }
            if let recording { return .failure(.init(.lockedWhileRecording(recordingIndex: recording))) }
            guard canvases.count > 1 else { return .failure(.init(.lastCanvas)) }
            var effects: [CanvasEffect] = []
            if canvases[i].isSelected { effects.append(.detachPreview(from: i)) }
            if let url = canvases[i].videoURL { effects.append(.takeRemoved(index: i, url: url)) }
            canvases.remove(at: i)
            effects.append(.canvasesRemoved(IndexSet(integer: i)))
            return .success(effects)
        }
    }

    struct Rejected: Error, Equatable {
        var rejection: CanvasRejection
        init(_ rejection: CanvasRejection) { self.rejection = rejection }
    }
}

extension ReferenceBoard {
    /// Whether the reference and the real transition agree on `event` from `state`; a description of the difference
    /// otherwise.
    static func disagreement(on event: CanvasEvent, from state: BoardState, outcome: BoardOutcome) -> String? {
        var reference = ReferenceBoard(state)
        let expected = reference.apply(event)
        switch (expected, outcome) {
        case (.success(let effects), .accepted(let next, let actual, _)):
            if effects != actual { return "\(event): effects \(actual), reference \(effects)" }
            if !reference.matches(next) { return "\(event): board differs from reference" }
            return nil
        case (.failure(let rejected), .rejected(let actual)):
            return rejected.rejection == actual
                ? nil : "\(event): rejected as \(actual), reference \(rejected.rejection)"
        default:
            return "\(event): outcome \(outcome), reference \(expected)"
        }
    }
}

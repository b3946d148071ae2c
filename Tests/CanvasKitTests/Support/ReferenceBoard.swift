import Foundation

@testable import CanvasKit

/// An independent oracle: the rules table written out literally over per-canvas fields (the representation the
/// original product used, with its flags, and a flag per canvas for the armed undo), to cross-check
/// `BoardState.transition` event by event, segments and undo included.
struct ReferenceBoard: Equatable {
    struct Canvas: Equatable {
        var status: CanvasStatus = .noPreview
        var isSelected = false
        var segments: [TakeSegment] = []
        var undoArmed = false
    }

    var canvases: [Canvas]
    /// Whether the recording continues its canvas's take.
    var resuming = false
    var soundtrack: Soundtrack?
    var recordsSound: Bool
    let limit: Double?
    /// The canvases' identities as of the board this one was made from (a by-identity tap is resolved through them;
    /// not kept up by `add` and `remove`, and not compared).
    let ids: [CanvasID]

    static func == (lhs: ReferenceBoard, rhs: ReferenceBoard) -> Bool {
        lhs.canvases == rhs.canvases && lhs.soundtrack == rhs.soundtrack && lhs.recordsSound == rhs.recordsSound
    }

    init(_ state: BoardState) {
        canvases = state.canvases.map {
            Canvas(status: $0.status, isSelected: $0.isSelected, segments: $0.segments, undoArmed: $0.isUndoArmed)
        }
        ids = state.canvases.map(\.id)
        resuming = state.isResuming
        soundtrack = state.soundtrack
        recordsSound = state.recordsSound
        limit = state.maximumTakeLength
    }

    func matches(_ state: BoardState) -> Bool {
        self == ReferenceBoard(state)
    }

    /// Applies one event; returns the effects, or the rejection (and leaves the board as it was).
    mutating func apply(_ event: CanvasEvent) -> Result<[CanvasEffect], Rejected> {
        let saved = self
        let result = rule(event)
        switch result {
        case .success:
            // Any accepted event but an undo disarms every armed undo.
            if case .undo = event {} else { for index in canvases.indices { canvases[index].undoArmed = false } }
        case .failure:
            self = saved
        }
        return result
    }

    private func sameFile(_ a: URL, _ b: URL) -> Bool { a.absoluteURL == b.absoluteURL }
    private func length(_ index: Int) -> Double { canvases[index].segments.reduce(0) { $0 + $1.duration } }

    private mutating func rule(_ event: CanvasEvent) -> Result<[CanvasEffect], Rejected> {
        let selected = canvases.firstIndex { $0.isSelected }
        let recording = canvases.firstIndex { $0.status == .recording }
        func inRange(_ index: Int) -> Bool { index >= 0 && index < canvases.count }
        switch event {
        case .tapCanvas(let id):
            guard let i = ids.firstIndex(of: id) else { return .failure(.init(.canvasNotOnBoard(id))) }
            return rule(.tap(i))
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
        case .record, .resume:
            if let recording { return .failure(.init(.alreadyRecording(index: recording))) }
            guard let s = selected else { return .failure(.init(.nothingToRecord)) }
            var settings = RecordingSettings(recordsSound: recordsSound, maximumDuration: limit)
            var position = 0.0
            if event == .resume {
                guard let first = canvases[s].segments.first else { return .failure(.init(.noTakeToResume(index: s))) }
                if let missing = canvases[s].segments.first(where: \.isMissing) {
                    return .failure(.init(.takeMissing(index: s, url: missing.url)))
                }
                if let limit, limit - length(s) < 1.0 / 24 {
                    return .failure(.init(.takeAtLimit(index: s, length: length(s))))
                }
                settings.segment = canvases[s].segments.count
                settings.maximumDuration = limit.map { $0 - length(s) }
                position = first.start + length(s)
                resuming = true
            }
            canvases[s].status = .recording
            // Every other canvas's take plays, with its segments.
            let playing = canvases.indices.filter { $0 != s && !canvases[$0].segments.isEmpty }.map {
                SyncedPlayback.Take(index: $0, segments: canvases[$0].segments)
            }
            let playback = SyncedPlayback(hostTime: .zero, takes: playing, position: position, soundtrack: soundtrack)
            return .success([.startRecording(into: s, playback: playback, settings: settings)])
        case .stop(let url, let start, let duration):
            guard let r = recording else { return .failure(.init(.nothingRecording)) }
            return stop(r, TakeSegment(url: url, start: start, duration: duration))
        case .cancel:
            guard let r = recording else { return .failure(.init(.nothingRecording)) }
            canvases[r].status = .inPreview
            resuming = false
            return .success([.takeDiscarded(index: r)])
        case .recordingStarted(let time):
            guard let r = recording else { return .failure(.init(.nothingRecording)) }
            return .success([.recordingStarted(index: r, at: time)])
        case .recordingFailed(let problem):
            guard let r = recording else { return .failure(.init(.nothingRecording)) }
            canvases[r].status = .inPreview
            resuming = false
            return .success([.recordingFailed(index: r, problem: problem)])
        case .recordingCutShort(let problem, let file, let start, let duration):
            guard let r = recording else { return .failure(.init(.nothingRecording)) }
            if let file, case .success(let effects) = stop(r, TakeSegment(url: file, start: start, duration: duration))
            {
                return .success([.recordingCutShort(index: r, problem: problem, endedAs: .stop)] + effects)
            }
            canvases[r].status = .inPreview
            resuming = false
            return .success([
                .recordingCutShort(index: r, problem: problem, endedAs: .cancel), .takeDiscarded(index: r),
            ])
        case .delete(let i):
            guard inRange(i) else { return .failure(.init(.indexOutOfRange(index: i, count: canvases.count))) }
            if let recording { return .failure(.init(.lockedWhileRecording(recordingIndex: recording))) }
            guard !canvases[i].segments.isEmpty else { return .failure(.init(.noTake(index: i))) }
            let urls = canvases[i].segments.map(\.url)
            canvases[i].segments = []
            return .success([.takeRemoved(index: i, urls: urls)])
        case .undo(let i):
            guard inRange(i) else { return .failure(.init(.indexOutOfRange(index: i, count: canvases.count))) }
            if let recording { return .failure(.init(.lockedWhileRecording(recordingIndex: recording))) }
            guard let last = canvases[i].segments.last else { return .failure(.init(.noTake(index: i))) }
            if canvases[i].undoArmed {
                canvases[i].undoArmed = false
                canvases[i].segments.removeLast()
                return .success([.segmentRemoved(index: i, url: last.url)])
            }
            for index in canvases.indices { canvases[index].undoArmed = index == i }
            return .success([])
        case .disarmUndo:
            guard canvases.contains(where: \.undoArmed) else { return .failure(.init(.nothingArmed)) }
            return .success([])
        case .setSoundtrack(let new):
            soundtrack = new
            return .success([.soundtrackChanged(new)])
        case .setMicrophone(let isOn):
            recordsSound = isOn
            return .success([.microphoneChanged(recordsSound: isOn)])
        case .markMissing(let i, let url):
            guard inRange(i) else { return .failure(.init(.indexOutOfRange(index: i, count: canvases.count))) }
            guard let marked = canvases[i].segments.firstIndex(where: { sameFile($0.url, url) }) else {
                return .failure(.init(.notInTake(url: url, index: i)))
            }
            for k in canvases[i].segments.indices { canvases[i].segments[k].isMissing = k == marked }
            return .success([])
        case .relink(let i):
            guard inRange(i) else { return .failure(.init(.indexOutOfRange(index: i, count: canvases.count))) }
            guard let first = canvases[i].segments.first, canvases[i].segments.contains(where: \.isMissing) else {
                return .failure(.init(.takeNotMissing(index: i)))
            }
            for k in canvases[i].segments.indices { canvases[i].segments[k].isMissing = false }
            return .success([.coverWanted(index: i, url: first.url)])
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
            if !canvases[i].segments.isEmpty {
                effects.append(.takeRemoved(index: i, urls: canvases[i].segments.map(\.url)))
            }
            canvases.remove(at: i)
            effects.append(.canvasesRemoved(IndexSet(integer: i)))
            return .success(effects)
        }
    }

    /// `stop` of the recording canvas `r` with `segment`: a new take after `record`, the next segment after `resume`.
    private mutating func stop(_ r: Int, _ segment: TakeSegment) -> Result<[CanvasEffect], Rejected> {
        if let other = canvases.indices.first(where: { index in
            index != r && canvases[index].segments.contains { sameFile($0.url, segment.url) }
        }) {
            return .failure(.init(.takeInUse(url: segment.url, index: other)))
        }
        var effects: [CanvasEffect] = [.takeFinished(index: r, url: segment.url)]
        if resuming {
            if canvases[r].segments.contains(where: { sameFile($0.url, segment.url) }) {
                return .failure(.init(.takeInUse(url: segment.url, index: r)))
            }
            canvases[r].segments.append(segment)
        } else {
            let replaced = canvases[r].segments.map(\.url).filter { !sameFile($0, segment.url) }
            canvases[r].segments = [segment]
            if !replaced.isEmpty { effects.append(.takeReplaced(index: r, oldURLs: replaced)) }
            effects.append(.coverWanted(index: r, url: segment.url))
        }
        resuming = false
        canvases[r].status = .inPreview
        if let limit, length(r) >= limit { effects.insert(.takeLimitReached(index: r, length: length(r)), at: 0) }
        return .success(effects)
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

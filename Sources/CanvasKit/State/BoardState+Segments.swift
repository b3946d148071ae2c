import Foundation

// The rules of takes made of segments: `stop` ends a segment (a new take after `record`, the next segment after
// `resume`), `resume` records the next one, and `undo` removes the last one in two steps.

extension BoardState {
    /// Ends the recording's segment as `segment`: after `record` it replaces the take (every old segment whose file is
    /// not the new one is reported replaced, in one effect), after `resume` it is appended to the take. A file that is
    /// already a segment of another take, or of the take being continued, is refused.
    mutating func stop(_ segment: Segment, _ change: inout BoardChange) -> Rule {
        guard let index = recordingIndex else { return .rejected(.nothingRecording) }
        if let owner = owner(of: segment.key, other: index) {
            return .rejected(.takeInUse(url: segment.url, index: owner))
        }
        var rest: [CanvasEffect] = []
        if isResuming {
            if slots[index].contains(segment.key) { return .rejected(.takeInUse(url: segment.url, index: index)) }
            editTake(at: index, &change) { $0.append(segment) }
        } else {
            // The recorder may overwrite a file of the previous take; that file is the new take, so it is not
            // reported as replaced (the host would otherwise remove the take it just recorded).
            var replaced: [URL] = []
            editTake(at: index, &change) { slot in
                replaced = slot.urls(besides: segment.key)
                slot.setTake(segment)
            }
            if !replaced.isEmpty {
                rest.reserveCapacity(2)
                rest.append(.takeReplaced(index: index, oldURLs: replaced))
            }
            rest.append(.coverWanted(index: index, url: segment.url))
        }
        isResuming = false
        selection = Selection(index: index, phase: .inPreview)
        let finished = CanvasEffect.takeFinished(index: index, url: segment.url)
        if let limit = maximumTakeLength, slots[index].length >= limit {
            return .accepted(
                Step.Effects(.takeLimitReached(index: index, length: slots[index].length), then: [finished] + rest))
        }
        return .accepted(Step.Effects(finished, then: rest))
    }

    /// The least that must be left of the maximum take length for `resume` to record: one frame at 24 frames per
    /// second, the slowest rate a camera records at. A take that ends closer to the limit (stopped by the app a few
    /// hundredths before it) is at its limit.
    static let shortestResume = 1.0 / 24

    /// Records the next segment of the previewing canvas's take, with the other takes playing from where it ends; a
    /// take with a file marked missing is not continued (``CanvasRejection/takeMissing(index:url:)``), and a take
    /// less than ``shortestResume`` short of the maximum take length is refused as at its limit.
    mutating func resume(playbackStart: HostTime) -> Rule {
        guard let current = selection else { return .rejected(.nothingToRecord) }
        if current.phase == .recording { return .rejected(.alreadyRecording(index: current.index)) }
        let slot = slots[current.index]
        guard let first = slot.takeSegments.first else { return .rejected(.noTakeToResume(index: current.index)) }
        // A file of the take is gone: a segment recorded onto it would make a take that cannot be composed.
        if let missing = slot.takeSegments.first(where: \.isMissing) {
            return .rejected(.takeMissing(index: current.index, url: missing.url))
        }
        let length = slot.length
        var remaining: Double?
        if let limit = maximumTakeLength {
            // A take less than a frame short of the limit is at it: the recorder would stop at once.
            guard limit - length >= Self.shortestResume else {
                return .rejected(.takeAtLimit(index: current.index, length: length))
            }
            remaining = limit - length
        }
        isResuming = true
        let settings = RecordingSettings(
            segment: slot.takeSegments.count, recordsSound: recordsSound, maximumDuration: remaining)
        return startRecording(
            into: current.index, settings: settings, position: first.start + length, playbackStart: playbackStart)
    }

    /// The first `undo` of a canvas arms it; the next one, with no other accepted event in between, removes the take's
    /// last segment (the take goes when it was the only one).
    mutating func undo(_ index: Int, _ change: inout BoardChange) -> Rule {
        guard indices.contains(index) else { return .rejected(.indexOutOfRange(index: index, count: count)) }
        if let recording = recordingIndex { return .rejected(.lockedWhileRecording(recordingIndex: recording)) }
        let slot = slots[index]
        guard let last = slot.takeSegments.last else { return .rejected(.noTake(index: index)) }
        guard armedUndo == slot.id else {
            armedUndo = slot.id
            return .accepted(.none)
        }
        armedUndo = nil
        editTake(at: index, &change) { $0.removeLast() }
        return .accepted(Step.Effects(.segmentRemoved(index: index, url: last.url)))
    }
}

extension CanvasEvent {
    /// Whether the event is an `undo` (the one event that does not disarm an armed undo).
    var isUndo: Bool {
        if case .undo = self { return true }
        return false
    }
}

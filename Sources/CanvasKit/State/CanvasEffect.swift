import Foundation

/// What the host must do after an accepted event.
///
/// Effects come in the order the host should perform them. An index in an effect refers to the board as it is when
/// that effect is performed: `canvasesRemoved` comes last in its list, so the effects before it use the indexes from
/// before the removal, and `canvasesInserted` uses the indexes after the insertion.
public enum CanvasEffect: Sendable, Hashable, CustomStringConvertible {
    /// Attach the camera preview to the canvas at the index (nothing was previewing).
    case attachPreview(to: Int)
    /// Move the live preview from one canvas to another; no cell is reloaded.
    case movePreview(from: Int, to: Int)
    /// Detach the camera preview from the canvas at the index (nothing previews afterwards).
    case detachPreview(from: Int)
    // The two rare effects whose payloads are larger than two words are stored out of line (`indirect`), so that every
    // effect value stays small: the effects of a step are copied on every event.
    /// Start recording into the canvas at the index, and start the takes of the other canvases and the board's
    /// soundtrack playing together (see ``SyncedPlayback``): the board's timeline is at `playback.position` at
    /// `playback.hostTime`. `settings` says which segment it is (0: a new take, after `record`; more: the next segment
    /// of the take, after `resume`), whether it records sound (the board's microphone setting) and how long it may
    /// last (the board's maximum take length).
    indirect case startRecording(into: Int, playback: SyncedPlayback, settings: RecordingSettings)
    /// The segment at the URL is finished: after `record`, it is the new take of the canvas at the index; after
    /// `resume`, the take's last segment.
    case takeFinished(index: Int, url: URL)
    /// The canvas's previous take, whose segments are the files at the URLs (in order), was replaced by a new one; the
    /// host keeps or removes the files.
    case takeReplaced(index: Int, oldURLs: [URL])
    /// The recording into the canvas at the index was abandoned; the host removes the partial file.
    case takeDiscarded(index: Int)
    /// The take whose segments are the files at the URLs (in order) no longer belongs to any canvas (deleted, or its
    /// canvas removed); the host keeps or removes the files.
    case takeRemoved(index: Int, urls: [URL])
    /// The last segment of the take of the canvas at the index, at the URL, was removed by a confirmed `undo`; the
    /// host keeps or removes the file. When it was the only segment, the canvas has no take any more.
    case segmentRemoved(index: Int, url: URL)
    /// The take of the canvas at the index reached the board's maximum take length (`length` seconds): the recorder
    /// stopped by itself, and the board ended the segment as `stop` (the effects that follow report it).
    case takeLimitReached(index: Int, length: Double)
    /// The board's soundtrack became the value (nil: none). It plays from the next recording on.
    indirect case soundtrackChanged(Soundtrack?)
    /// The board's microphone setting changed: takes recorded from now on record their own sound, or the picture only.
    case microphoneChanged(recordsSound: Bool)
    /// The cover of the take at the URL will be wanted for the canvas at the index; the host may prepare it now.
    case coverWanted(index: Int, url: URL)
    /// Canvases were inserted at these indexes (indexes after the insertion).
    case canvasesInserted(IndexSet)
    /// Canvases were removed from these indexes (indexes before the removal).
    case canvasesRemoved(IndexSet)
    /// The recorder wrote the first sample of the take of the canvas at the index, at this host time: the take is
    /// rolling (an app may start its timer).
    case recordingStarted(index: Int, at: HostTime)
    /// The recorder could not start recording into the canvas at the index; it is back `inPreview` and nothing was
    /// recorded.
    case recordingFailed(index: Int, problem: RecorderProblem)
    /// The system cut the recording into the canvas at the index short; the board ended it as `stop` (the take
    /// finished, reported by the effects that follow) or as `cancel` (`takeDiscarded` follows).
    case recordingCutShort(index: Int, problem: RecorderProblem, endedAs: CutShortEnding)
    /// Restoring a draft: the canvas at the index was recording when the app was killed; it is back `inPreview`,
    /// still selected. The URL is the file the recorder was writing (`BoardDraft.noteRecordingFile(_:)`), nil when
    /// the app never said: the host keeps the partial file (as a take, by recording into that canvas again) or
    /// removes it.
    case takeInterrupted(index: Int, url: URL?)
    /// Restoring a draft: the take of the canvas at the index is missing from the disk (the URL: its first file gone).
    /// It stays on its canvas, marked missing (the restore journals ``CanvasEvent/markMissing(_:_:)``, so the canvas
    /// shows ``CanvasDisplay/Picture/missing(_:)``; a moved container or an unmounted volume is not a deletion), and
    /// each restore reports it again while the file is missing. The app confirms its removal with `delete`, or sends
    /// ``CanvasEvent/relink(_:)`` when the file is back (a restore that finds it back relinks it itself).
    case takeMissing(index: Int, url: URL)
    /// Restoring a draft: this many records of a torn or corrupt journal tail were dropped (what a kill during a write
    /// or a power loss leaves); the board is as of the last whole record.
    case draftRecordsDropped(count: Int)

    /// The kinds of effect, one per case, for coverage checks and for JSON.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case attachPreview, movePreview, detachPreview, startRecording, takeFinished, takeReplaced, takeDiscarded
        case takeRemoved, coverWanted, canvasesInserted, canvasesRemoved
        case recordingStarted, recordingFailed, recordingCutShort
        case segmentRemoved, takeLimitReached, soundtrackChanged, microphoneChanged
        case takeInterrupted, takeMissing, draftRecordsDropped

        /// Whether only a draft's restore reports this kind (``DraftRestore/effects``); no event's outcome has it.
        public var isRestoreReport: Bool {
            switch self {
            case .takeInterrupted, .takeMissing, .draftRecordsDropped: true
            default: false
            }
        }
    }

    /// The kind of this effect; its `rawValue` is the stable short name (`attachPreview`, `movePreview`, ...).
    public var kind: Kind {
        switch self {
        case .attachPreview: .attachPreview
        case .movePreview: .movePreview
        case .detachPreview: .detachPreview
        case .startRecording: .startRecording
        case .takeFinished: .takeFinished
        case .takeReplaced: .takeReplaced
        case .takeDiscarded: .takeDiscarded
        case .takeRemoved: .takeRemoved
        case .coverWanted: .coverWanted
        case .canvasesInserted: .canvasesInserted
        case .canvasesRemoved: .canvasesRemoved
        case .recordingStarted: .recordingStarted
        case .recordingFailed: .recordingFailed
        case .recordingCutShort: .recordingCutShort
        case .segmentRemoved: .segmentRemoved
        case .takeLimitReached: .takeLimitReached
        case .soundtrackChanged: .soundtrackChanged
        case .microphoneChanged: .microphoneChanged
        case .takeInterrupted: .takeInterrupted
        case .takeMissing: .takeMissing
        case .draftRecordsDropped: .draftRecordsDropped
        }
    }

    /// A short readable line, e.g. `move preview 0 -> 2` or `take replaced 1 old.mov`.
    public var description: String { description(naming: String.init) }

    package func description(naming name: (Int) -> String) -> String {
        func names(_ set: IndexSet) -> String { "[" + set.map(name).joined(separator: ", ") + "]" }
        func files(_ urls: [URL]) -> String { urls.map(TakeName.describe).joined(separator: " + ") }
        return switch self {
        case .attachPreview(let index): "attach preview to \(name(index))"
        case .movePreview(let from, let to): "move preview \(name(from)) -> \(name(to))"
        case .detachPreview(let index): "detach preview from \(name(index))"
        case .startRecording(let index, _, let settings):
            settings.segment == 0
                ? "start recording into \(name(index))"
                : "start recording segment \(settings.segment + 1) into \(name(index))"
        case .takeFinished(let index, let url): "take finished \(name(index)) \(TakeName.describe(url))"
        case .takeReplaced(let index, let urls): "take replaced \(name(index)) \(files(urls))"
        case .takeDiscarded(let index): "take discarded \(name(index))"
        case .takeRemoved(let index, let urls): "take removed \(name(index)) \(files(urls))"
        case .segmentRemoved(let index, let url): "segment removed \(name(index)) \(TakeName.describe(url))"
        case .takeLimitReached(let index, let length):
            "take limit reached \(name(index)) \(TakeLength.describe(length))"
        case .soundtrackChanged(let soundtrack): "soundtrack changed: \(soundtrack.map { "\($0)" } ?? "music off")"
        case .microphoneChanged(let recordsSound): "microphone changed: mic \(recordsSound ? "on" : "off")"
        case .coverWanted(let index, let url): "cover wanted \(name(index)) \(TakeName.describe(url))"
        case .canvasesInserted(let set): "canvases inserted \(names(set))"
        case .canvasesRemoved(let set): "canvases removed \(names(set))"
        case .recordingStarted(let index, let time): "recording started \(name(index)) at \(time)"
        case .recordingFailed(let index, let problem): "recording failed \(name(index)) \(problem)"
        case .recordingCutShort(let index, let problem, let ending):
            "recording cut short \(name(index)) \(problem), ended as \(ending.rawValue)"
        case .takeInterrupted(let index, let url):
            "take interrupted \(name(index)) \(url.map(TakeName.describe) ?? "(file not noted)")"
        case .takeMissing(let index, let url): "take missing \(name(index)) \(TakeName.describe(url))"
        case .draftRecordsDropped(let count): "draft records dropped \(count)"
        }
    }
}

extension CanvasEffect {
    /// For `startRecording`, the canvas that records; nil for the other effects.
    public var recordingIndex: Int? {
        if case .startRecording(let index, _, _) = self { return index }
        return nil
    }

    /// For `startRecording`, the takes that start playing together and when; nil for the other effects.
    public var recordingPlayback: SyncedPlayback? {
        if case .startRecording(_, let playback, _) = self { return playback }
        return nil
    }

    /// For `startRecording`, the segment, sound and length settings; nil for the other effects.
    public var recordingSettings: RecordingSettings? {
        if case .startRecording(_, _, let settings) = self { return settings }
        return nil
    }

    /// The files the effect gives up, in order (``givesUpFile``): a replaced or removed take's segments, a removed
    /// segment; empty for the other effects.
    public var givenUpFiles: [URL] {
        switch self {
        case .takeReplaced(_, let urls), .takeRemoved(_, let urls): urls
        case .segmentRemoved(_, let url): [url]
        default: []
        }
    }
}

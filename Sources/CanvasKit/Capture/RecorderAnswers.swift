import Foundation

/// The recorder's callbacks turned into board events: the one path by which a recorder's answers reach the board.
///
/// A capture performer keeps one and feeds it what happens, in order; every event it returns goes to the board
/// (`board.send(event, performingEffectsWith: performer)`), on the thread the performer sends its events from:
/// - ``recordingRequested(into:playback:settings:)`` when it performs `startRecording` and starts the recorder;
/// - ``didStart(file:at:)`` when the recorder wrote its first sample, with its file and that host time: `recordingStarted(at:)`, and the
///   take's start on the board's timeline (``SyncedPlayback/takeStart(recordingBeganAt:captureLatency:)``);
/// - ``couldNotStart(_:)`` when the recorder cannot start (no access, no device, the session refused an input):
///   `recordingFailed`;
/// - ``interrupted(_:)`` when the system interrupts the session while it records (a call, another app taking the
///   camera): the recorder then finishes the file, and ``didFinish(file:ending:playable:duration:)`` reports it;
/// - ``discardRequested()`` when it performs `takeDiscarded` (the board already ended the recording as `cancel`);
/// - ``didFinish(file:ending:playable:duration:)`` when the recorder hands the file over: `stop(file, start:duration:)`
///   when it finished cleanly or at the segment's maximum duration; `recordingCutShort` with the file when a problem
///   ended it with a playable file, without it when the file is not playable; `recordingFailed` when it never
///   started. It also says whether to keep the file.
///
/// A value: the performer owns it and calls it from one thread (or under its lock).
public struct RecorderAnswers: Sendable, Hashable {
    /// What the performer does with a file the recorder handed over.
    public enum FileDisposition: Sendable, Hashable {
        /// The file is (or may become) a take: keep it.
        case keep
        /// Nothing uses the file: remove it.
        case remove
    }

    /// The answer to a finished recording: the event for the board (nil: none, the board already ended it) and what
    /// to do with the file.
    public struct Finish: Sendable, Hashable {
        /// The event to send, if any.
        public var event: CanvasEvent?
        /// Keep or remove the file.
        public var file: FileDisposition

        /// An answer sending `event` (nil: none) and keeping or removing the file.
        public init(event: CanvasEvent?, file: FileDisposition) {
            self.event = event
            self.file = file
        }
    }

    /// What ended a recording, as the recorder reports it when it hands the file over.
    public enum Ending: Sendable, Hashable {
        /// The app stopped it (`stopRecording()`), or the recorder finished without an error.
        case stopped
        /// The recorder stopped by itself at the segment's maximum duration (`AVError.maximumDurationReached`): what
        /// was left of the board's maximum take length.
        case reachedMaximumDuration
        /// A problem ended it (the recorder's error).
        case problem(RecorderProblem)
    }

    private struct Recording: Sendable, Hashable {
        var file: URL
        var playback: SyncedPlayback
        var maximumDuration: Double?
        var startedAt: HostTime?
        var interruption: RecorderProblem?
        var isDiscarded = false
    }

    /// Seconds from the moment the camera saw a picture to the moment it was stamped (0 when unknown; the Apple
    /// layer does not measure it, so its takes start that much late on the timeline).
    public var captureLatency: Double
    private var recording: Recording?

    /// No recording yet; `captureLatency` as the app knows it (0 when unknown).
    public init(captureLatency: Double = 0) {
        self.captureLatency = captureLatency
    }

    /// Whether a recording was requested and has not finished.
    public var isRecording: Bool { recording != nil }

    /// The file of the recording in progress, if any.
    public var recordingFile: URL? { recording?.file }

    /// The board's `startRecording(into:playback:settings:)` effect was performed: the recorder writes `file`, set up
    /// with `settings` (``RecorderSetup``), while `playback` plays the other takes.
    public mutating func recordingRequested(
        into file: URL, playback: SyncedPlayback, settings: RecordingSettings = RecordingSettings()
    ) {
        recording = Recording(file: file, playback: playback, maximumDuration: settings.maximumDuration)
    }

    /// The recorder started writing `file`, whose first sample it took at `time`: the event `recordingStarted(at:)`
    /// (nil when no recording was requested, it already started, or `file` is not the recording's file: a late start
    /// of a take the board discarded is never given to the next recording).
    public mutating func didStart(file: URL, at time: HostTime) -> CanvasEvent? {
        guard var current = recording, current.file == file, current.startedAt == nil, !current.isDiscarded else {
            return nil
        }
        current.startedAt = time
        recording = current
        return .recordingStarted(at: time)
    }

    /// The host time of the recorder's first sample, from the host time `callback` at which it said it started and
    /// the seconds it had recorded by then (`recordedDuration`): the recorder says so once the first samples are
    /// written, so the first was taken that much earlier. A duration that is not a finite number of seconds at least 0
    /// (an invalid time) counts as 0. What this misses is the delay between that and the moment the sample was taken,
    /// which ``captureLatency`` stands for.
    public static func firstSampleTime(calledAt callback: HostTime, recordedDuration: Double) -> HostTime {
        guard recordedDuration.isFinite, recordedDuration > 0 else { return callback }
        return callback + -recordedDuration
    }

    /// A finished segment's length to give ``didFinish(file:ending:playable:duration:)``: the finished file's duration
    /// when it could be read as a positive number of seconds (exact), otherwise the output's `recordedDuration` (which
    /// the recorder updates only every few frames).
    public static func segmentDuration(fileDuration: Double?, recordedDuration: Double) -> Double {
        if let fileDuration, fileDuration.isFinite, fileDuration > 0 { return fileDuration }
        return recordedDuration
    }

    /// The recorder cannot start: `recordingFailed(problem)` (nil when no recording was requested). The recording is
    /// over; a file the recorder hands over later is removed.
    public mutating func couldNotStart(_ problem: RecorderProblem) -> CanvasEvent? {
        guard let current = recording, !current.isDiscarded else { return nil }
        recording = nil
        return .recordingFailed(problem)
    }

    /// The system interrupted the session while it recorded; the finish reports it (the first problem wins).
    public mutating func interrupted(_ problem: RecorderProblem) {
        guard recording != nil, recording?.interruption == nil else { return }
        recording?.interruption = problem
    }

    /// The board ended the recording as `cancel` (`takeDiscarded`): the file is removed when handed over, and no
    /// event follows.
    public mutating func discardRequested() {
        recording?.isDiscarded = true
    }

    /// The new take's start on the board's timeline: where the playback stood at the first sample, less the capture
    /// latency (when the recorder never said it started, from timeline 0, less the capture latency).
    public var takeStart: Double {
        guard let recording else { return 0 }
        return recording.playback.takeStart(
            recordingBeganAt: recording.startedAt ?? recording.playback.hostTime, captureLatency: captureLatency)
    }

    /// The recorder handed `file` over, as ``didFinish(file:ending:playable:duration:)`` with `problem` as the ending
    /// (nil: ``Ending/stopped``).
    public mutating func didFinish(file: URL, problem: RecorderProblem?, playable: Bool, duration: Double = 0) -> Finish
    {
        didFinish(file: file, ending: problem.map(Ending.problem) ?? .stopped, playable: playable, duration: duration)
    }

    /// The recorder handed `file` over. `ending` is what ended it; `playable` whether the file holds a take
    /// (AVFoundation's `AVErrorRecordingSuccessfullyFinishedKey`, true without an error); `duration` how long the
    /// segment is, in seconds (the output's `recordedDuration`; 0 when unknown, and then the board's maximum take
    /// length does not count it).
    ///
    /// A segment that reached its maximum duration ends as `stop` with at least that duration: the recorder stops on
    /// a frame at or just before the limit, and the take is then at the board's maximum length, which the board
    /// reports (`takeLimitReached`) and holds `resume` to. An interruption the session reported while it recorded
    /// wins over the ending, as the more specific reason.
    public mutating func didFinish(file: URL, ending: Ending, playable: Bool, duration: Double = 0) -> Finish {
        var duration = duration.isFinite && duration > 0 ? duration : 0
        guard let current = recording, current.file == file else {
            // Not the recording in progress: one that failed to start, or a stray file. Nothing uses it.
            return Finish(event: nil, file: .remove)
        }
        let start = takeStart
        recording = nil
        if current.isDiscarded { return Finish(event: nil, file: .remove) }
        var problem: RecorderProblem?
        switch ending {
        case .stopped: problem = nil
        case .reachedMaximumDuration where playable: duration = max(duration, current.maximumDuration ?? 0)
        case .reachedMaximumDuration: problem = .other
        case .problem(let reported): problem = reported
        }
        guard let problem = current.interruption ?? problem else {
            return playable
                ? Finish(event: .stop(file, start: start, duration: duration), file: .keep)
                : Finish(event: .recordingCutShort(.other, file: nil), file: .remove)
        }
        if current.startedAt == nil, !playable { return Finish(event: .recordingFailed(problem), file: .remove) }
        return playable
            ? Finish(event: .recordingCutShort(problem, file: file, start: start, duration: duration), file: .keep)
            : Finish(event: .recordingCutShort(problem, file: nil), file: .remove)
    }
}

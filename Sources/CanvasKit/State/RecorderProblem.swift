/// Why the recorder could not start, or why the system ended a recording early: what a recorder answer carries back
/// to the board (``CanvasEvent/recordingFailed(_:)``, ``CanvasEvent/recordingCutShort(_:file:start:duration:)``).
///
/// Named apart from a draft's restore, whose `takeInterrupted` effect reports a recording the app's death stopped.
public enum RecorderProblem: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The user has not allowed the camera or the microphone (or cannot: a restricted device).
    case notAuthorized
    /// No camera or microphone to record with, or the session refused its input or output.
    case deviceUnavailable
    /// A phone or video call took the microphone.
    case call
    /// Another app took the camera (Split View, Slide Over, picture in picture, or a shared camera).
    case cameraTaken
    /// The app went to the background, where the camera is not available.
    case background
    /// The device is too hot or its power too low for the camera to run.
    case systemPressure
    /// The media services failed or were reset (a runtime error of the capture session).
    case mediaServicesFailed
    /// The disk is full: the recorder could not write more.
    case diskFull
    /// Any other reason the recorder gave.
    case other

    /// The script word, e.g. `call`.
    public var description: String { rawValue }
}

/// How the board ended a recording the system cut short.
public enum CutShortEnding: String, Sendable, Hashable, CaseIterable {
    /// The recorder finished a playable file: the board took it as the take, as for `stop`.
    case stop
    /// The recorder left no playable file: nothing was recorded, as for `cancel`.
    case cancel
}

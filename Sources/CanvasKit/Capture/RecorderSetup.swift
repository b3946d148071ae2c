/// How the recorder is set before it records a segment, decided from the `startRecording` effect's
/// ``RecordingSettings``: the Apple layer's capture performer applies it to the movie file output, on the session's
/// queue, just before `startRecording(to:recordingDelegate:)`.
///
/// - The board's microphone setting enables or disables the output's audio connection
///   (`connection(with: .audio)?.isEnabled`). The microphone input stays in the session: disabling a connection stops
///   the flow of sound to the file without reconfiguring the running session (no pause of the preview, no new audio
///   session), and `mic on` takes effect at the next segment without asking for anything. A session without a
///   microphone input has no audio connection, and its takes have no sound either way.
/// - What is left of the board's maximum take length becomes the output's `maxRecordedDuration`, a `CMTime` of
///   ``maximumDurationValue`` at ``timescale``: rounded down, so the recorder never records past the limit; no limit
///   is `CMTime.invalid`. The recorder then stops by itself and says so (`AVError.maximumDurationReached`), which
///   ``RecorderAnswers/didFinish(file:ending:playable:duration:)`` turns into the segment's `stop` at the limit.
public struct RecorderSetup: Sendable, Hashable {
    /// The timescale of ``maximumDurationValue``: microseconds.
    public static let timescale: Int32 = 1_000_000

    /// Whether the movie output's audio connection is enabled for the segment (the board's microphone setting).
    public var enablesAudioConnection: Bool
    /// The output's `maxRecordedDuration` as a `CMTime` value at ``timescale`` (at least 1), or nil for no limit
    /// (`CMTime.invalid`).
    public var maximumDurationValue: Int64?

    /// The setup for a segment recorded with `settings`. A maximum duration that is not a finite positive number of
    /// seconds is no limit (the board never gives one: it refuses `resume` on a take at its limit).
    public init(_ settings: RecordingSettings) {
        enablesAudioConnection = settings.recordsSound
        guard let seconds = settings.maximumDuration, seconds.isFinite, seconds > 0 else {
            maximumDurationValue = nil
            return
        }
        let ticks = (seconds * Double(Self.timescale)).rounded(.down)
        maximumDurationValue = ticks >= Double(Int64.max) ? nil : max(1, Int64(ticks))
    }
}

/// When, where and how loud the board's soundtrack starts, for `AVAudioPlayer` (which loops without a gap and starts
/// at a time of the audio device's clock): set `currentTime` to ``itemTime``, `volume` to ``volume`` and
/// `numberOfLoops` to ``numberOfLoops``, then `play(atTime: deviceTime)`.
public struct SoundtrackPlayerStart: Sendable, Hashable {
    /// Where in the file to start, in seconds (within the file: a looping soundtrack's time wraps by its length).
    public var itemTime: Double
    /// The host time at which it starts (the same clock as the takes' players).
    public var hostTime: HostTime
    /// The audio device time to hand `AVAudioPlayer.play(atTime:)`: as far after the device time read with the host
    /// clock as ``hostTime`` is after that host time.
    public var deviceTime: Double
    /// The player's volume: the soundtrack's gain within 0...1 (a player cannot amplify; the composition applies a
    /// gain above 1 in full).
    public var volume: Float
    /// The player's `numberOfLoops`: -1 (until stopped) for a looping soundtrack, 0 to play it once.
    public var numberOfLoops: Int
}

extension SyncedPlayback {
    /// The soundtrack's start when the takes' players start (``playerStarts(ready:margin:)`` with the same `ready`
    /// and `margin`): on the board's timeline as planned (``Soundtrack/playerStart(at:hostTime:)``), or, when that
    /// moment is less than `margin` seconds after `ready`, `margin` after `ready` and that much further into the file,
    /// as the takes do. `deviceNow` is the audio device's clock (`AVAudioPlayer.deviceCurrentTime`) read together with
    /// the host clock at `ready`; `fileDuration` the soundtrack file's length in seconds (`AVAudioPlayer.duration`).
    ///
    /// Nil when the board has no soundtrack, the file's length is not a positive number of seconds (it cannot play),
    /// or a soundtrack that does not loop has already ended at that point of the timeline. A `margin` below 0.01
    /// seconds counts as 0.01: a player starts at a device time later than the device's current time.
    public func soundtrackPlayerStart(
        ready: HostTime, deviceNow: Double, margin: Double = 0.05, fileDuration: Double
    ) -> SoundtrackPlayerStart? {
        guard let soundtrack, fileDuration.isFinite, fileDuration > 0 else { return nil }
        var (itemTime, start) = soundtrack.playerStart(at: position, hostTime: hostTime)
        let earliest = ready + max(margin, 0.01)
        if start < earliest {
            itemTime += earliest - start
            start = earliest
        }
        if soundtrack.loops {
            itemTime = itemTime.truncatingRemainder(dividingBy: fileDuration)
        } else if itemTime >= fileDuration {
            return nil
        }
        return SoundtrackPlayerStart(
            itemTime: itemTime, hostTime: start, deviceTime: deviceNow + (start - ready),
            volume: Float(min(max(soundtrack.gain, 0), 1)), numberOfLoops: soundtrack.loops ? -1 : 0)
    }
}

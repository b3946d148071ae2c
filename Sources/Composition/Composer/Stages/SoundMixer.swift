/// The mix stage: the takes' sound and the soundtrack summed by the audio rule, frame by frame of the output; nothing
/// past the output's end is mixed, so the soundtrack never lengthens it.
struct SoundMixer {
    private let tracks: [AudioTrack]
    /// How many samples (per channel) the output has in all.
    private let sampleCount: Int
    private let sampleRate: Int
    private let frameRate: FrameRate
    private let frameCount: Int
    private var mixed = 0
    /// How many samples the limiter bent so far.
    private(set) var limitedSampleCount = 0

    /// The mix of `sources`' sound and the soundtrack `music` (if any) over `duration` seconds, handed out frame by
    /// frame of the output.
    init(_ sources: [TakeSource], music: AudioTrack?, duration: Double, frameRate: FrameRate, frameCount: Int) {
        tracks = sources.compactMap(\.audio) + (music.map { [$0] } ?? [])
        sampleRate = CompositionPlan.AudioSettings.sampleRate
        sampleCount = Int((duration * Double(sampleRate)).rounded())
        self.frameRate = frameRate
        self.frameCount = frameCount
    }

    /// The interleaved stereo sound up to the end of output frame `index` (all of it with the last frame).
    mutating func sound(throughFrame index: Int) throws(CompositionError) -> [Float] {
        let end =
            index == frameCount - 1
            ? sampleCount
            : min(sampleCount, Int((frameRate.time(ofFrame: index + 1) * Double(sampleRate)).rounded()))
        var mix = StereoMixBuffer(frameCount: max(0, end - mixed))
        if mix.frameCount > 0 {
            for track in tracks { try track.mix(into: &mix, from: mixed) }
        }
        limitedSampleCount += mix.limit()
        mixed = max(mixed, end)
        return mix.samples
    }
}

import Foundation

/// The audio rule of a composition: how each take's samples reach the stereo mix.
///
/// - **Sum, not average.** The mix is the sum of every take's samples times its gain, panned. Nothing is divided by
///   the number of takes (ffmpeg's `amix` does that by default, which makes a take quieter each time one is added):
///   a take at gain 1 is as loud in the mix as in its file.
/// - **Constant-power pan.** A mono take at pan `p` goes to the left with `cos(θ)` and to the right with `sin(θ)`,
///   `θ = (p + 1) π / 4`: its power is the same at every pan, and in the centre each side gets -3 dB (0.7071). A
///   stereo take (anything with more channels is first downmixed to stereo by libswresample) is balanced with the
///   same law normalized to the centre: left `√2 cos(θ)`, right `√2 sin(θ)`, so in the centre it passes unchanged.
/// - **No clipping.** Where the sum stays within ±``kneeThreshold`` (-1 dBFS) it is exact. Above, a soft knee
///   (`tanh`) bends it towards ±1, which it never reaches: a loud moment is compressed, never wrapped or cut flat, and
///   the composer reports how many samples were bent (``CompositionResult/limitedSampleCount``), so nothing is silent.
public enum AudioMix {
    /// The level up to which the mix is the exact sum: -1 dBFS (0.891).
    public static let kneeThreshold: Float = 0.891_250_9

    /// The left and right factors of a take with `channels` channels (1 for mono, 2 for stereo) at `pan` (-1...1).
    public static func panGains(pan: Double, channels: Int) -> (left: Double, right: Double) {
        let angle = (min(max(pan, -1), 1) + 1) * Double.pi / 4
        let scale = channels == 1 ? 1 : 2.0.squareRoot()
        return (cos(angle) * scale, sin(angle) * scale)
    }

    /// `sample` after the anti-clipping knee: itself within ±`kneeThreshold`, bent smoothly towards ±1 beyond.
    @inline(__always)
    public static func limited(_ sample: Float) -> Float {
        let magnitude = abs(sample)
        guard magnitude > kneeThreshold else { return sample }
        let room = 1 - kneeThreshold
        let bent = kneeThreshold + room * Float(tanh(Double((magnitude - kneeThreshold) / room)))
        return sample < 0 ? -bent : bent
    }
}

/// A stereo mix being summed: interleaved left/right `Float` samples, to which takes are added and which is then
/// limited once.
struct StereoMixBuffer {
    /// Interleaved samples, `2 * frameCount`.
    var samples: [Float]

    /// `frameCount` frames of silence.
    init(frameCount: Int) {
        samples = [Float](repeating: 0, count: 2 * frameCount)
    }

    /// The number of stereo frames.
    var frameCount: Int { samples.count / 2 }

    /// Adds interleaved stereo `source` frames, from frame `offset` of this buffer on, times the take's factors.
    mutating func add(stereo source: UnsafeBufferPointer<Float>, at offset: Int, left: Float, right: Float) {
        let frames = min(source.count / 2, frameCount - offset)
        guard frames > 0 else { return }
        samples.withUnsafeMutableBufferPointer { target in
            for frame in 0..<frames {
                target[2 * (offset + frame)] += source[2 * frame] * left
                target[2 * (offset + frame) + 1] += source[2 * frame + 1] * right
            }
        }
    }

    /// Adds mono `source` samples, from frame `offset` of this buffer on, to both sides with the take's factors.
    mutating func add(mono source: UnsafeBufferPointer<Float>, at offset: Int, left: Float, right: Float) {
        let frames = min(source.count, frameCount - offset)
        guard frames > 0 else { return }
        samples.withUnsafeMutableBufferPointer { target in
            for frame in 0..<frames {
                target[2 * (offset + frame)] += source[frame] * left
                target[2 * (offset + frame) + 1] += source[frame] * right
            }
        }
    }

    /// Applies the knee to every sample; returns how many were bent.
    mutating func limit() -> Int {
        var bent = 0
        samples.withUnsafeMutableBufferPointer { buffer in
            for index in buffer.indices where abs(buffer[index]) > AudioMix.kneeThreshold {
                buffer[index] = AudioMix.limited(buffer[index])
                bent += 1
            }
        }
        return bent
    }
}

import Composition
import Foundation
import Testing

@Suite("Audio mix rule")
struct AudioMixTests {
    /// Constant power: left² + right² is the same at every pan, for mono; the centre is -3 dB per side for mono and
    /// unity for stereo; hard left sends nothing right.
    @Test func constantPowerPan() {
        for step in -20...20 {
            let pan = Double(step) / 20
            let mono = AudioMix.panGains(pan: pan, channels: 1)
            #expect(abs(mono.left * mono.left + mono.right * mono.right - 1) < 1e-12)
            let stereo = AudioMix.panGains(pan: pan, channels: 2)
            #expect(abs(stereo.left * stereo.left + stereo.right * stereo.right - 2) < 1e-12)
        }
        let centre = AudioMix.panGains(pan: 0, channels: 1)
        #expect(abs(centre.left - 0.5.squareRoot()) < 1e-12 && abs(centre.right - 0.5.squareRoot()) < 1e-12)
        let stereoCentre = AudioMix.panGains(pan: 0, channels: 2)
        #expect(abs(stereoCentre.left - 1) < 1e-12 && abs(stereoCentre.right - 1) < 1e-12)
        let left = AudioMix.panGains(pan: -1, channels: 1)
        #expect(abs(left.left - 1) < 1e-12 && abs(left.right) < 1e-12)
    }

    /// The knee leaves the sum exact up to the threshold, is monotonic and continuous beyond it, and never reaches 1.
    @Test func kneeNeverClips() {
        #expect(AudioMix.limited(0.5) == 0.5)
        #expect(AudioMix.limited(-0.89) == -0.89)
        var previous: Float = 0
        for step in 0...4000 {
            let value = Float(step) / 1000
            let bent = AudioMix.limited(value)
            #expect(bent >= previous)
            #expect(bent < 1 || value > 1.5)
            #expect(bent <= 1)
            #expect(AudioMix.limited(-value) == -bent)
            previous = bent
        }
        let justAbove = AudioMix.limited(AudioMix.kneeThreshold + 1e-4)
        #expect(abs(justAbove - (AudioMix.kneeThreshold + 1e-4)) < 1e-5)
    }
}

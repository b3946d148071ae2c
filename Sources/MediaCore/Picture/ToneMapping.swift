import Foundation

/// HDR to SDR for covers: PQ (SMPTE ST 2084) and HLG (ARIB STD-B67) pictures, in BT.2020 or
/// Display P3 primaries, become BT.709 with standard-range light, on the small picture after
/// scaling (so the cost is per cover pixel, not per video pixel).
///
/// Per pixel, from 16-bit R'G'B' (swscale's conversion of the YUV with the frame's matrix):
/// 1. display light per component by a lookup table, in units of the SDR reference display's peak
///    (100 cd/m2, BT.2035), which standard range shows as its white: PQ by its EOTF; HLG by its
///    inverse OETF and a system gamma of 1.2 on each component for a 1,000 cd/m2 display (a
///    scene-light conversion, as zimg does; the luminance-weighted BT.2100 OOTF differs from it
///    in saturated colours);
/// 2. BT.2390's EETF, the tone curve: a Hermite knee in the PQ domain that maps the source peak
///    (the frame's MaxCLL, else its mastering display's peak, else 1,000 cd/m2) onto the SDR
///    display's peak and leaves everything below the knee (about 33 cd/m2 for a 1,000 cd/m2
///    source) untouched; HDR reference white (203 cd/m2, BT.2408) lands at about 0.9 of SDR white.
///    It is applied to the largest component as a gain on all three, so hue and
///    saturation are kept (a per-component curve would bleach bright colours);
/// 3. the primaries' matrix to BT.709, in linear light;
/// 4. a gamut clip: a colour BT.709 cannot show is desaturated toward its own luminance until it
///    fits, rather than clipped per component (which would shift its hue);
/// 5. the BT.1886 inverse EOTF (gamma 1/2.4) to 8-bit, by a table indexed by the square root of
///    the light, so dark tones keep their precision.
package struct ToneMapper {
    /// The SDR reference display's peak, in cd/m2 (BT.2035): what standard range shows as white,
    /// and where the tone curve puts the source's peak.
    package static let referenceWhite = 100.0
    /// The peak assumed when the frame states none (HLG's nominal display, common HDR10 masters).
    package static let defaultPeak = 1000.0

    /// Entries of the input tables (indexed by the top 12 bits of a 16-bit component).
    private static let inputBits = 12
    /// Entries of the output table.
    private static let tableSize = 4096
    /// Entries of the gain table (a smooth curve: each entry costs four `pow` calls to make).
    private static let gainSize = 1024

    private let toLight: [Float]
    private let gain: [Float]
    /// Light (in SDR whites) at which the tone curve starts bending; below it the gain is 1.
    private let knee: Float
    /// Maps light to an index of `gain`.
    private let gainScale: Float
    private let matrix: [Float]

    /// A tone mapper for `range` (PQ or HLG) with `primaries`, for a source whose brightest light
    /// is `peak` cd/m2 (nil: ``defaultPeak``). Nil for standard range.
    package init?(range: DynamicRange, primaries: FFmpeg.Primaries, peak: Double?) {
        switch range {
        case .standard: return nil
        case .pq: toLight = Self.pqLight
        case .hlg: toLight = Self.hlgLight
        }
        // HLG's peak is its display's, whatever the content's metadata says.
        let sourcePeak = range == .hlg ? Self.defaultPeak : max(peak ?? Self.defaultPeak, Self.referenceWhite)
        let curve = (sourcePeak == Self.defaultPeak) ? Self.defaultCurve : Self.curve(sourcePeak: sourcePeak)
        knee = curve.knee
        gainScale = curve.scale
        gain = curve.gain
        matrix =
            switch primaries {
            case .bt709: [1, 0, 0, 0, 1, 0, 0, 0, 1]
            case .bt2020:
                [
                    1.660491, -0.587641, -0.072850,
                    -0.124550, 1.132900, -0.008349,
                    -0.018151, -0.100579, 1.118730,
                ]
            case .displayP3:
                [
                    1.224940, -0.224940, 0,
                    -0.042057, 1.042057, 0,
                    -0.019638, -0.078636, 1.098274,
                ]
            }
    }

    /// The gain table of the tone curve for `sourcePeak` cd/m2: gain (output light / input light)
    /// by input light, the knee below which the gain is 1, and the scale from light to an index.
    private static func curve(sourcePeak: Double) -> (gain: [Float], knee: Float, scale: Float) {
        let curve = EETF(sourcePeak: sourcePeak, targetPeak: referenceWhite)
        let peakLight = sourcePeak / referenceWhite
        let gain = (0..<gainSize).map { index -> Float in
            let light = Double(index) / Double(gainSize - 1) * peakLight
            guard light > 0 else { return 1 }
            return Float(curve.map(light * referenceWhite) / referenceWhite / light)
        }
        return (gain, Float(curve.kneeLight / referenceWhite), Float(Double(gainSize - 1) / peakLight))
    }

    /// The curve for ``defaultPeak`` (every HLG picture, and HDR10 mastered at 1,000 cd/m2), made once.
    private static let defaultCurve = curve(sourcePeak: defaultPeak)

    /// Tone-maps `width` x `height` RGB48LE pixels at `source` (rows `sourceStride` bytes apart)
    /// into 8-bit RGB (`bytesPerPixel` 3) or RGBA (4, alpha 255) at `destination`.
    package func map(
        source: UnsafePointer<UInt8>, sourceStride: Int,
        destination: UnsafeMutablePointer<UInt8>, destinationStride: Int,
        width: Int, height: Int, bytesPerPixel: Int
    ) {
        let shift = UInt16(16 - Self.inputBits)
        let last = Float(Self.tableSize - 1)
        let lastGain = Float(Self.gainSize - 1)
        let (knee, gainScale) = (knee, gainScale)
        let (m0, m1, m2, m3, m4, m5, m6, m7, m8) = (
            matrix[0], matrix[1], matrix[2], matrix[3], matrix[4], matrix[5], matrix[6], matrix[7], matrix[8]
        )
        toLight.withUnsafeBufferPointer { toLight in
            gain.withUnsafeBufferPointer { gain in
                Self.output.withUnsafeBufferPointer { output in
                    for y in 0..<height {
                        let row = UnsafeRawPointer(source + y * sourceStride)
                        var target = destination + y * destinationStride
                        for x in 0..<width {
                            let r16 = UInt16(littleEndian: row.loadUnaligned(fromByteOffset: x * 6, as: UInt16.self))
                            let g16 = UInt16(
                                littleEndian: row.loadUnaligned(fromByteOffset: x * 6 + 2, as: UInt16.self))
                            let b16 = UInt16(
                                littleEndian: row.loadUnaligned(fromByteOffset: x * 6 + 4, as: UInt16.self))
                            var r = toLight[Int(r16 >> shift)]
                            var g = toLight[Int(g16 >> shift)]
                            var b = toLight[Int(b16 >> shift)]
                            let brightest = max(r, max(g, b))
                            if brightest > knee {
                                let factor = gain[Int(min(brightest * gainScale, lastGain))]
                                r *= factor
                                g *= factor
                                b *= factor
                            }
                            var r709 = m0 * r + m1 * g + m2 * b
                            var g709 = m3 * r + m4 * g + m5 * b
                            var b709 = m6 * r + m7 * g + m8 * b
                            let darkest = min(r709, min(g709, b709))
                            if darkest < 0 {
                                // Toward the colour's own luminance until no component is negative.
                                let luma = max(0, 0.2126 * r709 + 0.7152 * g709 + 0.0722 * b709)
                                let keep = luma / (luma - darkest)
                                r709 = luma + keep * (r709 - luma)
                                g709 = luma + keep * (g709 - luma)
                                b709 = luma + keep * (b709 - luma)
                            }
                            target[0] = output[Self.outputIndex(r709, last)]
                            target[1] = output[Self.outputIndex(g709, last)]
                            target[2] = output[Self.outputIndex(b709, last)]
                            if bytesPerPixel == 4 { target[3] = 255 }
                            target += bytesPerPixel
                        }
                    }
                }
            }
        }
    }

    @inline(__always)
    private static func outputIndex(_ light: Float, _ last: Float) -> Int {
        Int(min(max(light, 0), 1).squareRoot() * last + 0.5)
    }

    // MARK: Tables

    /// PQ code (top 12 bits) to display light in SDR whites: the ST 2084 EOTF.
    private static let pqLight: [Float] = (0..<(1 << inputBits)).map { code in
        Float(PQ.light(signal: Double(code) / Double((1 << inputBits) - 1)) / referenceWhite)
    }

    /// HLG code (top 12 bits) to display light in SDR whites: the inverse OETF, then a
    /// system gamma of 1.2 on a 1,000 cd/m2 display.
    private static let hlgLight: [Float] = (0..<(1 << inputBits)).map { code in
        let signal = Double(code) / Double((1 << inputBits) - 1)
        let a = 0.17883277
        let b = 1 - 4 * a
        let c = 0.5 - a * log(4 * a)
        let scene = signal <= 0.5 ? signal * signal / 3 : (exp((signal - c) / a) + b) / 12
        return Float(defaultPeak * pow(scene, 1.2) / referenceWhite)
    }

    /// The square root of light (0...1, in SDR whites) to 8-bit BT.1886 code: light^(1/2.4).
    private static let output: [UInt8] = (0..<tableSize).map { index in
        let root = Double(index) / Double(tableSize - 1)
        return UInt8((pow(root * root, 1 / 2.4) * 255).rounded())
    }
}

/// SMPTE ST 2084, the PQ curve: signal (0...1) to and from absolute light (cd/m2).
package enum PQ {
    private static let m1 = 2610.0 / 16384
    private static let m2 = 2523.0 / 4096 * 128
    private static let c1 = 3424.0 / 4096
    private static let c2 = 2413.0 / 4096 * 32
    private static let c3 = 2392.0 / 4096 * 32

    package static func light(signal: Double) -> Double {
        let power = pow(min(max(signal, 0), 1), 1 / m2)
        return 10_000 * pow(max(power - c1, 0) / (c2 - c3 * power), 1 / m1)
    }

    package static func signal(light: Double) -> Double {
        let y = pow(min(max(light / 10_000, 0), 1), m1)
        return pow((c1 + c2 * y) / (1 + c3 * y), m2)
    }
}

/// BT.2390's EETF (section 5.4 of the report): a tone curve in the PQ domain from a source whose
/// peak is `sourcePeak` to a display whose peak is `targetPeak` (both cd/m2, black at 0).
package struct EETF {
    package let sourcePeak: Double
    package let targetPeak: Double
    private let sourceSignal: Double
    private let maximum: Double
    private let kneeStart: Double

    package init(sourcePeak: Double, targetPeak: Double) {
        self.sourcePeak = sourcePeak
        self.targetPeak = targetPeak
        sourceSignal = PQ.signal(light: sourcePeak)
        maximum = PQ.signal(light: targetPeak) / sourceSignal
        kneeStart = 1.5 * maximum - 0.5
    }

    /// The light below which the curve is the identity.
    package var kneeLight: Double {
        sourcePeak <= targetPeak ? targetPeak : PQ.light(signal: max(kneeStart, 0) * sourceSignal)
    }

    /// `light` (cd/m2) as the target display shows it.
    package func map(_ light: Double) -> Double {
        guard sourcePeak > targetPeak else { return min(light, targetPeak) }
        let e1 = min(PQ.signal(light: light) / sourceSignal, 1)
        guard e1 >= kneeStart else { return light }
        let t = (e1 - kneeStart) / (1 - kneeStart)
        let t2 = t * t
        let t3 = t2 * t
        let e2 =
            (2 * t3 - 3 * t2 + 1) * kneeStart + (t3 - 2 * t2 + t) * (1 - kneeStart) + (-2 * t3 + 3 * t2) * maximum
        return PQ.light(signal: min(e2, maximum) * sourceSignal)
    }
}

import Foundation
import TestSupport
import Testing

@testable import MediaCore
@testable import Thumbnails

/// How covers look on real-world shapes (Tools/Corpus/picture.sh), against the `ffmpeg` command's own
/// picture: the eight display-matrix orientations, the container's pixel aspect ratio, HDR tone mapping
/// and deinterlacing.
@Suite("Covers: orientation, aspect, HDR and interlacing as the ffmpeg command shows them")
struct PictureTests {
    let generator = CoverGenerator()

    @Test(
        "every display-matrix orientation, mirrors included, matches the ffmpeg command's autorotated frame",
        arguments: [
            ("r0", 0, false), ("r0-mirror", 0, true), ("r90", 90, false), ("r90-mirror", 90, true),
            ("r180", 180, false), ("r180-mirror", 180, true), ("r270", 270, false), ("r270-mirror", 270, true),
        ]
    )
    func orientation(_ name: String, _ rotation: Int, _ mirrored: Bool) throws {
        let url = try Corpus.url("picture-orient-\(name).mp4")
        let media = try MediaDescription(contentsOf: url)
        #expect(media.rotation == rotation)
        #expect(media.isMirrored == mirrored)
        let cover = try generator.makeCover(for: url)
        let upright = rotation % 180 == 0 ? PixelSize(width: 320, height: 180) : PixelSize(width: 180, height: 320)
        #expect(cover.size == upright)
        #expect(media.displaySize == upright)
        let reference = try PictureReference.frame(url.path, width: upright.width, height: upright.height)
        let psnr = PictureReference.psnr(cover.pixels, reference.pixels)
        #expect(psnr > 40, "\(name): PSNR \(psnr) dB against ffmpeg's autorotated frame")
        // Unturned, the same pixels must not pass for the reference (the check can tell orientations apart).
        var unturned = CoverOptions()
        unturned.appliesRotation = false
        if name != "r0", rotation % 180 == 0 {
            let plain = try generator.makeCover(for: url, options: unturned)
            #expect(PictureReference.psnr(plain.pixels, reference.pixels) < 20)
        }
    }

    @Test("the orientation follows ffmpeg's decision for each display matrix, and a plain turn is unchanged")
    func orientationTable() {
        // (a, b, c, d) of the display matrix -> (transposes, flipsX, flipsY), per fftools' autorotate.
        let cases: [([Int32], Orientation)] = [
            ([1, 0, 0, 1], .upright),
            ([-1, 0, 0, 1], Orientation(transposes: false, flipsX: true, flipsY: false)),
            ([1, 0, 0, -1], Orientation(transposes: false, flipsX: false, flipsY: true)),
            ([-1, 0, 0, -1], Orientation(clockwise: 180)),
            ([0, 1, -1, 0], Orientation(clockwise: 90)),
            ([0, -1, 1, 0], Orientation(clockwise: 270)),
            ([0, 1, 1, 0], Orientation(transposes: true, flipsX: false, flipsY: false)),
            ([0, -1, -1, 0], Orientation(transposes: true, flipsX: true, flipsY: true)),
        ]
        for (abcd, expected) in cases {
            let matrix = [abcd[0] << 16, abcd[1] << 16, 0, abcd[2] << 16, abcd[3] << 16, 0, 0, 0, 1 << 30]
            // av_display_rotation_get: -atan2(b, a) after normalising the columns, in degrees.
            let angle = -atan2(Double(abcd[1]), Double(abcd[0])) * 180 / .pi
            let found = Orientation(displayMatrix: matrix, rotation: angle == 0 ? 0 : angle)
            #expect(found == expected, "matrix \(abcd)")
        }
        #expect(Orientation(displayMatrix: nil, rotation: nil) == .upright)
    }

    @Test(
        "plain fixtures are standard range and not mirrored; their plain turns keep their rotation",
        arguments: [
            ("h264.mp4", 0), ("hevc-10bit.mp4", 0), ("rotation-90.mp4", 270), ("rotation-180.mp4", 180),
            ("rotation-minus90.mp4", 90),
        ]
    )
    func plainFixtures(_ name: String, _ rotation: Int) throws {
        let media = try MediaDescription(contentsOf: Fixtures.url(name))
        #expect(media.dynamicRange == .standard)
        #expect(!media.isMirrored)
        #expect(media.rotation == rotation)
    }

    @Test("Matroska's pixel aspect ratio wins over the H.264 bitstream's, as av_guess_sample_aspect_ratio decides")
    func containerAspectRatio() throws {
        let url = try Corpus.url("picture-sar-2to1.mkv")
        let media = try MediaDescription(contentsOf: url)
        #expect(media.pixelAspectRatio == Rational(numerator: 2, denominator: 1))
        #expect(media.displaySize == PixelSize(width: 640, height: 240))
        let cover = try generator.makeCover(
            for: url, options: CoverOptions(maximumSize: PixelSize(width: 320, height: 320)))
        #expect(cover.size == PixelSize(width: 320, height: 120))
        let natural = try generator.makeCover(for: url)
        #expect(natural.size == PixelSize(width: 640, height: 240))
    }

    /// ffmpeg's own tone-mapping chain back to BT.709 (zimg for the transfers and primaries, `tonemap=hable`).
    static let ffmpegToneMapping =
        "zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=hable:desat=0,"
        + "zscale=t=bt709:m=bt709:r=tv,format=yuv420p"

    @Test(
        "HDR (PQ, HLG) is tone-mapped to BT.709: closer to its SDR source than ffmpeg's zscale chain, saturation kept",
        arguments: [("picture-hdr-pq.mp4", DynamicRange.pq), ("picture-hdr-hlg.mp4", .hlg)]
    )
    func toneMapping(_ name: String, _ range: DynamicRange) throws {
        let url = try Corpus.url(name)
        #expect(try MediaDescription(contentsOf: url).dynamicRange == range)
        let source = try PictureReference.frame(
            "testsrc2=size=320x180:rate=25:duration=1", lavfi: true, width: 320, height: 180)
        let chain = try PictureReference.frame(url.path, filter: Self.ffmpegToneMapping, width: 320, height: 180)
        for format in [CoverPixelFormat.rgb, .rgba] {
            var options = CoverOptions()
            options.pixelFormat = format
            let cover = try generator.makeCover(for: url, options: options)
            #expect(cover.size == PixelSize(width: 320, height: 180))
            var rgb = cover.pixels
            if format == .rgba {
                #expect(stride(from: 3, to: rgb.count, by: 4).allSatisfy { rgb[$0] == 255 })
                rgb = stride(from: 0, to: rgb.count, by: 4).flatMap { rgb[$0..<($0 + 3)] }
            }
            let ours = PictureReference.psnr(rgb, source.pixels)
            let theirs = PictureReference.psnr(chain.pixels, source.pixels)
            let saturation = PictureReference.saturation(rgb) / PictureReference.saturation(source.pixels)
            #expect(ours > 19, "\(name): PSNR \(ours) dB against the SDR source (ffmpeg's chain: \(theirs) dB)")
            #expect(ours > theirs + 3, "\(name): PSNR \(ours) dB, ffmpeg's chain \(theirs) dB")
            #expect(saturation > 0.9, "\(name): saturation \(saturation) of the source's")
        }
    }

    @Test("the tone curve is BT.2390's EETF: identity below the knee, the source peak onto the SDR display's peak")
    func toneCurve() {
        let curve = EETF(sourcePeak: 1000, targetPeak: 100)
        #expect(abs(curve.map(20) - 20) < 1e-9)
        #expect(abs(curve.map(1000) - 100) < 0.5)
        #expect(curve.map(500) < 100 && curve.map(500) > curve.map(203))
        #expect(curve.map(203) > 85 && curve.map(203) < 95)
        #expect(curve.kneeLight > 25 && curve.kneeLight < 45)
        for nits in [0.5, 10.0, 100.0, 203.0, 1000.0, 4000.0] {
            #expect(abs(PQ.light(signal: PQ.signal(light: nits)) - nits) < nits * 1e-6)
        }
        let flat = EETF(sourcePeak: 90, targetPeak: 100)
        #expect(flat.map(80) == 80)
    }

    @Test(
        "an interlaced frame is deinterlaced (no combing), close to ffmpeg's yadif",
        arguments: ["picture-interlaced-tff.mp4", "picture-interlaced-bff.mp4"]
    )
    func deinterlacing(_ name: String) throws {
        let url = try Corpus.url(name)
        for (width, height) in [(320, 240), (160, 120)] {
            let options = CoverOptions(maximumSize: PixelSize(width: width, height: height))
            let cover = try generator.makeCover(for: url, options: options)
            #expect(cover.size == PixelSize(width: width, height: height))
            let scale = width == 320 ? "" : ",scale=\(width):\(height):flags=bilinear"
            let yadif = try PictureReference.frame(url.path, filter: "yadif" + scale, width: width, height: height)
            let woven = try PictureReference.frame(
                url.path, filter: "null" + scale, width: width, height: height)
            let ours = PictureReference.psnr(cover.pixels, yadif.pixels)
            let plain = PictureReference.psnr(woven.pixels, yadif.pixels)
            #expect(ours > 24, "\(name) at \(width)x\(height): PSNR \(ours) dB against yadif (woven: \(plain) dB)")
            #expect(ours > plain + 3, "\(name) at \(width)x\(height): \(ours) dB, woven \(plain) dB")
            let combing = PictureReference.combing(cover.pixels, width: width)
            let reference = PictureReference.combing(yadif.pixels, width: width)
            #expect(combing < reference * 1.5, "\(name) at \(width)x\(height): combing \(combing), yadif \(reference)")
        }
    }
}

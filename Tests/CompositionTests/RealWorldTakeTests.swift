import Composition
import Foundation
import Pixels
import TestSupport
import Testing

/// Takes as phones and cameras make them, generated small and short with the ffmpeg command line: 25 fps, 29.97 fps
/// and variable frame rate takes in a 30 fps output, an interlaced take and an HDR (PQ) take. The ffmpeg CLI is the
/// oracle: it decodes each take (its frames and their times), deinterlaces with `yadif` and tone-maps with
/// `zscale`+`tonemap`; the composition is lossless (CRF 0), so only the composer's choices show.
@Suite("Composer: real-world takes against the ffmpeg CLI", .serialized)
struct RealWorldTakeTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder(prefix: "CompositionRealWorld")
    }

    func file(_ name: String) -> URL { folder.url.appendingPathComponent(name) }

    /// A one-tile plan whose output is the take's own size at `rate` frames per second (30 unless told), lossless.
    func composeAlone(
        _ take: URL, width: Int, height: Int, _ name: String, rate: FrameRate = FrameRate(frames: 30)
    ) async throws -> (URL, CompositionResult) {
        var plan = CompositionPlan(
            files: [take], grid: GridLayout(columns: 1, rows: 1), size: PixelSize(width: width, height: height))
        plan.video.constantRateFactor = 0
        plan.frameRate = rate
        let output = file(name)
        return (output, try await Composer().compose(plan, to: output))
    }

    /// Takes whose frames fall between the output's: each output frame shows the take's last frame at or before its
    /// time (the CLI's frame times, `ffprobe`), byte for byte. A frame shown early or late, or a rate taken as 30 fps,
    /// fails.
    @Test(arguments: [
        ("25 fps", "testsrc2=size=32x32:rate=25:duration=1", [String]()),
        ("29.97 fps", "testsrc2=size=32x32:rate=30000/1001:duration=1", []),
        // 30 fps with two frames of every five dropped: gaps of 1/30 and 3/30 s.
        (
            "variable frame rate", "testsrc2=size=32x32:rate=30:duration=1,select='lt(mod(n\\,5)\\,3)'",
            ["-fps_mode", "vfr"]
        ),
    ])
    func frameRatesShowTheFrameOfTheirTime(name: String, source: String, options: [String]) async throws {
        let take = file("take-\(name.filter(\.isLetter)).mkv")
        try FFmpegTool.run(
            ["-f", "lavfi", "-i", source] + options + ["-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p", take.path])
        let (output, result) = try await composeAlone(take, width: 32, height: 32, "out-\(name.filter(\.isLetter)).mp4")
        let takeFrames = try FFmpegTool.frames(of: take, width: 32, height: 32, everyFrame: true)
        let times = try FFmpegTool.frameTimes(of: take)
        #expect(takeFrames.count == times.count)
        let ours = try FFmpegTool.frames(of: output, width: 32, height: 32, everyFrame: true)
        #expect(ours.count == result.frameCount)
        #expect(result.frameCount >= 28, "\(result.frameCount) frames")
        var mismatches: [String] = []
        for (index, frame) in ours.enumerated() {
            let time = Double(index) / 30
            // Matroska stores milliseconds: a frame is due within half a millisecond of its time.
            let expected = times.lastIndex { $0 <= time + 0.0005 } ?? 0
            if frame != takeFrames[expected] {
                let shown = takeFrames.firstIndex(of: frame).map(String.init) ?? "none"
                mismatches.append("output \(index) shows take frame \(shown), expected \(expected)")
            }
        }
        #expect(mismatches.isEmpty, "\(name): \(mismatches)")
    }

    /// An interlaced take (two moments woven into each frame, top field first; a box moving sideways): the tile is
    /// made of the first field alone, as a cover is (the CLI's `field=top` scaled to the frame's height), close to
    /// `yadif` and without the comb of the woven frame, frame for frame.
    @Test func interlacedTakeIsDeinterlaced() async throws {
        let take = file("interlaced.ts")
        try FFmpegTool.run([
            "-f", "lavfi", "-i",
            "color=gray:s=64x64:r=50:d=0.4[bg];color=white:s=16x32:r=50:d=0.4[box];"
                + "[bg][box]overlay=x='mod(n*4,48)':y=16,tinterlace=mode=interleave_top,setfield=tff[out0]",
            "-c:v", "libx264", "-qp", "0", "-flags", "+ildct+ilme", "-top", "1", "-pix_fmt", "yuv420p", take.path,
        ])
        let (output, result) = try await composeAlone(
            take, width: 64, height: 64, "interlaced-out.mp4", rate: FrameRate(frames: 25))
        let ours = try FFmpegTool.frames(of: output, width: 64, height: 64, everyFrame: true)
        let woven = try FFmpegTool.frames(of: take, width: 64, height: 64, everyFrame: true)
        let field = try FFmpegTool.frames(
            of: take, width: 64, height: 64, filter: "field=type=top,scale=64:64:flags=bilinear", everyFrame: true)
        let yadif = try FFmpegTool.frames(
            of: take, width: 64, height: 64, filter: "yadif=mode=send_frame", everyFrame: true)
        #expect(result.frameCount == 10 && ours.count == 10 && woven.count == 10 && field.count == 10)
        for index in 0..<min(ours.count, woven.count, field.count, yadif.count) {
            let ourComb = Luma.combing(ours[index], width: 64, height: 64)
            let wovenComb = Luma.combing(woven[index], width: 64, height: 64)
            #expect(ourComb < wovenComb / 2, "frame \(index): combing \(ourComb), woven \(wovenComb)")
            let toField = Luma.meanDifference(ours[index], field[index], count: 64 * 64)
            let toYadif = Luma.meanDifference(ours[index], yadif[index], count: 64 * 64)
            let toWoven = Luma.meanDifference(ours[index], woven[index], count: 64 * 64)
            #expect(
                toField < 3 && toYadif < 3 && toWoven > 2 * max(toField, toYadif),
                "frame \(index): \(toField) from the first field, \(toYadif) from yadif, \(toWoven) from the woven frame"
            )
        }
    }

    /// An HDR10 take (PQ, BT.2020, 10-bit) made from an SDR master: the tile is tone-mapped to SDR BT.709 at least as
    /// close to the master as ffmpeg's `zscale`+`tonemap` chains (Hable, Möbius) come, less 1 dB.
    @Test func hdrTakeIsToneMapped() async throws {
        let master = file("master.mkv")
        try FFmpegTool.run([
            "-f", "lavfi", "-i", "testsrc2=size=64x64:rate=30:duration=0.2", "-c:v", "libx264", "-qp", "0",
            "-pix_fmt", "yuv420p", master.path,
        ])
        let take = file("hdr.mkv")
        try FFmpegTool.run([
            "-i", master.path, "-vf",
            "zscale=tin=bt709:min=bt709:pin=bt709:rin=limited:t=linear:m=bt709:p=bt709:npl=100,format=gbrpf32le,"
                + "zscale=p=2020:t=smpte2084:m=2020_ncl:r=limited:npl=100,format=yuv420p10le",
            "-c:v", "libx264", "-qp", "0", "-color_primaries", "bt2020", "-color_trc", "smpte2084", "-colorspace",
            "bt2020nc", take.path,
        ])
        let (output, _) = try await composeAlone(take, width: 64, height: 64, "hdr-out.mp4")
        let ours = try FFmpegTool.frames(of: output, width: 64, height: 64)
        let reference = try FFmpegTool.frames(of: master, width: 64, height: 64)
        let raw = try FFmpegTool.frames(of: take, width: 64, height: 64)
        #expect(ours.count == reference.count, "\(ours.count) frames, the master \(reference.count)")
        var chains: [(String, Double)] = []
        for curve in ["hable", "mobius"] {
            let mapped = try FFmpegTool.frames(
                of: take, width: 64, height: 64,
                filter: "zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=tonemap=\(curve):desat=0,"
                    + "zscale=t=bt709:m=bt709:r=tv")
            chains.append((curve, Luma.psnr(mapped[0], reference[0], count: 64 * 64)))
        }
        let oursPSNR = Luma.psnr(ours[0], reference[0], count: 64 * 64)
        let untouched = Luma.psnr(raw[0], reference[0], count: 64 * 64)
        let floor = chains.map(\.1).min()! - 1
        #expect(oursPSNR >= floor, "\(oursPSNR) dB against the master; ffmpeg's chains \(chains)")
        #expect(oursPSNR > untouched, "\(oursPSNR) dB, the PQ values shown as they are \(untouched) dB")
    }

    /// A take without colour tags is read as BT.709, the output's matrix, whether it is upright or must be turned:
    /// the same solid colours, turned by the display matrix, come out within 3 levels of the upright take's (a turned
    /// take read as BT.601 on its way through RGB came out 10 and more levels off in its chroma).
    @Test func rotatedUntaggedTakeKeepsItsColours() async throws {
        let upright = file("upright.mp4")
        try FFmpegTool.run([
            "-f", "lavfi", "-i", "color=c=0xC03020:size=32x32:rate=10:duration=0.5", "-c:v", "libx264", "-qp", "0",
            "-pix_fmt", "yuv420p", upright.path,
        ])
        let turned = file("turned.mp4")
        try FFmpegTool.run(["-i", upright.path, "-c", "copy", "-metadata:s:v:0", "rotate=90", turned.path])
        let (uprightOut, _) = try await composeAlone(upright, width: 32, height: 32, "upright-out.mp4")
        let (turnedOut, _) = try await composeAlone(turned, width: 32, height: 32, "turned-out.mp4")
        let expected = try FFmpegTool.frames(of: uprightOut, width: 32, height: 32)
        let actual = try FFmpegTool.frames(of: turnedOut, width: 32, height: 32)
        try #require(!expected.isEmpty && expected.count == actual.count)
        for (ours, reference) in zip(actual, expected) {
            let worst = zip(ours, reference).map { abs(Int($0) - Int($1)) }.max() ?? 0
            #expect(worst <= 3, "a turned take's sample is \(worst) levels from the upright take's")
        }
    }
}

/// Measures on the luma plane of 4:2:0 frames.
enum Luma {
    /// The mean absolute difference of the first `count` bytes (the luma plane).
    static func meanDifference(_ a: Data, _ b: Data, count: Int) -> Double {
        var total = 0
        for index in 0..<count { total += abs(Int(a[index]) - Int(b[index])) }
        return Double(total) / Double(count)
    }

    /// The peak signal-to-noise ratio of the luma planes, in dB.
    static func psnr(_ a: Data, _ b: Data, count: Int) -> Double {
        var squares = 0.0
        for index in 0..<count {
            let difference = Double(a[index]) - Double(b[index])
            squares += difference * difference
        }
        let mean = squares / Double(count)
        return mean == 0 ? 99 : 10 * log10(255 * 255 / mean)
    }

    /// How much each line differs from the mean of its neighbours above and below: large when the two fields of a
    /// frame hold different moments (the comb of a woven frame).
    static func combing(_ frame: Data, width: Int, height: Int) -> Double {
        var total = 0.0
        for row in 1..<(height - 1) {
            for column in 0..<width {
                let above = Double(frame[(row - 1) * width + column])
                let below = Double(frame[(row + 1) * width + column])
                total += abs(Double(frame[row * width + column]) - (above + below) / 2)
            }
        }
        return total / Double((height - 2) * width)
    }
}

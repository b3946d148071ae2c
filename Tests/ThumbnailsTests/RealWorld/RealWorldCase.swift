import Testing
import Thumbnails

/// One comparison of the real-world suite: a corpus file, the cover asked of it, and what is known to be wrong today.
struct RealWorldCase: Sendable, CustomTestStringConvertible {
    enum Mode: Sendable, CustomStringConvertible {
        /// The default: the last keyframe at or before the time.
        case keyframe
        /// `options.exact()`: the frame whose display interval holds the time.
        case exact
        /// `skipsDarkFrames` in keyframe mode, on a clip that is black until `pictureFrom` seconds: the first
        /// keyframe from then on is the reference.
        case skipDark(pictureFrom: Double)

        var description: String {
            switch self {
            case .keyframe: "keyframe"
            case .exact: "exact"
            case .skipDark: "skip-dark"
            }
        }
    }

    enum Reference: Sendable {
        /// The ffmpeg CLI's frame at the reference index, same size and orientation.
        case frame
        /// An HDR clip: compared with the SDR file it was made from (frame for frame) and with ffmpeg's zscale and
        /// tonemap chains back to BT.709 (Hable's and Möbius' curves); the cover must be at least as close to the
        /// master as the farther of the two, less 1 dB, and keep the master's saturation.
        case toneMapped(sdr: String)
        /// An interlaced clip: compared with ffmpeg's `yadif` (same frame, same size); the cover must not comb.
        case deinterlaced
    }

    /// What the suite checks separately, so a known issue covers only what it breaks.
    enum Aspect: Sendable, Hashable {
        /// A cover is returned at all.
        case cover
        /// Its size (aspect ratio and rotation applied, fitted to the box).
        case size
        /// Its actual time: the reference frame's time within half a frame.
        case time
        /// Its picture: the reference frame's, in the same orientation (PSNR).
        case picture
        /// A warning says the input could not seek (only asked of such cases).
        case warning
    }

    /// A finding another change is fixing: the aspects it breaks are wrapped in `withKnownIssue`.
    struct KnownIssue: Sendable {
        var finding: String
        var aspects: Set<Aspect>
    }

    /// The row label in Docs/Thumbnails.md's "Real-world files" table.
    var shape: String
    var file: String
    var time: CoverTime = .seconds(0)
    var mode: Mode = .keyframe
    var box: PixelSize = .zero
    var reference: Reference = .frame
    /// The file is opened through a copy whose name is not UTF-8 (the bytes of "caf\xe9" in Latin-1).
    var nonUTF8Name = false
    /// The input cannot seek and the time is past its first frame: the cover must carry a warning.
    var expectsWarning = false
    var knownIssue: KnownIssue?

    var testDescription: String {
        let at =
            switch time {
            case .seconds(let seconds): "\(seconds) s"
            case .fraction(let fraction): "\(fraction * 100)%"
            }
        return "\(shape): \(file), \(mode) at \(at)\(box == .zero ? "" : " in \(box)")"
    }
}

extension RealWorldCase {
    static let box = PixelSize(width: 160, height: 160)

    static let all: [RealWorldCase] =
        orientation + colour + timing + containers + formats

    static let orientation: [RealWorldCase] = [
        RealWorldCase(shape: "display matrix: none", file: "rw-matrix-identity.mp4"),
        RealWorldCase(shape: "display matrix: rotate 90 (rotate tag)", file: "rw-rotate-tag-90.mp4"),
        RealWorldCase(shape: "display matrix: rotate 90", file: "rw-matrix-rot90.mp4"),
        RealWorldCase(shape: "display matrix: rotate 180", file: "rw-matrix-rot180.mp4", box: box),
        RealWorldCase(shape: "display matrix: rotate 270", file: "rw-matrix-rot270.mp4", box: box),
        RealWorldCase(
            shape: "display matrix: horizontal mirror", file: "rw-matrix-hflip.mp4"),
        RealWorldCase(
            shape: "display matrix: vertical mirror", file: "rw-matrix-vflip.mp4"),
        RealWorldCase(
            shape: "display matrix: transpose (mirror + 90)", file: "rw-matrix-transpose.mp4"),
        RealWorldCase(
            shape: "display matrix: transverse (mirror + 270)", file: "rw-matrix-transverse.mp4", box: box),
        RealWorldCase(
            shape: "Matroska 2:1 container SAR over square-pixel H.264", file: "rw-sar-2to1.mkv",
            box: PixelSize(width: 320, height: 320)),
    ]

    static let colour: [RealWorldCase] = [
        RealWorldCase(shape: "SDR BT.709 HEVC (the HDR clips' source)", file: "rw-hdr-source-sdr.mp4"),
        RealWorldCase(
            shape: "HDR10 PQ BT.2020 10-bit HEVC", file: "rw-hdr-pq.mp4",
            reference: .toneMapped(sdr: "rw-hdr-source-sdr.mp4")),
        RealWorldCase(
            shape: "HLG BT.2020 10-bit HEVC", file: "rw-hdr-hlg.mp4",
            reference: .toneMapped(sdr: "rw-hdr-source-sdr.mp4")),
        RealWorldCase(shape: "H.264 10-bit 4:2:0", file: "rw-h264-10bit.mp4", box: box),
        RealWorldCase(shape: "H.264 10-bit 4:2:2", file: "rw-h264-422-10bit.mp4"),
        RealWorldCase(shape: "H.264 4:4:4", file: "rw-h264-444.mp4", box: box),
        RealWorldCase(shape: "HEVC 10-bit", file: "rw-hevc-10bit.mp4", time: .seconds(0.5), mode: .exact),
        RealWorldCase(shape: "ProRes 422 10-bit", file: "rw-prores-422.mov", time: .seconds(0.2), mode: .exact),
        RealWorldCase(shape: "ProRes 4444 with alpha", file: "rw-alpha-prores4444.mov", box: box),
        RealWorldCase(shape: "VP9 with alpha (WebM)", file: "rw-alpha-vp9.webm", time: .seconds(0.2), mode: .exact),
    ]

    static let timing: [RealWorldCase] = [
        RealWorldCase(shape: "baseline H.264 MP4", file: "baseline-h264.mp4", time: .seconds(1), box: box),
        RealWorldCase(shape: "baseline H.264 MP4", file: "baseline-h264.mp4", time: .seconds(1.3), mode: .exact),
        RealWorldCase(shape: "baseline H.264 MP4", file: "baseline-h264.mp4", time: .fraction(0.5)),
        // The variable-frame-rate finding (exact mode returning the previous frame) does not show on these shapes:
        // 0.15 s lies late in a 0.1 s frame (longer than the 0.052 s average), 1.3 s likewise after a 1.23 s frame.
        RealWorldCase(shape: "VFR MP4 with B-frames", file: "rw-vfr-bframes.mp4", time: .seconds(0.15), mode: .exact),
        RealWorldCase(shape: "VFR MP4 with B-frames", file: "rw-vfr-bframes.mp4", time: .seconds(1.3), mode: .exact),
        RealWorldCase(shape: "VFR MP4 with B-frames", file: "rw-vfr-bframes.mp4", time: .seconds(1.2)),
        // 0.4 s is where a 30 fps frame starts (timestamps in milliseconds); the one before starts at 0.367 s.
        RealWorldCase(
            shape: "VFR Matroska with B-frames, 30 then 10 fps", file: "rw-vfr-rates.mkv", time: .seconds(0.4),
            mode: .exact),
        RealWorldCase(
            shape: "VFR MP4 with B-frames, 30 then 10 fps (copied from Matroska)", file: "rw-vfr-rates.mp4",
            time: .seconds(0.4), mode: .exact),
        RealWorldCase(
            shape: "MP4 with B-frames, black first second", file: "rw-dark-bframes.mp4",
            mode: .skipDark(pictureFrom: 1)),
        RealWorldCase(
            shape: "MOV with B-frames, black first second", file: "rw-dark-bframes.mov",
            mode: .skipDark(pictureFrom: 1)),
        RealWorldCase(
            shape: "AVI, H.264 with B-frames", file: "rw-bframes-h264.avi", time: .seconds(1.2)),
        RealWorldCase(
            shape: "AVI, H.264 with B-frames", file: "rw-bframes-h264.avi", time: .seconds(1.3), mode: .exact),
        RealWorldCase(
            shape: "AVI, MPEG-4 part 2 with packed B-frames", file: "rw-bframes-mpeg4.avi", time: .seconds(1.2)),
        RealWorldCase(
            shape: "AVI, MPEG-4 part 2 with packed B-frames", file: "rw-bframes-mpeg4.avi", time: .seconds(1.3),
            mode: .exact),
        RealWorldCase(
            shape: "AVI, MPEG-4 part 2 with packed B-frames", file: "rw-bframes-mpeg4.avi", mode: .exact),
        RealWorldCase(
            shape: "MPEG-2 program stream, keyframe every 0.4 s", file: "rw-mpeg2.mpg", time: .seconds(1.1)),
        RealWorldCase(
            shape: "MPEG-2 program stream, keyframe every 0.4 s", file: "rw-mpeg2.mpg", time: .seconds(0.2)),
        RealWorldCase(
            shape: "MPEG-2 program stream, keyframe every 0.4 s", file: "rw-mpeg2.mpg", time: .seconds(0.3),
            mode: .exact),
        RealWorldCase(
            shape: "MPEG-2 program stream, keyframe every 0.4 s", file: "rw-mpeg2.mpg", time: .seconds(1.1),
            mode: .exact),
        RealWorldCase(
            shape: "MPEG-2 transport stream, keyframe every 0.4 s", file: "rw-mpeg2.ts", time: .seconds(1.1)),
        RealWorldCase(
            shape: "MPEG-2 transport stream, keyframe every 0.4 s", file: "rw-mpeg2.ts", time: .seconds(1.1),
            mode: .exact),
        RealWorldCase(
            shape: "WMV (wmv2 in ASF), keyframe every 0.4 s", file: "rw-wmv2.wmv", time: .seconds(1.3)),
        RealWorldCase(
            shape: "WMV (wmv2 in ASF), keyframe every 0.4 s", file: "rw-wmv2.wmv", time: .seconds(1.1), mode: .exact),
        RealWorldCase(
            shape: "interlaced H.264 in MPEG-TS", file: "rw-interlaced-h264.ts", reference: .deinterlaced),
        RealWorldCase(
            shape: "interlaced H.264 in MPEG-TS", file: "rw-interlaced-h264.ts", time: .seconds(0.2), mode: .exact,
            box: box, reference: .deinterlaced),
        RealWorldCase(
            shape: "interlaced H.264 in MPEG-TS", file: "rw-interlaced-h264.ts", time: .seconds(1.9), box: box,
            reference: .deinterlaced),
    ]

    static let containers: [RealWorldCase] = [
        RealWorldCase(
            shape: "MP4, index (moov) at the end", file: "rw-moov-end.mp4", time: .seconds(1.5), mode: .exact),
        RealWorldCase(shape: "MP4, index at the front (faststart)", file: "rw-faststart.mp4", time: .seconds(1.5)),
        RealWorldCase(shape: "fragmented MP4", file: "rw-fragmented.mp4", time: .seconds(1.5), mode: .exact),
        RealWorldCase(shape: "fragmented MP4", file: "rw-fragmented.mp4", time: .seconds(1.5)),
        RealWorldCase(shape: "MP4 edit list: 0.5 s empty edit", file: "rw-editlist-offset.mp4"),
        RealWorldCase(
            shape: "MP4 edit list: 0.5 s empty edit", file: "rw-editlist-offset.mp4", time: .seconds(1), mode: .exact),
        RealWorldCase(
            shape: "MP4 edit list: cut between keyframes", file: "rw-editlist-cut.mp4"),
        RealWorldCase(
            shape: "MP4 edit list: cut between keyframes", file: "rw-editlist-cut.mp4", time: .seconds(0.5),
            mode: .exact),
        RealWorldCase(shape: "raw H.264 elementary stream", file: "rw-raw.h264"),
        RealWorldCase(
            shape: "raw H.264 elementary stream", file: "rw-raw.h264", time: .seconds(1.2),
            expectsWarning: true),
        RealWorldCase(shape: "raw HEVC elementary stream", file: "rw-raw.hevc"),
        RealWorldCase(
            shape: "raw HEVC elementary stream", file: "rw-raw.hevc", time: .seconds(1.2), mode: .exact,
            expectsWarning: true),
        RealWorldCase(shape: "still JPEG", file: "rw-still.jpg", box: box),
        RealWorldCase(
            shape: "still JPEG", file: "rw-still.jpg", time: .seconds(1),
            expectsWarning: true),
        RealWorldCase(shape: "still PNG", file: "rw-still.png"),
        RealWorldCase(shape: "still PNG", file: "rw-still.png", time: .seconds(1)),
        RealWorldCase(shape: "MP3 with cover art (JPEG)", file: "rw-cover-art.mp3"),
        RealWorldCase(
            shape: "MP3 with cover art (JPEG)", file: "rw-cover-art.mp3", time: .fraction(0.5),
            expectsWarning: true),
        RealWorldCase(shape: "M4A with cover art (PNG)", file: "rw-cover-art.m4a", box: box),
        RealWorldCase(
            shape: "M4A with cover art (PNG)", file: "rw-cover-art.m4a", time: .seconds(1),
            expectsWarning: true),
        RealWorldCase(shape: "Matroska written to a pipe (no duration)", file: "rw-pipe.mkv", time: .seconds(1.2)),
        RealWorldCase(
            shape: "Matroska written to a pipe (no duration)", file: "rw-pipe.mkv", time: .fraction(0.5)),
        RealWorldCase(shape: "two video streams (MP4, larger first)", file: "rw-two-video.mp4"),
        RealWorldCase(shape: "two video streams (Matroska, smaller first)", file: "rw-two-video-small-first.mkv"),
        RealWorldCase(
            shape: "file name that is not UTF-8", file: "baseline-h264.mp4", nonUTF8Name: true),
    ]

    static let formats: [RealWorldCase] = [
        RealWorldCase(shape: "odd size 321x241, H.264 4:4:4", file: "rw-odd-444.mp4"),
        RealWorldCase(
            shape: "odd size 321x241, H.264 4:4:4", file: "rw-odd-444.mp4", box: PixelSize(width: 99, height: 99)),
        RealWorldCase(shape: "odd height 322x241, H.264 4:2:2 (Matroska)", file: "rw-odd-422.mkv", time: .seconds(0.5)),
        RealWorldCase(shape: "AV1 (libaom)", file: "rw-av1.mp4", time: .seconds(0.5), mode: .exact),
        RealWorldCase(shape: "MPEG-4 part 2 in MP4", file: "rw-mpeg4.mp4", box: box),
        RealWorldCase(shape: "VP8 (WebM)", file: "rw-vp8.webm", time: .seconds(0.5), mode: .exact),
        RealWorldCase(shape: "MJPEG (AVI)", file: "rw-mjpeg.avi", time: .seconds(0.2)),
        RealWorldCase(shape: "animated GIF", file: "rw-animated.gif", time: .seconds(0.5), mode: .exact),
    ]
}

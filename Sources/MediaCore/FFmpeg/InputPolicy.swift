/// What FFmpeg may open while it reads one input: the rule every input of the package is opened under.
///
/// ``selfContained`` (the default everywhere) is for files nobody vouches for, such as users' uploads: FFmpeg opens the
/// named file and nothing else. Only demuxers that read one self-contained file are allowed (``allowedDemuxers``: MP4,
/// Matroska, AVI, MPEG-TS and the other media containers, raw video streams, single pictures, audio files with cover
/// art), so a playlist (HLS), a manifest (DASH, IMF), a concat script, a session description (SDP), a subtitle or
/// metadata file, or a text file FFmpeg would draw as a picture is refused before its header is read, whatever the
/// file's name; an image's name is never expanded as a sequence pattern (`pattern_type` none); and FFmpeg's `io_open`
/// refuses every nested open of any protocol, so even an allowed demuxer cannot reach a second file.
///
/// ``trustedPlaylists`` is the opt-in for files the caller trusts: any demuxer, and nested opens of local regular files
/// (an HLS playlist's segments, a concat script's entries), still never a FIFO or device, and still no protocol but
/// `file`.
package struct InputPolicy: Sendable, Hashable {
    /// Whether the input may be a playlist, manifest or script that makes FFmpeg open other local files.
    package var opensOtherFiles: Bool

    package init(opensOtherFiles: Bool) {
        self.opensOtherFiles = opensOtherFiles
    }

    /// Only the named file is read; only self-contained demuxers.
    package static let selfContained = InputPolicy(opensOtherFiles: false)
    /// Playlists and scripts may open other local regular files.
    package static let trustedPlaylists = InputPolicy(opensOtherFiles: true)

    /// The demuxers (FFmpeg's short names) ``selfContained`` allows: each reads one file and opens nothing else.
    package static let allowedDemuxers: [String] = [
        // Media containers.
        "mov", "mp4", "matroska", "webm", "avi", "mpegts", "mpegtsraw", "mpeg", "mpegvideo", "asf", "flv", "live_flv",
        "ogg", "nut", "mxf", "gxf", "dv", "rm", "wtv", "nsv", "nuv", "smjpeg", "mpjpeg", "ivf", "obu", "swf",
        "yuv4mpegpipe",
        // Raw video streams.
        "h264", "hevc", "m4v", "h261", "h263", "vc1", "cavsvideo", "dirac", "mjpeg", "dnxhd", "av1", "avs2", "avs3",
        // Single pictures (image2 with `pattern_type` none reads the one file named).
        "image2", "png_pipe", "jpeg_pipe", "jpegls_pipe", "jpegxl_pipe", "bmp_pipe", "webp_pipe", "gif", "gif_pipe",
        "apng", "tiff_pipe", "psd_pipe", "qoi_pipe", "dpx_pipe", "exr_pipe", "j2k_pipe", "pam_pipe", "pbm_pipe",
        "pgm_pipe", "ppm_pipe", "pgmyuv_pipe", "sgi_pipe", "sunrast_pipe", "xwd_pipe", "pcx_pipe", "dds_pipe",
        "phm_pipe", "pfm_pipe",
        // Audio files (a cover from their attached picture).
        "mp3", "aac", "flac", "wav", "w64", "aiff", "caf", "ape", "wv", "tta", "tak", "dsf", "oma", "mpc", "mpc8",
        "ac3",
        "eac3", "dts", "truehd", "mlp", "amr", "au",
    ]

    /// ``allowedDemuxers`` as FFmpeg's `format_whitelist` option reads it.
    static let formatWhitelist = allowedDemuxers.joined(separator: ",")

    /// What a file FFmpeg's probe takes for `demuxer` is when that demuxer reads no video or picture ("a subtitle file
    /// (srt)", "a text file"); nil for any other demuxer. A folder walk skips such files (and ``selfContained`` refuses
    /// them when they are named).
    package static func notVideo(demuxer: String) -> String? {
        switch demuxer {
        case "tty", "bin", "xbin", "adf", "idf": "a text file"
        case "ffmetadata": "an FFmpeg metadata file"
        case "sbg": "an sbg synthesizer script"
        case _ where subtitleDemuxers.contains(demuxer): "a subtitle file (\(demuxer))"
        default: nil
        }
    }

    /// The demuxers of subtitle files.
    private static let subtitleDemuxers: Set<String> = [
        "srt", "ass", "webvtt", "microdvd", "subviewer", "subviewer1", "sami", "mpl2", "mpsub", "pjs", "realtext",
        "stl",
        "vplayer", "jacosub", "lrc", "aqtitle", "scc", "tedcaptions", "mcc", "vobsub", "sup", "dvbsub", "dvbtxt",
    ]

    /// Why ``selfContained`` refuses an input FFmpeg's probe takes for `demuxer` (a short name, or a comma list such as
    /// "mov,mp4,m4a"): one clause naming what it was, for an error's reason.
    package static func refusal(ofDemuxer demuxer: String?) -> String {
        guard let demuxer else {
            return "not a self-contained media file: refused, covers read only one file"
        }
        switch demuxer {
        case "hls", "applehttp": return "an HLS playlist: refused, it would open other files"
        case "dash", "webm_dash_manifest": return "a DASH manifest: refused, it would open other files"
        case "concat": return "an ffconcat script: refused, it would open other files"
        case "imf": return "an IMF composition playlist: refused, it would open other files"
        case "sdp", "rtsp", "rtp", "sap": return "a session description (\(demuxer)): refused, it would open streams"
        case "tty", "bin", "xbin", "adf", "idf":
            return "a text file: refused, FFmpeg would draw its text as a picture"
        case "ffmetadata": return "an FFmpeg metadata file: refused, not a video"
        case "svg_pipe": return "an SVG image: refused, it may load other files"
        case "sbg": return "an sbg synthesizer script: refused, not a video"
        case _ where subtitleDemuxers.contains(demuxer):
            return "a subtitle file (\(demuxer)): refused, not a video"
        default:
            return "a '\(demuxer)' input: refused, not one of the self-contained media formats covers read"
        }
    }

    /// The reason for an input whose demuxer tried to open another resource (`url`) while ``selfContained`` applied.
    static func nestedOpenRefusal(_ url: String) -> String {
        "it tried to open another file (\(url)): refused, only the file named is read"
    }
}

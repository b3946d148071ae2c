import Foundation
import MediaCore

/// What a media file is, as far as a cover needs to know: its container, its length, and the
/// video stream a cover would be taken from.
///
/// ```swift
/// let media = try MediaDescription(contentsOf: URL(filePath: "take.mp4"))
/// print(media.codecName, media.frameSize, media.rotation)   // h264 1920x1080 90
/// print(media.displaySize)                                    // 1080x1920
/// ```
///
/// The video stream is the one FFmpeg's `av_find_best_stream` picks among the decodable video
/// streams (normally the first or largest). A cover picture attached to an audio file counts
/// as a video stream; ``isAttachedPicture`` says so.
public struct MediaDescription: Sendable, Hashable {
    /// FFmpeg's short name for the container format: "mov,mp4,m4a,3gp,3g2,mj2" (MP4 and
    /// QuickTime), "matroska,webm", "avi", "mpegts".
    public var containerFormat: String
    /// The length in seconds as the container states it, or nil when it does not.
    public var duration: Double?
    /// The timestamp of the first frame in seconds, or nil when the container does not say.
    /// Not always zero: MPEG-TS streams commonly start at 1.4 s or later.
    public var startTime: Double?
    /// The position of the described video stream among the file's streams.
    public var videoStreamIndex: Int
    /// FFmpeg's short name for the video codec: "h264", "hevc", "vp9", "mpeg4", ...
    public var codecName: String
    /// FFmpeg's name for the decoded pixel format ("yuv420p", "yuv420p10le"), when known.
    public var pixelFormatName: String?
    /// Bits per colour component of the decoded pixels (8, 10, 12), when known.
    public var bitsPerComponent: Int?
    /// Width and height of the decoded frames in stored pixels, before the pixel aspect ratio
    /// and the rotation are applied.
    public var frameSize: PixelSize
    /// The shape of one stored pixel (width/height): 1/1 for square pixels, 4/3 for a 240-pixel
    /// wide frame meant to be shown 320 wide. 1/1 when the file does not say.
    public var pixelAspectRatio: Rational
    /// Clockwise degrees to turn a decoded frame so it shows upright: 0, 90, 180 or 270.
    ///
    /// Read from the stream's display matrix. FFmpeg reports that matrix's angle
    /// counterclockwise in [-180, 180] (what `ffprobe` prints as `rotation`); this is the same
    /// turn expressed clockwise and rounded to the nearest quarter turn: FFmpeg's -90 is 90
    /// here, its 90 is 270, its 180 or -180 is 180. A phone recording held upright is
    /// typically 90. With ``isMirrored`` the picture is mirrored first, then turned.
    ///
    /// The whole matrix is read, as the `ffmpeg` command's autorotate reads it, so all eight
    /// orientations come out as that command shows them: QuickTime's Flip Horizontal (FFmpeg's
    /// angle -180 with a mirror) is `rotation` 0 and mirrored, a vertical flip is 180 and mirrored.
    public var rotation: Int
    /// Whether the display matrix mirrors the picture left to right before ``rotation`` turns it
    /// (QuickTime's Flip Horizontal and Flip Vertical write mirroring matrices).
    public var isMirrored: Bool
    /// How the video's light levels are coded: standard dynamic range, or HDR (PQ, HLG). Covers
    /// of HDR video are tone-mapped to standard-range BT.709.
    public var dynamicRange: DynamicRange
    /// Frames per second (the stream's average rate, else FFmpeg's guess of its base rate), or
    /// nil when unknown (a single attached picture, some streams without timing).
    public var frameRate: Rational?
    /// Whether the video stream is a still picture attached to the file (cover art) rather
    /// than a moving picture.
    public var isAttachedPicture: Bool

    /// The size a frame shows at: ``frameSize`` stretched by ``pixelAspectRatio`` (widths scale,
    /// heights stay, as FFmpeg does) and then turned by ``rotation``.
    public var displaySize: PixelSize {
        var width = frameSize.width
        if pixelAspectRatio.numerator > 0, pixelAspectRatio.denominator > 0,
            pixelAspectRatio.numerator != pixelAspectRatio.denominator
        {
            width = Int((Double(width) * pixelAspectRatio.doubleValue).rounded())
        }
        let upright = PixelSize(width: width, height: frameSize.height)
        return rotation % 180 == 0 ? upright : PixelSize(width: upright.height, height: upright.width)
    }

    /// Opens the file at `url` and describes it and its best video stream.
    ///
    /// Safe to call from any thread or task; each call opens the file on its own and closes it
    /// before returning. FFmpeg's logging is silenced for the process on first use.
    ///
    /// - Throws: ``ThumbnailError`` with kind
    ///   `.invalidArgument` (not a file URL),
    ///   `.fileNotFound`,
    ///   `.notReadable`,
    ///   `.notAMediaFile` (empty, a directory, a FIFO or device, contents no demuxer recognises, an MP4 cut short
    ///   before its index),
    ///   `.noVideoStream` (audio only),
    ///   `.unsupportedCodec` (video this FFmpeg cannot decode),
    ///   `.decodeFailed` (a video stream whose frame size cannot be determined).
    public init(contentsOf url: URL) throws(ThumbnailError) {
        let input = try MediaInput(contentsOf: url)
        self.init(input)
    }

    /// Describes a media file held in memory (read through a custom I/O context; nothing in the
    /// data can make FFmpeg open a file or URL). `name` stands for it in error reasons.
    ///
    /// - Throws: ``ThumbnailError`` with kind `.notAMediaFile` (empty or unrecognised data),
    ///   `.noVideoStream`, `.unsupportedCodec`, `.decodeFailed`.
    public init(data: Data, name: String = "data") throws(ThumbnailError) {
        let input = try MediaInput(bytes: data, name: name)
        self.init(input)
    }

    init(_ input: MediaInput) {
        let video = input.video
        containerFormat = input.format.formatName
        duration = input.format.duration
        startTime = input.format.startTime
        videoStreamIndex = video.index
        codecName = video.codecName
        pixelFormatName = video.pixelFormatName
        bitsPerComponent = video.bitsPerComponent
        frameSize = PixelSize(width: video.width, height: video.height)
        pixelAspectRatio = video.sampleAspectRatio ?? Rational(numerator: 1, denominator: 1)
        rotation = video.orientation.rotation
        isMirrored = video.orientation.isMirrored
        dynamicRange = video.dynamicRange
        frameRate = video.frameRate
        isAttachedPicture = video.isAttachedPicture
    }

    /// FFmpeg's counterclockwise display angle as clockwise degrees, rounded to 0, 90, 180, 270.
    static func clockwiseQuarterTurns(fromCounterclockwise degrees: Double) -> Int {
        Orientation.clockwiseQuarterTurns(fromCounterclockwise: degrees)
    }
}

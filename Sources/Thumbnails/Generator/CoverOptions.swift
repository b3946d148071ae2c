/// How to take a cover from a video: which frame, at what size, in which pixel layout.
///
/// The defaults give the fastest useful cover: the keyframe at or before the start (the first
/// frame), at its natural display size, rotated upright, as RGB.
///
/// ```swift
/// var options = CoverOptions(maximumSize: PixelSize(width: 320, height: 320))
/// options.time = .fraction(0.5)          // the middle of the video
/// options.toleranceBefore = 0            // the exact frame shown at that time
/// options.toleranceAfter = 0
/// options.skipsDarkFrames = true         // get past a black opening
/// ```
public struct CoverOptions: Sendable, Hashable {
    /// The largest width and height of the cover, in pixels of the upright, displayed picture.
    ///
    /// The picture is scaled to fit inside (aspect fit, the pixel aspect ratio honoured), never
    /// enlarged. Zero means "no limit" for that dimension; `PixelSize/zero` gives the natural
    /// display size (the stored size with the pixel aspect ratio applied, then rotated).
    public var maximumSize: PixelSize
    /// Whether to turn the picture upright by the stream's display matrix (90, 180 or 270
    /// degrees), as players show it. On by default.
    public var appliesRotation: Bool
    /// The requested time.
    public var time: CoverTime
    /// How much earlier than ``time`` the frame may be, in seconds. `.infinity` (the default,
    /// with ``toleranceAfter`` also infinite) means keyframe mode: the keyframe at or before
    /// the time, which needs a single frame decoded.
    public var toleranceBefore: Double
    /// How much later than ``time`` the frame may be, in seconds: a keyframe that close after
    /// ``time`` is taken (decoded alone) when no keyframe is within ``toleranceBefore`` before
    /// it, sparing a decode forward. Zero for both tolerances means the exact frame: the one
    /// shown at ``time``.
    public var toleranceAfter: Double
    /// Whether to step past dark or flat frames (a black fade-in, a blank slate): when the
    /// chosen frame is almost black or almost uniform, the next keyframes are tried, up to
    /// ``darkFrameLimit`` of them, and the first that is not is taken (else the liveliest one).
    public var skipsDarkFrames: Bool
    /// The most keyframes ``skipsDarkFrames`` tries after the chosen frame.
    public var darkFrameLimit: Int
    /// The layout of `CoverImage.pixels`.
    public var pixelFormat: CoverPixelFormat
    /// Whether the input may be a playlist or script that opens other local files. Off by default: then FFmpeg reads
    /// the file named and nothing else, and an HLS playlist, a DASH or IMF manifest, an ffconcat script, an SDP file,
    /// a subtitle or text file is refused (``ThumbnailError/Kind-swift.enum/refused``), whatever its name, as is any
    /// input whose demuxer tries to open another file (see "Untrusted input" in Docs/Thumbnails.md).
    ///
    /// Turn it on only for files you trust: an HLS playlist (`.m3u8`), a DASH manifest or a concat script then gives
    /// the cover of the local files it names, which may be any file this process can read (never a FIFO or a device,
    /// and never a network URL). canvas-thumb's `--allow-playlists`.
    public var allowsPlaylists: Bool

    /// Options with the given values; every argument has the fast default.
    public init(
        maximumSize: PixelSize = .zero,
        appliesRotation: Bool = true,
        time: CoverTime = .seconds(0),
        toleranceBefore: Double = .infinity,
        toleranceAfter: Double = .infinity,
        skipsDarkFrames: Bool = false,
        darkFrameLimit: Int = 10,
        pixelFormat: CoverPixelFormat = .rgb,
        allowsPlaylists: Bool = false
    ) {
        self.maximumSize = maximumSize
        self.appliesRotation = appliesRotation
        self.time = time
        self.toleranceBefore = toleranceBefore
        self.toleranceAfter = toleranceAfter
        self.skipsDarkFrames = skipsDarkFrames
        self.darkFrameLimit = darkFrameLimit
        self.pixelFormat = pixelFormat
        self.allowsPlaylists = allowsPlaylists
    }

    /// Whether this is keyframe mode (both tolerances infinite): the keyframe at or before the
    /// requested time, one frame decoded.
    public var isKeyframeMode: Bool { toleranceBefore == .infinity && toleranceAfter == .infinity }

    /// Whether both tolerances are zero: the frame shown at the requested time.
    public var isExact: Bool { toleranceBefore == 0 && toleranceAfter == 0 }

    /// Checks the options as every call of the library does before anything is queued or opened (for a caller that
    /// refuses bad options once, before many covers: a batch's worker).
    ///
    /// - Throws: ``ThumbnailError`` `.invalidArgument` naming the value: a negative size, a time or tolerance that is
    ///   negative or NaN, a fraction outside 0...1, a negative dark-frame limit.
    public func validate() throws(ThumbnailError) {
        _ = try ValidatedCoverOptions(self)
    }

    /// Sets both tolerances to zero (the exact frame) and returns the options.
    public func exact() -> CoverOptions {
        var copy = self
        copy.toleranceBefore = 0
        copy.toleranceAfter = 0
        return copy
    }
}

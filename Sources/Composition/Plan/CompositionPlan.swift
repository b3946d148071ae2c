import Foundation
import Pixels

/// What to compose: the output picture (size, frame rate, background), how it is encoded, and the takes, each with
/// its rectangle, scaling, stacking order, place on the board's timeline, gain and pan.
///
/// A plan is a value: the same plan composes the same video on any machine, so a service can keep plans as files
/// (``CompositionPlan/init(json:relativeTo:)``) and shard them. ``validated()`` checks it before any file is opened.
public struct CompositionPlan: Sendable, Hashable {
    /// How a take's picture fills its rectangle.
    public enum Scaling: String, Sendable, Hashable, CaseIterable, Codable {
        /// The whole picture, as large as fits, centred; the rest of the rectangle shows the background
        /// (letterbox or pillarbox).
        case fit
        /// The rectangle is covered, the picture centred and cropped to it.
        case fill
    }

    /// One take: its video file (or the files of its segments, in order) and where and how it plays in the composed
    /// video.
    public struct Take: Sendable, Hashable {
        /// The take's files, its segments in the order they play, back to back (one file for a take recorded in one
        /// go). Each is any video, audio or video-with-audio file FFmpeg reads; the cover service's input rules
        /// apply. ``CompositionPlan/validated()`` refuses an empty list and more than
        /// ``CompositionPlan/maximumSegments``.
        public var segments: [URL]
        /// Its rectangle in the output.
        public var region: NormalizedRect
        /// Fit (letterboxed on the background) or fill (cropped).
        public var scaling: Scaling
        /// Stacking order: a take with a larger `zIndex` is drawn over one with a smaller; equal values keep plan
        /// order (later on top).
        public var zIndex: Int
        /// Where the take's first frame falls on the board's timeline, in seconds; may be negative (the take began
        /// before the timeline's origin).
        public var start: Double
        /// The factor its samples are multiplied by in the mix (1 leaves them as recorded, 0 silences the take).
        public var gain: Double
        /// Its place between the left (-1) and right (+1) speaker, 0 in the centre; constant power (see
        /// ``AudioMix``).
        public var pan: Double
        /// The canvas it comes from, which errors name; nil names it by its index in the plan.
        public var canvasIndex: Int?

        /// A take of one `file` in `region`, fitted, starting at timeline 0, at its recorded level, centred.
        public init(
            file: URL, region: NormalizedRect, scaling: Scaling = .fit, zIndex: Int = 0, start: Double = 0,
            gain: Double = 1, pan: Double = 0, canvasIndex: Int? = nil
        ) {
            self.init(
                segments: [file], region: region, scaling: scaling, zIndex: zIndex, start: start, gain: gain, pan: pan,
                canvasIndex: canvasIndex)
        }

        /// A take of `segments` (its files, in the order they play) in `region`, fitted, starting at timeline 0, at
        /// its recorded level, centred.
        public init(
            segments: [URL], region: NormalizedRect, scaling: Scaling = .fit, zIndex: Int = 0, start: Double = 0,
            gain: Double = 1, pan: Double = 0, canvasIndex: Int? = nil
        ) {
            self.canvasIndex = canvasIndex
            self.segments = segments
            self.region = region
            self.scaling = scaling
            self.zIndex = zIndex
            self.start = start
            self.gain = gain
            self.pan = pan
        }

        /// The take's first file (its only one, for a take recorded in one go). Setting it makes the take that one
        /// file. - Precondition: the take has a segment (every validated take has).
        public var file: URL {
            get { segments[0] }
            set { segments = [newValue] }
        }
    }

    /// The H.264 encoder's settings (libx264, High profile, 4:2:0).
    public struct VideoSettings: Sendable, Hashable {
        /// libx264's constant rate factor, 0 (lossless) to 51; 23 is libx264's default.
        public var constantRateFactor: Int
        /// libx264's preset, `ultrafast` ... `placebo`.
        public var preset: String

        /// The presets libx264 accepts.
        public static let presets = [
            "ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo",
        ]

        /// CRF 23, `veryfast`.
        public init(constantRateFactor: Int = 23, preset: String = "veryfast") {
            self.constantRateFactor = constantRateFactor
            self.preset = preset
        }
    }

    /// The AAC encoder's settings (stereo, 48 kHz).
    public struct AudioSettings: Sendable, Hashable {
        /// Bits per second of the AAC stream.
        public var bitRate: Int

        /// 128 kbit/s.
        public init(bitRate: Int = 128_000) {
            self.bitRate = bitRate
        }

        /// The output's sample rate: 48 kHz.
        public static let sampleRate = 48_000
    }

    /// The output's size in pixels; both sides even (4:2:0), at least 2 and at most 16,384.
    public var size: PixelSize
    /// The output's frame rate.
    public var frameRate: FrameRate
    /// What shows where no take covers the output.
    public var background: RGBColor
    /// The takes, in canvas order: errors name a take by its index here (its canvas index for a board's plan).
    public var takes: [Take]
    /// The H.264 settings.
    public var video: VideoSettings
    /// The AAC settings.
    public var audio: AudioSettings
    /// The music mixed under the takes, if any.
    public var soundtrack: Soundtrack?
    /// The platform the output is made for (its size, frame rates, encoder limits and length; see
    /// ``PublishingTarget``), or nil for none. A target sets the AAC bit rate itself: ``audio`` is then not used.
    public var target: PublishingTarget? = nil

    /// A plan of `takes` into a `size` picture at `frameRate`, on `background`.
    public init(
        size: PixelSize, frameRate: FrameRate = FrameRate(frames: 30), background: RGBColor = .black,
        takes: [Take], video: VideoSettings = VideoSettings(), audio: AudioSettings = AudioSettings()
    ) {
        self.size = size
        self.frameRate = frameRate
        self.background = background
        self.takes = takes
        self.video = video
        self.audio = audio
    }

    /// A plan that lays `files` out as a grid: file i in tile i of `grid` (column i % columns, row i / columns),
    /// all scaled the same way; starts, gains and pans at their defaults.
    public init(
        files: [URL], grid: GridLayout, size: PixelSize, scaling: Scaling = .fit,
        frameRate: FrameRate = FrameRate(frames: 30)
    ) {
        self.init(
            size: size, frameRate: frameRate,
            takes: files.enumerated().map { index, file in
                Take(file: file, region: grid.region(ofTile: index), scaling: scaling)
            })
    }
}

extension RGBColor {
    /// Black, the default background.
    public static let black = RGBColor(red: 0, green: 0, blue: 0)
}

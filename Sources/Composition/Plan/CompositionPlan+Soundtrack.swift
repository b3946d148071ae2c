import Foundation

extension CompositionPlan {
    /// Music mixed under a plan's takes: a sound (or video) file, the point of it that falls at the board's timeline
    /// time 0, a gain and whether it repeats.
    ///
    /// It is mixed by the takes' rule (``AudioMix``): its samples times ``gain`` are added to the takes' sum, in the
    /// centre (a stereo file unchanged, a mono one at -3 dB on each side), and the knee limits the total. It never
    /// lengthens the video: what plays after the output's end is cut. Its picture, if the file has one, is not shown.
    public struct Soundtrack: Sendable, Hashable {
        /// The file whose sound plays.
        public var file: URL
        /// The point of the file, in seconds, that plays at the board's timeline time 0: 12 starts the music 12 s into
        /// the file; -2 starts the file's beginning 2 s after timeline time 0 (silence before it). Within
        /// ±``CompositionPlan/maximumDuration``.
        public var start: Double
        /// The factor its samples are multiplied by in the mix (0 silences it, 1 leaves it as recorded; 0-1000).
        public var gain: Double
        /// Whether the file starts again from its beginning each time it ends, to the output's end (otherwise it plays
        /// once).
        public var loops: Bool

        /// Music from `file`, its start at timeline time 0 unless `start` says otherwise, at its recorded level, once.
        public init(file: URL, start: Double = 0, gain: Double = 1, loops: Bool = false) {
            self.file = file
            self.start = start
            self.gain = gain
            self.loops = loops
        }
    }
}

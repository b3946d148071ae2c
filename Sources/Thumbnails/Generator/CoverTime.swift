/// A point in a video to take a cover from.
public enum CoverTime: Sendable, Hashable {
    /// Seconds from the start of the video (its first frame is 0, whatever timestamp the file
    /// gives it). A time at or past the end gives the last frame.
    case seconds(Double)
    /// A fraction of the video's duration, 0...1 (0.5 is the middle; 1 is the last frame).
    case fraction(Double)
}

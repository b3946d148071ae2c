import MediaCore

/// ``CoverOptions`` that passed the checks, the only form of options below the public entry
/// points.
///
/// Every public API (the blocking, async and completion-handler calls, the sequences,
/// ``CoverService``, `CoverBatch`, `CoverWorker`) turns its ``CoverOptions`` into one of
/// these first, so a bad value is refused with its one-line `.invalidArgument` before anything is
/// queued or opened, and the scheduler, the session and the frame converter cannot be handed
/// options nobody checked: they take this type, which only ``init(_:)`` makes.
package struct ValidatedCoverOptions: Sendable, Hashable {
    /// The options as given (checked).
    package let options: CoverOptions

    /// Checks `options`.
    ///
    /// - Throws: ``ThumbnailError`` `.invalidArgument` naming the value: a negative size, a time
    ///   or tolerance that is negative or NaN, a fraction outside 0...1, a negative dark-frame
    ///   limit.
    package init(_ options: CoverOptions) throws(ThumbnailError) {
        guard options.maximumSize.width >= 0, options.maximumSize.height >= 0 else {
            throw ThumbnailError(.invalidArgument, reason: "maximum size \(options.maximumSize) is negative")
        }
        _ = try ValidatedCoverTime(options.time)
        for (name, tolerance) in [("before", options.toleranceBefore), ("after", options.toleranceAfter)] {
            guard !tolerance.isNaN, tolerance >= 0 else {
                throw ThumbnailError(.invalidArgument, reason: "tolerance \(name) \(tolerance) s is not >= 0")
            }
        }
        guard options.darkFrameLimit >= 0 else {
            throw ThumbnailError(.invalidArgument, reason: "dark frame limit \(options.darkFrameLimit) is negative")
        }
        self.options = options
    }

    /// The requested time (checked with the options).
    package var time: ValidatedCoverTime { ValidatedCoverTime(checked: options.time) }
    package var maximumSize: PixelSize { options.maximumSize }
    package var appliesRotation: Bool { options.appliesRotation }
    /// What FFmpeg may open besides the input (``CoverOptions/allowsPlaylists``).
    package var inputPolicy: InputPolicy { options.allowsPlaylists ? .trustedPlaylists : .selfContained }
    package var toleranceBefore: Double { options.toleranceBefore }
    package var toleranceAfter: Double { options.toleranceAfter }
    package var skipsDarkFrames: Bool { options.skipsDarkFrames }
    package var darkFrameLimit: Int { options.darkFrameLimit }
    package var pixelFormat: CoverPixelFormat { options.pixelFormat }
    package var isKeyframeMode: Bool { options.isKeyframeMode }
}

/// A ``CoverTime`` that passed the checks: what a session takes a cover at.
package struct ValidatedCoverTime: Sendable, Hashable {
    package let time: CoverTime

    /// Checks `time`.
    ///
    /// - Throws: ``ThumbnailError`` `.invalidArgument`: seconds that are negative, NaN or
    ///   infinite, a fraction outside 0...1.
    package init(_ time: CoverTime) throws(ThumbnailError) {
        switch time {
        case .seconds(let seconds):
            guard seconds.isFinite, seconds >= 0 else {
                throw ThumbnailError(.invalidArgument, reason: "time \(seconds) s is not a time in the video")
            }
        case .fraction(let fraction):
            guard fraction.isFinite, (0...1).contains(fraction) else {
                throw ThumbnailError(.invalidArgument, reason: "fraction \(fraction) is outside 0...1")
            }
        }
        self.time = time
    }

    /// A time already checked (a ``ValidatedCoverOptions``'s).
    fileprivate init(checked time: CoverTime) {
        self.time = time
    }
}

import MediaCore

extension CoverImage {
    /// The cover of a decoded frame: MediaCore's upright picture (scaled to fit, deinterlaced,
    /// tone-mapped, turned by `orientation` when the options apply it), with the time and
    /// warnings of the frame chosen.
    ///
    /// Throws ``ThumbnailError/Kind-swift.enum/decodeFailed`` naming `name` when the cover would be
    /// larger than `FrameConverter.maximumSide` a side or `FrameConverter.maximumPixels` in all,
    /// or when FFmpeg cannot convert the frame.
    static func make(
        from frame: Frame,
        pixelAspectRatio: Rational?,
        orientation: Orientation,
        options: ValidatedCoverOptions,
        actualTime: Double,
        warnings: [String],
        name: String
    ) throws(ThumbnailError) -> CoverImage {
        let picture: UprightPicture
        do {
            picture = try FrameConverter.makePicture(
                from: frame, pixelAspectRatio: pixelAspectRatio,
                orientation: options.appliesRotation ? orientation : .upright,
                maximum: options.maximumSize, layout: options.pixelFormat == .rgba ? .rgba : .rgb)
        } catch {
            switch error {
            case .tooLarge(let size):
                throw ThumbnailError(
                    .decodeFailed,
                    reason: "\(name): a \(size) cover is larger than a cover can be "
                        + "(\(FrameConverter.maximumSide) pixels a side, \(FrameConverter.maximumPixels) pixels in all)"
                )
            case .conversionFailed(let stored, let scaled, let ffmpegError):
                throw ThumbnailError(
                    .decodeFailed, reason: "\(name): cannot convert a \(stored) frame to \(scaled)",
                    ffmpegError: ffmpegError)
            }
        }
        return CoverImage(
            unchecked: picture.width, height: picture.height, bytesPerRow: picture.bytesPerRow,
            pixelFormat: options.pixelFormat, pixels: picture.pixels, actualTime: actualTime,
            isKeyframe: frame.isKeyframe, warnings: warnings)
    }
}

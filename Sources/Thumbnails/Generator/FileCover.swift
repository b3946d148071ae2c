import Foundation

/// One file's outcome in ``CoverGenerator/covers(for:options:maximumConcurrency:)``.
public struct FileCover: Sendable {
    /// The position of ``url`` in the array given.
    public let index: Int
    /// The input.
    public let url: URL
    /// Its cover, or why there is none.
    public let result: Result<CoverImage, ThumbnailError>
}

import Foundation
import MediaCore

extension CoverImage {
    /// The cover encoded as a PNG or JPEG file's bytes.
    ///
    /// - Throws: ``ThumbnailError`` `.invalidArgument` for a JPEG quality outside 1...100,
    ///   `.encodeFailed` when FFmpeg's encoder fails (with its message).
    public func encoded(as format: CoverImageFormat) throws(ThumbnailError) -> Data {
        let bytes: [UInt8]
        do {
            switch format {
            case .png:
                bytes = try encodePNG()
            case .jpeg(let quality):
                guard (1...100).contains(quality) else {
                    throw ThumbnailError(.invalidArgument, reason: "JPEG quality \(quality) is outside 1...100")
                }
                bytes = try encodeJPEG(quality: quality)
            }
        } catch let error as FFmpegError {
            throw ThumbnailError(
                .encodeFailed, reason: "cannot encode a \(size) cover as \(format)", ffmpegError: error)
        } catch let error as ThumbnailError {
            throw error
        } catch {
            throw ThumbnailError(.encodeFailed, reason: "cannot encode a \(size) cover as \(format): \(error)")
        }
        return Data(bytes)
    }

    /// Encodes the cover and writes it to `url` atomically: the bytes go to a temporary file in
    /// the same folder, which is then renamed over `url`. On any failure `url` is left as it was
    /// (absent, or the previous file) and the temporary file is removed; an empty or partial
    /// file is never left behind. An existing file at `url` is replaced.
    ///
    /// - Throws: ``ThumbnailError`` `.invalidArgument` (not a file URL, a bad JPEG quality),
    ///   `.encodeFailed`, `.writeFailed` (no such folder, no permission, disk full).
    public func write(to url: URL, as format: CoverImageFormat) throws(ThumbnailError) {
        guard url.isFileURL else {
            throw ThumbnailError(.invalidArgument, reason: "\(url.absoluteString): not a file URL")
        }
        try write(toFileAt: FileSystemPath(url), as: format)
    }

    /// Encodes the cover and writes it to the file at `path` atomically, as
    /// ``write(to:as:)`` does, for a path held as bytes (a name that is not UTF-8).
    ///
    /// Links are never followed: a link at `path` is replaced by the cover (the file it points
    /// to is untouched), and the temporary file is created only where nothing exists. A device,
    /// FIFO, socket or folder at `path` is never replaced. The temporary file is removed when the
    /// process exits before the cover is complete; one left by a writer that was killed (hidden,
    /// `.NAME.writing-PID-XXXXXX`) is removed by the next `CoverBatch` run into that folder.
    ///
    /// - Throws: ``ThumbnailError`` `.invalidArgument` (a path naming a folder, a bad JPEG
    ///   quality), `.encodeFailed`, `.writeFailed` (no such folder, no permission, disk full, a
    ///   device, FIFO, socket or folder at `path`), with a one-line reason naming `path`.
    public func write(toFileAt path: FileSystemPath, as format: CoverImageFormat) throws(ThumbnailError) {
        try CoverFile(at: path).write(self, as: format)
    }

    private var layout: PictureLayout { pixelFormat == .rgba ? .rgba : .rgb }

    private func encodePNG() throws(FFmpegError) -> [UInt8] {
        try PictureEncoder.png(pixels, width: width, height: height, bytesPerRow: bytesPerRow, layout: layout)
    }

    private func encodeJPEG(quality: Int) throws(FFmpegError) -> [UInt8] {
        try PictureEncoder.jpeg(
            pixels, width: width, height: height, bytesPerRow: bytesPerRow, layout: layout, quality: quality)
    }
}

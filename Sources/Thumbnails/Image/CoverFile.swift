import Foundation
import MediaCore

/// A cover's file, started before the cover is made and completed when it is written: readers of the path see the
/// file that was there before or the complete cover, never a part of one.
///
/// Making one creates a hidden temporary file beside `path` (`.NAME.writing-PID-XXXXXX`, created only where nothing
/// exists, so a link planted there is never followed); ``write(_:as:)`` encodes the cover into it and renames it over
/// `path`. A file that is not written (an error, the value freed, the process exiting or ended by a termination
/// signal in the package's tools) has its temporary file removed; one left by a writer that was killed is removed by
/// the next `CoverBatch` run into that folder.
///
/// Never replaced: a device, FIFO, socket or folder at `path`, and the files given as `inputs`. A link at `path` is
/// itself replaced, never the file it points to.
///
/// Deliberately not `Sendable`: one job writes its cover.
public final class CoverFile {
    private let output: AtomicOutput
    /// Where the cover goes.
    public var path: FileSystemPath { output.destination }

    /// Starts the cover file at `path`.
    ///
    /// - Parameters:
    ///   - path: where the cover goes; its temporary file is created beside it.
    ///   - inputs: files `path` must not be (the video the cover is made from): the same file under any name is
    ///     refused.
    /// - Throws: ``ThumbnailError`` `.invalidArgument` for a path naming a folder; `.writeFailed` for a folder,
    ///   device, FIFO or socket at `path`, one of `inputs`, or a temporary file that cannot be created (no such
    ///   folder, no permission), with a one-line reason naming `path`.
    public init(at path: FileSystemPath, neverReplacing inputs: [FileSystemPath] = []) throws(ThumbnailError) {
        do throws(OutputFailure) {
            output = try AtomicOutput(replacing: path, neverReplacing: inputs)
        } catch {
            throw ThumbnailError(error, writing: path)
        }
    }

    /// Encodes `cover` as `format` and writes it to ``path``, replacing what is there.
    ///
    /// - Throws: ``ThumbnailError`` `.invalidArgument` (a bad JPEG quality), `.encodeFailed`, `.writeFailed` (disk
    ///   full, a file-size limit, a device, FIFO or socket that appeared at the path), with a one-line reason naming
    ///   the path; the path is then left as it was and the temporary file removed.
    public func write(_ cover: CoverImage, as format: CoverImageFormat) throws(ThumbnailError) {
        let data: Data
        do throws(ThumbnailError) {
            data = try cover.encoded(as: format)
        } catch {
            output.discard()
            throw error
        }
        do throws(OutputFailure) {
            try output.write(data)
            try output.commit()
        } catch {
            throw ThumbnailError(error, writing: path)
        }
    }

    /// Removes the temporary file without writing anything; nothing once written.
    public func discard() {
        output.discard()
    }
}

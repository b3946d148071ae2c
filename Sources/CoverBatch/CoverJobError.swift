import MediaCore
import Thumbnails

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why a ``CoverJob`` wrote no cover: the cover service's error, or one that only a batch running its covers in worker
/// processes meets (the worker stopped after the time allowed, or ended without an answer).
///
/// ``reason`` is one line for people, naming the input; ``kind`` says what went wrong in terms a caller can act on.
public struct CoverJobError: Error, Sendable, Hashable {
    /// The classes of failure.
    public enum Kind: Sendable, Hashable {
        /// The cover could not be made or written: the cover service's kind (a missing or damaged file, a full
        /// disk, a cancellation, ...).
        case cover(ThumbnailError.Kind)
        /// Making the cover took longer than the time allowed (``CoverBatch/defaultTimeout``): a read that never
        /// returns (a playlist whose segment is a FIFO, a stalled network file system) or a decode stuck in a loop.
        /// The worker process making it was stopped.
        case timedOut
        /// The process making the cover ended without an answer: a signal (a crash inside FFmpeg on a hostile or
        /// damaged file) or an exit. A batch in worker processes and canvas-thumb survive it and report it.
        case crashed
    }

    /// What went wrong.
    public let kind: Kind
    /// One line naming the input and the cause.
    public let reason: String

    /// An error of `kind` with a one-line `reason` (line breaks are replaced by spaces).
    public init(_ kind: Kind, reason: String) {
        self.kind = kind
        self.reason = reason.split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    /// The cover service's `error`, as it is.
    public init(_ error: ThumbnailError) {
        self.init(.cover(error.kind), reason: error.reason)
    }

    /// The error of `input` when the process making its cover was ended by `signal` (a crash inside FFmpeg):
    /// `.crashed`, "INPUT: crashed while making its cover (signal 11: Segmentation fault)".
    package static func crashed(_ input: FileSystemPath, signal: Int32) -> CoverJobError {
        CoverJobError(.crashed, reason: "\(input.escaped): \(crashDescription(signal: signal))")
    }

    /// "crashed while making its cover (signal 11: Segmentation fault)".
    static func crashDescription(signal: Int32) -> String {
        let name = strsignal(signal).map { String(cString: $0) } ?? "signal \(signal)"
        return "crashed while making its cover (signal \(signal): \(name))"
    }

    /// The error of `input` when its cover took longer than `limit`: `.timedOut`, "INPUT: no cover within 30 s (a read
    /// or decode that never ends); stopped".
    package static func timedOut(_ input: FileSystemPath, after limit: Duration) -> CoverJobError {
        CoverJobError(
            .timedOut,
            reason:
                "\(input.escaped): no cover within \(secondsText(limit)) s (a read or decode that never ends); stopped")
    }

    /// `limit` in seconds, without a fraction when it has none ("30", "0.5").
    private static func secondsText(_ limit: Duration) -> String {
        let seconds = Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18
        return seconds == seconds.rounded() ? String(Int64(seconds)) : String(seconds)
    }
}

extension CoverJobError: CustomStringConvertible {
    /// The ``reason``.
    public var description: String { reason }
}

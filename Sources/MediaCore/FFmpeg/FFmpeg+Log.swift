internal import CFFmpeg
import Foundation
import Locking

/// FFmpeg's log, routed into errors instead of standard error.
///
/// FFmpeg often says more in its log than in its return code: `avformat_open_input` returns
/// "Invalid data found when processing input" while the MP4 demuxer logs "moov atom not found".
/// The process-wide callback installed by ``FFmpeg/prepare()`` drops every line, except that
/// error-level lines logged on a thread running ``FFmpeg/capturingLog(_:)`` are kept and attached
/// to the ``FFmpegError`` that call throws. Lines FFmpeg logs from its own worker threads (frame
/// threads of a decoder) are dropped.
extension FFmpeg {
    /// Runs `body`, whose FFmpeg calls happen on this thread, and attaches the error lines FFmpeg
    /// logged meanwhile to the error it throws.
    @discardableResult
    package static func capturingLog<Value>(_ body: () throws(FFmpegError) -> Value) throws(FFmpegError) -> Value {
        prepare()
        let collector = LogCollector()
        let result = LogCollector.$current.withValue(collector) {
            Result { () throws(FFmpegError) -> Value in try body() }
        }
        switch result {
        case .success(let value):
            return value
        case .failure(var error):
            error.loggedLines = collector.lines
            throw error
        }
    }

    /// Installs the log callback and sets the level to quiet (so code that asks FFmpeg's level
    /// before preparing a message skips the work). Called once, from ``prepare()``.
    package static func installLogCallback() {
        av_log_set_level(AV_LOG_QUIET)
        av_log_set_callback { context, level, format, arguments in
            guard level <= AV_LOG_ERROR, let format, let arguments = optional(arguments),
                let collector = LogCollector.current
            else { return }
            let capacity = 512
            let line = withUnsafeTemporaryAllocation(of: CChar.self, capacity: capacity) { buffer -> String in
                guard let base = buffer.baseAddress else { return "" }
                var printPrefix: Int32 = 0  // No "[mov,mp4,... @ 0x...]" prefix: addresses help nobody.
                guard av_log_format_line2(context, level, format, arguments, base, Int32(capacity), &printPrefix) >= 0
                else { return "" }
                return String(cString: base)
            }
            collector.append(line)
        }
    }
}

/// `va_list` arrives as `CVaListPointer?` on Linux and as `CVaListPointer` on Darwin; this
/// takes either and yields an optional.
private func optional<Wrapped>(_ value: Wrapped?) -> Wrapped? { value }

/// The error lines FFmpeg logged during one ``FFmpeg/capturingLog(_:)`` call.
package final class LogCollector: Sendable {
    /// The collector of the ``FFmpeg/capturingLog(_:)`` call running on this thread, if any.
    @TaskLocal package static var current: LogCollector?

    /// At most this many distinct lines are kept: enough to explain, short enough for one line.
    package static let limit = 4

    private let storage = LockedValue<[String]>([])

    /// The distinct lines in the order FFmpeg logged them, trimmed.
    package var lines: [String] { storage.withLock { $0 } }

    package func append(_ line: String) {
        let trimmed = line.split(whereSeparator: \.isNewline).joined(separator: " ")
            .trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return }
        storage.withLock { lines in
            if lines.count < Self.limit, !lines.contains(trimmed) { lines.append(trimmed) }
        }
    }
}

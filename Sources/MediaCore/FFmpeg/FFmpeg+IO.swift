internal import CFFmpeg
import Foundation

/// Inputs held in memory: a custom `AVIOContext` whose read and seek callbacks serve bytes from
/// a ``MemoryReader``.
extension FFmpeg {
    /// A custom I/O context: `AVIOContext *`, owned by a ``MemoryIO``.
    typealias IOContextPointer = UnsafeMutablePointer<AVIOContext>

    /// Bytes FFmpeg's I/O layer asks for at a time.
    private static let ioBufferSize = 32 * 1024

    /// Creates an I/O context reading from `reader`. The caller keeps `reader` alive for as long
    /// as the context exists and frees the context with ``freeIOContext(_:)``.
    static func makeIOContext(reading reader: MemoryReader) throws(FFmpegError) -> IOContextPointer {
        prepare()
        guard let buffer = av_malloc(ioBufferSize) else { throw .outOfMemory }
        let opaque = Unmanaged.passUnretained(reader).toOpaque()
        guard
            let context = avio_alloc_context(
                buffer.assumingMemoryBound(to: UInt8.self), Int32(ioBufferSize), 0, opaque,
                memoryRead, nil, memorySeek
            )
        else {
            av_free(buffer)
            throw .outOfMemory
        }
        return context
    }

    /// Frees an I/O context made by ``makeIOContext(reading:)`` and its buffer (which FFmpeg
    /// may have replaced, so it is read from the context).
    static func freeIOContext(_ context: IOContextPointer) {
        av_freep(&context.pointee.buffer)
        var context: IOContextPointer? = context
        avio_context_free(&context)
    }

    /// Opens an input that reads through `io` and reads its header. The caller owns the result
    /// (``closeInput(_:)``) and keeps `io` alive until it is closed.
    ///
    /// No protocol may be opened from inside the data: a playlist or reference file in memory
    /// cannot make FFmpeg open files or network URLs.
    ///
    /// Under ``InputPolicy/selfContained`` only ``InputPolicy/allowedDemuxers`` may read it, as for a file;
    /// `prefix` gives the first bytes to name a refused input by.
    static func openInput(
        io: IOContextPointer, interruption: Interruption? = nil, policy: InputPolicy, prefix: () -> [UInt8]
    ) throws(FFmpegError) -> FormatContextPointer {
        prepare()
        // The options first: a failure after the allocation below would leak the context.
        var options: OpaquePointer? = nil
        defer { av_dict_free(&options) }
        try check(av_dict_set(&options, "protocol_whitelist", "none", 0))
        try check(av_dict_set(&options, "max_streams", String(InputLimits.maximumStreams), 0))
        if !policy.opensOtherFiles {
            try check(av_dict_set(&options, "format_whitelist", InputPolicy.formatWhitelist, 0))
        }
        let allocated = try allocateInput(interruption: interruption, nestedOpens: .memory)
        allocated.pointee.pb = io
        var context: FormatContextPointer? = allocated
        // On failure avformat_open_input frees the context it was given (but not `io`).
        do {
            try capturingLog { () throws(FFmpegError) in
                try check(avformat_open_input(&context, "", nil, &options))
            }
        } catch {
            throw refusal(explaining: error, policy: policy, filename: FileSystemPath(unchecked: []), prefix: prefix)
        }
        guard let context else { throw .outOfMemory }
        return context
    }
}

/// The bytes of an in-memory input and a read position, served to FFmpeg by the callbacks below.
///
/// Deliberately not `Sendable`: one I/O context reads it, on the thread of the one cover job
/// that owns both.
package final class MemoryReader {
    private let bytes: Data
    private var position = 0

    package init(_ bytes: Data) {
        self.bytes = bytes
    }

    /// Copies up to `count` bytes into `buffer`; `AVERROR_EOF` at the end.
    package func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) -> Int32 {
        let available = bytes.count - position
        guard available > 0 else { return FFmpegError.endOfFile.code }
        let length = min(count, available)
        bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            buffer.update(from: base.advanced(by: position).assumingMemoryBound(to: UInt8.self), count: length)
        }
        position += length
        return Int32(length)
    }

    /// Moves the read position like `lseek`, or answers the size for `AVSEEK_SIZE`.
    package func seek(offset: Int64, whence: Int32) -> Int64 {
        let whence = whence & ~Int32(AVSEEK_FORCE)
        if whence & cffmpeg_seek_size() != 0 { return Int64(bytes.count) }
        let base: Int64
        switch whence {
        case SEEK_SET: base = 0
        case SEEK_CUR: base = Int64(position)
        case SEEK_END: base = Int64(bytes.count)
        default: return Int64(FFmpegError.invalidArgument.code)
        }
        let (target, overflow) = base.addingReportingOverflow(offset)
        guard !overflow, target >= 0 else { return Int64(FFmpegError.invalidArgument.code) }
        position = Int(min(target, Int64(bytes.count)))
        return target
    }
}

/// `read_packet` of the custom I/O context; `opaque` is an unretained ``MemoryReader``.
private func memoryRead(_ opaque: UnsafeMutableRawPointer?, _ buffer: UnsafeMutablePointer<UInt8>?, _ size: Int32)
    -> Int32
{
    guard let opaque, let buffer, size > 0 else { return FFmpegError.invalidArgument.code }
    return Unmanaged<MemoryReader>.fromOpaque(opaque).takeUnretainedValue().read(into: buffer, count: Int(size))
}

/// `seek` of the custom I/O context.
private func memorySeek(_ opaque: UnsafeMutableRawPointer?, _ offset: Int64, _ whence: Int32) -> Int64 {
    guard let opaque else { return Int64(FFmpegError.invalidArgument.code) }
    return Unmanaged<MemoryReader>.fromOpaque(opaque).takeUnretainedValue().seek(offset: offset, whence: whence)
}

/// The custom I/O context of an in-memory input and the bytes it reads; frees the context in
/// `deinit`. A ``FormatContext`` opened on it keeps it alive and is closed first.
package final class MemoryIO {
    package let reader: MemoryReader
    let pointer: FFmpeg.IOContextPointer
    private let lifetime = OwnerLifetime(of: MemoryIO.self)

    package init(_ bytes: Data) throws(FFmpegError) {
        reader = MemoryReader(bytes)
        pointer = try FFmpeg.makeIOContext(reading: reader)
    }

    deinit {
        FFmpeg.freeIOContext(pointer)
    }
}

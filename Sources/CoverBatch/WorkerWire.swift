import Foundation
import MediaCore
import Thumbnails

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The messages a batch and its worker processes exchange, and how they are laid out.
///
/// Each message is a 4-byte little-endian length and that many bytes. The batch sends a job (its
/// input and output paths, as bytes); the worker answers with its result: `S` and the cover's
/// width, height, actual time and warnings, or `F` and the error's kind and reason. Integers are
/// little-endian, a double is its IEEE bits, a string or a path its length and bytes.
enum WorkerWire {
    /// The largest message accepted: far above any real one (two paths, or a few warnings), so
    /// that a corrupt length cannot make a reader allocate without bound.
    static let maximumMessageBytes = 1 << 20

    static func encode(_ job: CoverJob) -> [UInt8] {
        var writer = Writer()
        writer.append(job.input.bytes)
        writer.append(job.output.bytes)
        return writer.bytes
    }

    static func decodeJob(_ message: [UInt8]) -> CoverJob? {
        var reader = Reader(message)
        guard let input = reader.field().flatMap(FileSystemPath.init(bytes:)),
            let output = reader.field().flatMap(FileSystemPath.init(bytes:)), reader.isAtEnd
        else { return nil }
        return CoverJob(input: input, output: output)
    }

    static func encode(_ result: Result<WrittenCover, ThumbnailError>) -> [UInt8] {
        var writer = Writer()
        switch result {
        case .success(let cover):
            writer.bytes.append(UInt8(ascii: "S"))
            writer.append(UInt64(bitPattern: Int64(cover.width)))
            writer.append(UInt64(bitPattern: Int64(cover.height)))
            writer.append(cover.actualTime.bitPattern)
            writer.append(UInt64(cover.warnings.count))
            for warning in cover.warnings { writer.append(Array(warning.utf8)) }
        case .failure(let error):
            writer.bytes.append(UInt8(ascii: "F"))
            writer.append(Array(error.kind.rawValue.utf8))
            writer.append(Array(error.reason.utf8))
        }
        return writer.bytes
    }

    static func decodeResult(_ message: [UInt8]) -> Result<WrittenCover, ThumbnailError>? {
        var reader = Reader(message)
        switch reader.byte() {
        case UInt8(ascii: "S"):
            guard let width = reader.integer(), let height = reader.integer(), let time = reader.word(),
                let count = reader.integer(), (0...1024).contains(count)
            else { return nil }
            var warnings: [String] = []
            for _ in 0..<count {
                guard let warning = reader.field() else { return nil }
                warnings.append(String(decoding: warning, as: UTF8.self))
            }
            guard reader.isAtEnd else { return nil }
            return .success(
                WrittenCover(width: width, height: height, actualTime: Double(bitPattern: time), warnings: warnings))
        case UInt8(ascii: "F"):
            guard let kind = reader.field(), let reason = reader.field(), reader.isAtEnd else { return nil }
            let errorKind = ThumbnailError.Kind(rawValue: String(decoding: kind, as: UTF8.self)) ?? .decodeFailed
            return .failure(ThumbnailError(errorKind, reason: String(decoding: reason, as: UTF8.self)))
        default:
            return nil
        }
    }

    struct Writer {
        var bytes: [UInt8] = []

        mutating func append(_ word: UInt64) {
            withUnsafeBytes(of: word.littleEndian) { bytes.append(contentsOf: $0) }
        }

        mutating func append(_ field: [UInt8]) {
            append(UInt64(field.count))
            bytes += field
        }
    }

    struct Reader {
        private let bytes: [UInt8]
        private var offset = 0

        init(_ bytes: [UInt8]) {
            self.bytes = bytes
        }

        var isAtEnd: Bool { offset == bytes.count }

        mutating func byte() -> UInt8? {
            guard offset < bytes.count else { return nil }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func word() -> UInt64? {
            guard bytes.count - offset >= 8 else { return nil }
            var word: UInt64 = 0
            for index in (0..<8).reversed() { word = word << 8 | UInt64(bytes[offset + index]) }
            offset += 8
            return word
        }

        mutating func integer() -> Int? {
            word().map { Int(truncatingIfNeeded: Int64(bitPattern: $0)) }
        }

        mutating func field() -> [UInt8]? {
            guard let count = word(), count <= UInt64(bytes.count - offset) else { return nil }
            defer { offset += Int(count) }
            return Array(bytes[offset..<(offset + Int(count))])
        }
    }
}

/// One end of a batch's socket to a worker: whole messages in, whole messages out.
///
/// Deliberately not `Sendable`: one thread (a batch lane, or the worker's only thread) owns it.
final class WorkerConnection {
    let descriptor: Int32
    private let ownsDescriptor: Bool

    init(descriptor: Int32, owns: Bool) {
        self.descriptor = descriptor
        ownsDescriptor = owns
    }

    deinit {
        if ownsDescriptor { _ = close(descriptor) }
    }

    /// Sends one message; false when the other end is gone. Never raises `SIGPIPE`.
    func sendMessage(_ message: [UInt8]) -> Bool {
        var framed = withUnsafeBytes(of: UInt32(message.count).littleEndian) { Array($0) }
        framed += message
        return framed.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let sent = send(descriptor, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if sent < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += sent
            }
            return true
        }
    }

    /// Receives one message; nil when the other end closed or sent something malformed.
    func receiveMessage() -> [UInt8]? {
        if case .message(let message) = receiveMessage(before: nil) { return message }
        return nil
    }

    /// What ``receiveMessage(before:)`` got.
    enum Received {
        /// A whole message.
        case message([UInt8])
        /// The other end closed, or sent something malformed.
        case closed
        /// The deadline passed before a whole message arrived.
        case timedOut
    }

    /// Receives one message, waiting at most until `deadline` (nil: for ever).
    func receiveMessage(before deadline: ContinuousClock.Instant?) -> Received {
        let header: [UInt8]
        switch read(count: 4, before: deadline) {
        case .message(let bytes): header = bytes
        case let other: return other
        }
        let length = header.reversed().reduce(0) { $0 << 8 | Int($1) }
        guard length <= WorkerWire.maximumMessageBytes else { return .closed }
        return read(count: length, before: deadline)
    }

    private func read(count: Int, before deadline: ContinuousClock.Instant?) -> Received {
        var buffer = [UInt8](repeating: 0, count: count)
        var offset = 0
        while offset < count {
            if let deadline, !waitReadable(until: deadline) { return .timedOut }
            let received = buffer.withUnsafeMutableBytes { raw in
                recv(descriptor, raw.baseAddress! + offset, count - offset, 0)
            }
            if received < 0 {
                if errno == EINTR { continue }
                return .closed
            }
            if received == 0 { return .closed }
            offset += received
        }
        return .message(buffer)
    }

    /// Waits until the socket has something to read (or was closed): false once `deadline` passed
    /// first.
    private func waitReadable(until deadline: ContinuousClock.Instant) -> Bool {
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return false }
            let milliseconds = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1
            var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&request, 1, Int32(clamping: milliseconds))
            if ready > 0 { return true }
            if ready < 0, errno != EINTR { return true }  // the read reports the failure
        }
    }
}

import Foundation

/// The payload of a journal record: one `DraftEntry` in a compact form, written and read by hand because a restore
/// decodes every record since the snapshot (100,000 of them take a quarter of a second this way, 6x longer through
/// `Codable`'s generic containers).
///
/// Nothing an event carries can be left out silently: ``encode(_:into:)`` binds every associated value of every case
/// by position, so a value added to an event does not compile until it is written here (and read in ``decode(_:)``),
/// and `DraftTests` round-trips every case with every value set. The snapshot holds the board through `Codable`.
///
/// Form: a kind byte, then its values. 1 `tap`, 5 `delete`, 7 `remove`: the index (zigzag LEB128). 2 `record`,
/// 4 `cancel`, 6 `add`: nothing. 3 `stop`: the URL, then the start (the 8 bytes of a `Double`, little-endian).
/// 8 a noted recording file: the URL. A URL is its relative string, then 0, or 1 and its base URL (the form
/// `URL`'s own `Codable` conformance keeps).
enum DraftRecordCodec {
    /// Why a payload that passed its checksum is not an entry.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func encode(_ entry: DraftEntry, into bytes: inout [UInt8]) {
        switch entry {
        case .event(let event):
            switch event {
            case .tap(let index): integer(1, index, &bytes)
            case .record: bytes.append(2)
            case .stop(let url, let start):
                bytes.append(3)
                write(url, &bytes)
                withUnsafeBytes(of: start.bitPattern.littleEndian) { bytes += $0 }
            case .cancel: bytes.append(4)
            case .delete(let index): integer(5, index, &bytes)
            case .add: bytes.append(6)
            case .remove(let index): integer(7, index, &bytes)
            }
        case .recordingFile(let url):
            bytes.append(8)
            write(url, &bytes)
        }
    }

    private static func integer(_ kind: UInt8, _ value: Int, _ bytes: inout [UInt8]) {
        bytes.append(kind)
        let value = Int64(value)
        DraftVarint.write(UInt64(bitPattern: (value << 1) ^ (value >> 63)), into: &bytes)
    }

    private static func write(_ url: URL, _ bytes: inout [UInt8]) {
        write(url.relativeString, &bytes)
        if let base = url.baseURL {
            bytes.append(1)
            write(base, &bytes)
        } else {
            bytes.append(0)
        }
    }

    private static func write(_ string: String, _ bytes: inout [UInt8]) {
        var string = string
        string.withUTF8 { utf8 in
            DraftVarint.write(UInt64(utf8.count), into: &bytes)
            bytes.append(contentsOf: utf8)
        }
    }

    /// The entry in `payload`, which must hold exactly one.
    static func decode(_ payload: ArraySlice<UInt8>) throws(Failure) -> DraftEntry {
        var reader = Reader(bytes: payload, offset: payload.startIndex)
        let entry: DraftEntry
        switch try reader.byte() {
        case 1: entry = .event(.tap(try reader.integer()))
        case 2: entry = .event(.record)
        case 3:
            let url = try reader.url(depth: 0)
            entry = .event(.stop(url, start: try reader.double()))
        case 4: entry = .event(.cancel)
        case 5: entry = .event(.delete(try reader.integer()))
        case 6: entry = .event(.add)
        case 7: entry = .event(.remove(try reader.integer()))
        case 8: entry = .recordingFile(try reader.url(depth: 0))
        case let kind: throw Failure(description: "unknown entry kind \(kind)")
        }
        guard reader.offset == payload.endIndex else { throw Failure(description: "bytes after the entry") }
        return entry
    }

    private struct Reader {
        let bytes: ArraySlice<UInt8>
        var offset: Int

        mutating func byte() throws(Failure) -> UInt8 {
            guard offset < bytes.endIndex else { throw Failure(description: "the entry is cut short") }
            offset += 1
            return bytes[offset - 1]
        }

        mutating func varint() throws(Failure) -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let byte = try byte()
                guard shift < 63 || (shift == 63 && byte <= 1) else {
                    throw Failure(description: "a number is too large")
                }
                value |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return value }
                shift += 7
            }
        }

        mutating func integer() throws(Failure) -> Int {
            let raw = try varint()
            let value = Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
            guard let result = Int(exactly: value) else { throw Failure(description: "an index is too large") }
            return result
        }

        mutating func double() throws(Failure) -> Double {
            guard bytes.endIndex - offset >= 8 else { throw Failure(description: "the entry is cut short") }
            var pattern: UInt64 = 0
            for index in 0..<8 { pattern |= UInt64(bytes[offset + index]) << (8 * UInt64(index)) }
            offset += 8
            return Double(bitPattern: pattern)
        }

        mutating func string() throws(Failure) -> String {
            let count = try varint()
            guard count <= UInt64(bytes.endIndex - offset) else { throw Failure(description: "the entry is cut short") }
            let end = offset + Int(count)
            guard let string = String(validating: bytes[offset..<end], as: UTF8.self) else {
                throw Failure(description: "a URL is not UTF-8")
            }
            offset = end
            return string
        }

        /// A URL and its bases; a chain of bases deeper than a URL has is damage.
        mutating func url(depth: Int) throws(Failure) -> URL {
            guard depth < 8 else { throw Failure(description: "a URL's bases nest too deep") }
            let relative = try string()
            let base: URL?
            switch try byte() {
            case 0: base = nil
            case 1: base = try url(depth: depth + 1)
            default: throw Failure(description: "a URL's base marker is damaged")
            }
            guard let url = URL(string: relative, relativeTo: base) else {
                throw Failure(description: "'\(relative)' is not a URL")
            }
            return url
        }
    }
}

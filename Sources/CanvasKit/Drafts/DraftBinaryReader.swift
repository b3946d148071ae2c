import Foundation

/// Decodes `Decodable` values from the draft's binary form. Any bytes decode to the value or throw
/// `DecodingError`: every length and count is checked against the bytes there are.
enum DraftBinaryDecoder {
    /// The value in `bytes`, which must hold exactly one value.
    /// URLs written relative to the root (see `DraftBinaryEncoder`) are resolved against `root`.
    static func decode<T: Decodable>(_ type: T.Type, from bytes: ArraySlice<UInt8>, root: DraftRoot? = nil) throws -> T
    {
        let reader = DraftBinaryReader(bytes: bytes, root: root)
        let end = try reader.end(ofValueAt: bytes.startIndex, codingPath: [])
        guard end == bytes.endIndex else { throw reader.corrupt("bytes after the value", []) }
        return try reader.decode(type, at: bytes.startIndex, codingPath: [])
    }
}

/// Reads values out of the bytes of one record.
struct DraftBinaryReader {
    let bytes: ArraySlice<UInt8>
    /// What URLs written relative to a root are resolved against.
    var root: DraftRoot? = nil

    func corrupt(_ reason: String, _ codingPath: [any CodingKey]) -> DecodingError {
        DecodingError.dataCorrupted(DecodingError.Context(codingPath: codingPath, debugDescription: reason))
    }

    /// The LEB128 number at `offset` and the offset after it.
    func varint(at offset: Int, _ codingPath: [any CodingKey]) throws -> (UInt64, Int) {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        var offset = offset
        while true {
            guard offset < bytes.endIndex else { throw corrupt("a number runs past the end", codingPath) }
            let byte = bytes[offset]
            offset += 1
            guard shift < 64, shift < 63 || byte <= 1 else { throw corrupt("a number is too large", codingPath) }
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return (value, offset) }
            shift += 7
        }
    }

    /// A length at `offset` that fits in the bytes left after it, and the offset after the length.
    func length(at offset: Int, _ codingPath: [any CodingKey]) throws -> (Int, Int) {
        let (value, next) = try varint(at: offset, codingPath)
        guard value <= UInt64(bytes.endIndex - next) else { throw corrupt("a length runs past the end", codingPath) }
        return (Int(value), next)
    }

    func tag(at offset: Int, _ codingPath: [any CodingKey]) throws -> DraftBinaryTag {
        guard offset < bytes.endIndex else { throw corrupt("a value is missing", codingPath) }
        guard let tag = DraftBinaryTag(rawValue: bytes[offset]) else {
            throw corrupt("unknown value tag \(bytes[offset])", codingPath)
        }
        return tag
    }

    /// The offset just after the value at `offset`, without decoding it.
    func end(ofValueAt offset: Int, codingPath: [any CodingKey]) throws -> Int {
        switch try tag(at: offset, codingPath) {
        case .null, .false, .true: return offset + 1
        case .signed, .unsigned: return try varint(at: offset + 1, codingPath).1
        case .floating:
            guard bytes.endIndex - offset > 8 else { throw corrupt("a number runs past the end", codingPath) }
            return offset + 9
        case .string, .keyed, .unkeyed:
            let (count, start) = try length(at: offset + 1, codingPath)
            return start + count
        }
    }

    /// The entries of the keyed container at `offset`: key bytes and value offset.
    func entries(at offset: Int, _ codingPath: [any CodingKey]) throws -> [(key: Range<Int>, value: Int)] {
        guard try tag(at: offset, codingPath) == .keyed else { throw corrupt("expected a keyed container", codingPath) }
        let (byteCount, start) = try length(at: offset + 1, codingPath)
        let end = start + byteCount
        let bounded = DraftBinaryReader(bytes: bytes[start..<end])
        var (count, cursor) = try bounded.varint(at: start, codingPath)
        guard count <= UInt64(byteCount) else { throw corrupt("a container's count is too large", codingPath) }
        var result: [(key: Range<Int>, value: Int)] = []
        result.reserveCapacity(Int(count))
        while count > 0 {
            let (keyLength, keyStart) = try bounded.length(at: cursor, codingPath)
            let valueStart = keyStart + keyLength
            cursor = try bounded.end(ofValueAt: valueStart, codingPath: codingPath)
            result.append((keyStart..<valueStart, valueStart))
            count -= 1
        }
        guard cursor == end else { throw corrupt("a container's length does not match its entries", codingPath) }
        return result
    }

    /// The offsets of the values of the unkeyed container at `offset`.
    func elements(at offset: Int, _ codingPath: [any CodingKey]) throws -> [Int] {
        guard try tag(at: offset, codingPath) == .unkeyed else {
            throw corrupt("expected an unkeyed container", codingPath)
        }
        let (byteCount, start) = try length(at: offset + 1, codingPath)
        let end = start + byteCount
        let bounded = DraftBinaryReader(bytes: bytes[start..<end])
        var (count, cursor) = try bounded.varint(at: start, codingPath)
        guard count <= UInt64(byteCount) else { throw corrupt("a container's count is too large", codingPath) }
        var result: [Int] = []
        result.reserveCapacity(Int(count))
        while count > 0 {
            result.append(cursor)
            cursor = try bounded.end(ofValueAt: cursor, codingPath: codingPath)
            count -= 1
        }
        guard cursor == end else { throw corrupt("a container's length does not match its elements", codingPath) }
        return result
    }

    func isNull(at offset: Int, _ codingPath: [any CodingKey]) throws -> Bool {
        try tag(at: offset, codingPath) == .null
    }

    func integer<T: FixedWidthInteger>(_ type: T.Type, at offset: Int, _ codingPath: [any CodingKey]) throws -> T {
        switch try tag(at: offset, codingPath) {
        case .signed:
            let raw = try varint(at: offset + 1, codingPath).0
            let value = Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
            guard let result = T(exactly: value) else { throw corrupt("\(value) does not fit \(T.self)", codingPath) }
            return result
        case .unsigned:
            let value = try varint(at: offset + 1, codingPath).0
            guard let result = T(exactly: value) else { throw corrupt("\(value) does not fit \(T.self)", codingPath) }
            return result
        default:
            throw corrupt("expected an integer", codingPath)
        }
    }

    func floating(at offset: Int, _ codingPath: [any CodingKey]) throws -> Double {
        guard try tag(at: offset, codingPath) == .floating, bytes.endIndex - offset > 8 else {
            throw corrupt("expected a floating-point number", codingPath)
        }
        var pattern: UInt64 = 0
        for index in 0..<8 { pattern |= UInt64(bytes[offset + 1 + index]) << (8 * UInt64(index)) }
        return Double(bitPattern: pattern)
    }

    func string(at offset: Int, _ codingPath: [any CodingKey]) throws -> String {
        guard try tag(at: offset, codingPath) == .string else { throw corrupt("expected a string", codingPath) }
        let (count, start) = try length(at: offset + 1, codingPath)
        guard let string = String(validating: bytes[start..<start + count], as: UTF8.self) else {
            throw corrupt("a string is not UTF-8", codingPath)
        }
        return string
    }

    func boolean(at offset: Int, _ codingPath: [any CodingKey]) throws -> Bool {
        switch try tag(at: offset, codingPath) {
        case .true: return true
        case .false: return false
        default: throw corrupt("expected a Boolean", codingPath)
        }
    }

    func decode<T: Decodable>(_ type: T.Type, at offset: Int, codingPath: [any CodingKey]) throws -> T {
        if T.self == String.self { return try string(at: offset, codingPath) as! T }
        if T.self == Int.self { return try integer(Int.self, at: offset, codingPath) as! T }
        if T.self == UInt64.self { return try integer(UInt64.self, at: offset, codingPath) as! T }
        if T.self == Bool.self { return try boolean(at: offset, codingPath) as! T }
        if T.self == Double.self { return try floating(at: offset, codingPath) as! T }
        if T.self == URL.self, let url = try rootedURL(at: offset, codingPath) { return url as! T }
        return try T(from: DraftValueDecoder(reader: self, offset: offset, codingPath: codingPath))
    }

    /// The URL at `offset` when it was written relative to the root (a keyed container whose one key is `root`); nil
    /// for a URL written whole.
    private func rootedURL(at offset: Int, _ codingPath: [any CodingKey]) throws -> URL? {
        guard try tag(at: offset, codingPath) == .keyed else { return nil }
        let entries = try entries(at: offset, codingPath)
        guard entries.count == 1, bytes[entries[0].key].elementsEqual("root".utf8) else { return nil }
        let relative = try string(at: entries[0].value, codingPath)
        guard let root, let url = root.url(relativePath: relative) else {
            throw corrupt("'\(relative)' is not a path below the draft's root", codingPath)
        }
        return url
    }
}

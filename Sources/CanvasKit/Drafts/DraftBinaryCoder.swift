import Foundation

// A compact, self-describing binary form for any `Codable` value: what a draft record holds. Whatever an event or a
// board carries is encoded by its own `Codable` conformance, so a field added to an event later is journaled with it
// without a change here.
//
// Each value is a tag byte and its payload:
// - 0 nil; 1 false; 2 true;
// - 3 a signed integer (zigzag, then LEB128); 4 an unsigned integer (LEB128); 5 a floating-point number (the 8 bytes
//   of a `Double`'s bit pattern, little-endian); 6 a string (LEB128 length, then UTF-8);
// - 7 a keyed container: LEB128 byte length of what follows it, LEB128 entry count, then per entry the key (LEB128
//   length, UTF-8) and the value; 8 an unkeyed container: byte length, count, then the values.
// Container lengths let a decoder skip a value it is not asked for without descending into it, so decoding recurses
// only as deep as the types being decoded do, whatever the bytes say.

enum DraftBinaryTag: UInt8 {
    case null = 0
    case `false`, `true`, signed, unsigned, floating, string, keyed, unkeyed
}

// MARK: Encoding

/// Encodes `Encodable` values into the draft's binary form.
enum DraftBinaryEncoder {
    /// The bytes of `value`. - Throws: `EncodingError` when the value's own `encode(to:)` throws or encodes nothing.
    static func encode(_ value: some Encodable) throws -> [UInt8] {
        let root = EncodingNode()
        try value.encode(to: NodeEncoder(node: root, codingPath: []))
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        try root.write(into: &bytes, codingPath: [])
        return bytes
    }
}

/// What an encoder built for one value, written out once the value is complete (containers need their byte length
/// first).
private final class EncodingNode {
    enum Content {
        case empty
        case scalar([UInt8])
        case keyed([(String, EncodingNode)])
        case unkeyed([EncodingNode])
    }
    var content = Content.empty

    func write(into bytes: inout [UInt8], codingPath: [any CodingKey]) throws {
        switch content {
        case .empty:
            throw EncodingError.invalidValue(
                (), EncodingError.Context(codingPath: codingPath, debugDescription: "a value encoded nothing"))
        case .scalar(let payload):
            bytes += payload
        case .keyed(let entries):
            var body: [UInt8] = []
            DraftVarint.write(UInt64(entries.count), into: &body)
            for (key, node) in entries {
                let utf8 = Array(key.utf8)
                DraftVarint.write(UInt64(utf8.count), into: &body)
                body += utf8
                try node.write(into: &body, codingPath: codingPath)
            }
            bytes.append(DraftBinaryTag.keyed.rawValue)
            DraftVarint.write(UInt64(body.count), into: &bytes)
            bytes += body
        case .unkeyed(let nodes):
            var body: [UInt8] = []
            DraftVarint.write(UInt64(nodes.count), into: &body)
            for node in nodes { try node.write(into: &body, codingPath: codingPath) }
            bytes.append(DraftBinaryTag.unkeyed.rawValue)
            DraftVarint.write(UInt64(body.count), into: &bytes)
            bytes += body
        }
    }

    static func scalar(_ tag: DraftBinaryTag, _ payload: (inout [UInt8]) -> Void = { _ in }) -> [UInt8] {
        var bytes = [tag.rawValue]
        payload(&bytes)
        return bytes
    }

    static func signed(_ value: Int64) -> [UInt8] {
        scalar(.signed) { DraftVarint.write(UInt64(bitPattern: (value << 1) ^ (value >> 63)), into: &$0) }
    }
    static func unsigned(_ value: UInt64) -> [UInt8] { scalar(.unsigned) { DraftVarint.write(value, into: &$0) } }
    static func floating(_ value: Double) -> [UInt8] {
        scalar(.floating) { bytes in withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes += $0 } }
    }
    static func string(_ value: String) -> [UInt8] {
        scalar(.string) { bytes in
            let utf8 = Array(value.utf8)
            DraftVarint.write(UInt64(utf8.count), into: &bytes)
            bytes += utf8
        }
    }
    static func boolean(_ value: Bool) -> [UInt8] { scalar(value ? .true : .false) }
    static var null: [UInt8] { scalar(.null) }

    /// Encodes `value` into this node: primitives directly, anything else through its own `encode(to:)`.
    func encode<T: Encodable>(_ value: T, codingPath: [any CodingKey]) throws {
        switch value {
        case let value as String: content = .scalar(Self.string(value))
        case let value as Bool: content = .scalar(Self.boolean(value))
        case let value as Double: content = .scalar(Self.floating(value))
        case let value as Float: content = .scalar(Self.floating(Double(value)))
        case let value as Int: content = .scalar(Self.signed(Int64(value)))
        case let value as Int64: content = .scalar(Self.signed(value))
        case let value as Int32: content = .scalar(Self.signed(Int64(value)))
        case let value as Int16: content = .scalar(Self.signed(Int64(value)))
        case let value as Int8: content = .scalar(Self.signed(Int64(value)))
        case let value as UInt: content = .scalar(Self.unsigned(UInt64(value)))
        case let value as UInt64: content = .scalar(Self.unsigned(value))
        case let value as UInt32: content = .scalar(Self.unsigned(UInt64(value)))
        case let value as UInt16: content = .scalar(Self.unsigned(UInt64(value)))
        case let value as UInt8: content = .scalar(Self.unsigned(UInt64(value)))
        default: try value.encode(to: NodeEncoder(node: self, codingPath: codingPath))
        }
    }
}

private struct NodeEncoder: Encoder {
    let node: EncodingNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .keyed = node.content {} else { node.content = .keyed([]) }
        return KeyedEncodingContainer(KeyedNodeEncoder<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .unkeyed = node.content {} else { node.content = .unkeyed([]) }
        return UnkeyedNodeEncoder(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleNodeEncoder(node: node, codingPath: codingPath)
    }
}

private struct KeyedNodeEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: EncodingNode
    let codingPath: [any CodingKey]

    private func child(for key: Key) -> EncodingNode {
        let child = EncodingNode()
        guard case .keyed(var entries) = node.content else { preconditionFailure("a keyed container's node") }
        node.content = .empty
        entries.append((key.stringValue, child))
        node.content = .keyed(entries)
        return child
    }

    mutating func encodeNil(forKey key: Key) throws { child(for: key).content = .scalar(EncodingNode.null) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try child(for: key).encode(value, codingPath: codingPath + [key])
    }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        NodeEncoder(node: child(for: key), codingPath: codingPath + [key]).container(keyedBy: keyType)
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        NodeEncoder(node: child(for: key), codingPath: codingPath + [key]).unkeyedContainer()
    }
    mutating func superEncoder() -> any Encoder {
        NodeEncoder(node: child(for: Key(stringValue: "super")!), codingPath: codingPath)
    }
    mutating func superEncoder(forKey key: Key) -> any Encoder {
        NodeEncoder(node: child(for: key), codingPath: codingPath + [key])
    }
}

private struct UnkeyedNodeEncoder: UnkeyedEncodingContainer {
    let node: EncodingNode
    let codingPath: [any CodingKey]
    var count: Int {
        if case .unkeyed(let nodes) = node.content { return nodes.count }
        return 0
    }

    private func child() -> EncodingNode {
        let child = EncodingNode()
        guard case .unkeyed(var nodes) = node.content else { preconditionFailure("an unkeyed container's node") }
        node.content = .empty
        nodes.append(child)
        node.content = .unkeyed(nodes)
        return child
    }

    mutating func encodeNil() throws { child().content = .scalar(EncodingNode.null) }
    mutating func encode<T: Encodable>(_ value: T) throws { try child().encode(value, codingPath: codingPath) }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        NodeEncoder(node: child(), codingPath: codingPath).container(keyedBy: keyType)
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        NodeEncoder(node: child(), codingPath: codingPath).unkeyedContainer()
    }
    mutating func superEncoder() -> any Encoder { NodeEncoder(node: child(), codingPath: codingPath) }
}

private struct SingleNodeEncoder: SingleValueEncodingContainer {
    let node: EncodingNode
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.content = .scalar(EncodingNode.null) }
    mutating func encode<T: Encodable>(_ value: T) throws { try node.encode(value, codingPath: codingPath) }
}

// MARK: Decoding

/// Decodes `Decodable` values from the draft's binary form. Any bytes decode to the value or throw
/// `DecodingError`: every length and count is checked against the bytes there are.
enum DraftBinaryDecoder {
    /// The value in `bytes`, which must hold exactly one value.
    static func decode<T: Decodable>(_ type: T.Type, from bytes: ArraySlice<UInt8>) throws -> T {
        let reader = DraftBinaryReader(bytes: bytes)
        let end = try reader.end(ofValueAt: bytes.startIndex, codingPath: [])
        guard end == bytes.endIndex else { throw reader.corrupt("bytes after the value", []) }
        return try reader.decode(type, at: bytes.startIndex, codingPath: [])
    }
}

/// LEB128 integers.
enum DraftVarint {
    static func write(_ value: UInt64, into bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }
}

/// Reads values out of the bytes of one record.
private struct DraftBinaryReader {
    let bytes: ArraySlice<UInt8>

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
        return try T(from: ValueDecoder(reader: self, offset: offset, codingPath: codingPath))
    }
}

private struct ValueDecoder: Decoder {
    let reader: DraftBinaryReader
    let offset: Int
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(
            KeyedValueDecoder<Key>(
                reader: reader, entries: try reader.entries(at: offset, codingPath), codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        UnkeyedValueDecoder(
            reader: reader, elements: try reader.elements(at: offset, codingPath), codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueDecoder(reader: reader, offset: offset, codingPath: codingPath)
    }
}

private struct KeyedValueDecoder<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let reader: DraftBinaryReader
    let entries: [(key: Range<Int>, value: Int)]
    let codingPath: [any CodingKey]

    var allKeys: [Key] {
        entries.compactMap { Key(stringValue: String(decoding: reader.bytes[$0.key], as: UTF8.self)) }
    }

    private func find(_ key: Key) -> Int? {
        var name = key.stringValue
        return name.withUTF8 { name in
            entries.first { reader.bytes[$0.key].elementsEqual(name) }?.value
        }
    }

    private func offset(of key: Key) throws -> Int {
        guard let offset = find(key) else {
            throw DecodingError.keyNotFound(
                key, DecodingError.Context(codingPath: codingPath, debugDescription: "no value for the key"))
        }
        return offset
    }

    func contains(_ key: Key) -> Bool { find(key) != nil }
    func decodeNil(forKey key: Key) throws -> Bool { try reader.isNull(at: try offset(of: key), codingPath) }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try reader.boolean(at: try offset(of: key), codingPath + [key])
    }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try reader.string(at: try offset(of: key), codingPath + [key])
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try reader.floating(at: try offset(of: key), codingPath + [key])
    }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        Float(try reader.floating(at: try offset(of: key), codingPath + [key]))
    }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(type, key) }
    private func integer<T: FixedWidthInteger>(_ type: T.Type, _ key: Key) throws -> T {
        try reader.integer(type, at: try offset(of: key), codingPath + [key])
    }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try reader.decode(type, at: try offset(of: key), codingPath: codingPath + [key])
    }
    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try ValueDecoder(reader: reader, offset: try offset(of: key), codingPath: codingPath + [key])
            .container(keyedBy: type)
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ValueDecoder(reader: reader, offset: try offset(of: key), codingPath: codingPath + [key]).unkeyedContainer()
    }
    func superDecoder() throws -> any Decoder {
        ValueDecoder(reader: reader, offset: try offset(of: Key(stringValue: "super")!), codingPath: codingPath)
    }
    func superDecoder(forKey key: Key) throws -> any Decoder {
        ValueDecoder(reader: reader, offset: try offset(of: key), codingPath: codingPath + [key])
    }
}

private struct UnkeyedValueDecoder: UnkeyedDecodingContainer {
    let reader: DraftBinaryReader
    let elements: [Int]
    let codingPath: [any CodingKey]
    var currentIndex = 0
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    init(reader: DraftBinaryReader, elements: [Int], codingPath: [any CodingKey]) {
        self.reader = reader
        self.elements = elements
        self.codingPath = codingPath
    }

    private mutating func next() throws -> Int {
        guard !isAtEnd else { throw reader.corrupt("fewer elements than expected", codingPath) }
        currentIndex += 1
        return elements[currentIndex - 1]
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { throw reader.corrupt("fewer elements than expected", codingPath) }
        if try reader.isNull(at: elements[currentIndex], codingPath) {
            currentIndex += 1
            return true
        }
        return false
    }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let offset = try next()
        return try reader.decode(type, at: offset, codingPath: codingPath)
    }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try ValueDecoder(reader: reader, offset: try next(), codingPath: codingPath).container(keyedBy: type)
    }
    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try ValueDecoder(reader: reader, offset: try next(), codingPath: codingPath).unkeyedContainer()
    }
    mutating func superDecoder() throws -> any Decoder {
        ValueDecoder(reader: reader, offset: try next(), codingPath: codingPath)
    }
}

private struct SingleValueDecoder: SingleValueDecodingContainer {
    let reader: DraftBinaryReader
    let offset: Int
    let codingPath: [any CodingKey]

    func decodeNil() -> Bool { (try? reader.isNull(at: offset, codingPath)) ?? false }
    func decode(_ type: Bool.Type) throws -> Bool { try reader.boolean(at: offset, codingPath) }
    func decode(_ type: String.Type) throws -> String { try reader.string(at: offset, codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try reader.floating(at: offset, codingPath) }
    func decode(_ type: Float.Type) throws -> Float { Float(try reader.floating(at: offset, codingPath)) }
    func decode(_ type: Int.Type) throws -> Int { try reader.integer(type, at: offset, codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try reader.integer(type, at: offset, codingPath) }
    func decode(_ type: Int16.Type) throws -> Int16 { try reader.integer(type, at: offset, codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try reader.integer(type, at: offset, codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try reader.integer(type, at: offset, codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try reader.integer(type, at: offset, codingPath) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try reader.integer(type, at: offset, codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try reader.integer(type, at: offset, codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try reader.integer(type, at: offset, codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try reader.integer(type, at: offset, codingPath) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try reader.decode(type, at: offset, codingPath: codingPath)
    }
}

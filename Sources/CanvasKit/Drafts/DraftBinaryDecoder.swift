import Foundation

// The Decoder and its containers over a DraftBinaryReader.

struct DraftValueDecoder: Decoder {
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
        try DraftValueDecoder(reader: reader, offset: try offset(of: key), codingPath: codingPath + [key])
            .container(keyedBy: type)
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try DraftValueDecoder(reader: reader, offset: try offset(of: key), codingPath: codingPath + [key])
            .unkeyedContainer()
    }
    func superDecoder() throws -> any Decoder {
        DraftValueDecoder(reader: reader, offset: try offset(of: Key(stringValue: "super")!), codingPath: codingPath)
    }
    func superDecoder(forKey key: Key) throws -> any Decoder {
        DraftValueDecoder(reader: reader, offset: try offset(of: key), codingPath: codingPath + [key])
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
        try DraftValueDecoder(reader: reader, offset: try next(), codingPath: codingPath).container(keyedBy: type)
    }
    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try DraftValueDecoder(reader: reader, offset: try next(), codingPath: codingPath).unkeyedContainer()
    }
    mutating func superDecoder() throws -> any Decoder {
        DraftValueDecoder(reader: reader, offset: try next(), codingPath: codingPath)
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

import Foundation

// Encoding into the draft's binary form; the form is described with `DraftBinaryTag`.

/// Encodes `Encodable` values into the draft's binary form.
enum DraftBinaryEncoder {
    /// The bytes of `value`. - Throws: `EncodingError` when the value's own `encode(to:)` throws or encodes nothing.
    /// URLs inside `root` are written relative to it (see `DraftRoot`): as a keyed container whose one key is `root`.
    static func encode(_ value: some Encodable, root draftRoot: DraftRoot? = nil) throws -> [UInt8] {
        let root = EncodingNode(root: draftRoot)
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
    /// The root URLs are written relative to; the same for every node of a value.
    let root: DraftRoot?

    init(root: DraftRoot?) {
        self.root = root
    }

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
        case let value as URL:
            if let relative = root?.relativePath(of: value) {
                let path = EncodingNode(root: root)
                path.content = .scalar(Self.string(relative))
                content = .keyed([("root", path)])
            } else {
                try value.encode(to: NodeEncoder(node: self, codingPath: codingPath))
            }
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
        let child = EncodingNode(root: node.root)
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
        let child = EncodingNode(root: node.root)
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

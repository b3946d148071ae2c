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

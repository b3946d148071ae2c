/// CRC-32 (the polynomial of zlib, PNG and Ethernet, reflected 0xEDB88320) of a draft record: a torn or garbled record
/// fails it, so a restore stops at the last whole record.
enum DraftChecksum {
    /// The 256-entry table, computed once.
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1 }
        return value
    }

    /// The checksum of `bytes`, continuing `seed` (the checksum of what came before; 0 for none).
    static func crc32(_ bytes: some Sequence<UInt8>, seed: UInt32 = 0) -> UInt32 {
        table.withUnsafeBufferPointer { table in
            var crc = ~seed
            for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
            return ~crc
        }
    }
}

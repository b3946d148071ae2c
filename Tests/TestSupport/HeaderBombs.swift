import Foundation

/// Files of a few kilobytes whose headers declare far more than they hold, built byte by byte so every run writes the
/// same bytes: an MP4 whose sample tables declare millions of samples per track, and a Matroska file of hundreds of
/// tracks. Before the input limits, opening the first took FFmpeg's demuxer to 1.9 GB per track.
package enum HeaderBombs {
    /// An MP4 (ftyp, mdat of 4 KiB, moov) of `tracks` video tracks whose `stts`, `stsc` and `stsz` each declare
    /// `samples` samples of one byte in one chunk.
    package static func sampleTables(tracks: Int, samples: UInt32) -> Data {
        let ftyp = box("ftyp", Array("isom".utf8) + be32(512) + Array("isommp41".utf8))
        let payload = [UInt8](repeating: 0, count: 4096)
        let mdat = box("mdat", payload)
        let dataOffset = UInt32(ftyp.count + 8)
        var moov = box(
            "mvhd",
            [0, 0, 0, 0] + be32(0) + be32(0) + be32(1000) + be32(0) + be32(0x0001_0000)
                + [1, 0] + [UInt8](repeating: 0, count: 10) + identityMatrix + [UInt8](repeating: 0, count: 24)
                + be32(UInt32(tracks + 1)))
        for track in 1...max(tracks, 1) {
            moov += videoTrack(id: UInt32(track), samples: samples, dataOffset: dataOffset)
        }
        return Data(ftyp + mdat + box("moov", moov))
    }

    /// A Matroska file of `tracks` 1080p H.264 tracks (no codec data) and one block.
    package static func manyTracks(_ tracks: Int) -> Data {
        let header = element(
            0x1A45_DFA3,
            [
                element(0x4286, uint(1)), element(0x42F7, uint(1)), element(0x42F2, uint(4)), element(0x42F3, uint(8)),
                element(0x4282, Array("matroska".utf8)), element(0x4287, uint(4)), element(0x4285, uint(2)),
            ].flatMap { $0 })
        let info = element(0x1549_A966, element(0x2A_D7B1, uint(1_000_000)))
        var entries: [UInt8] = []
        for number in 1...max(tracks, 1) {
            let video = element(0xE0, element(0xB0, uint(1920)) + element(0xBA, uint(1080)))
            entries += element(
                0xAE,
                element(0xD7, uint(UInt64(number))) + element(0x73C5, uint(UInt64(number)))
                    + element(0x83, uint(1)) + element(0x86, Array("V_MPEG4/ISO/AVC".utf8)) + video)
        }
        let block = element(0xA3, [0x81, 0, 0, 0x80, 0, 0])
        let cluster = element(0x1F43_B675, element(0xE7, uint(0)) + block)
        return Data(header + element(0x1853_8067, info + element(0x1654_AE6B, entries) + cluster))
    }

    private static func videoTrack(id: UInt32, samples: UInt32, dataOffset: UInt32) -> [UInt8] {
        let tkhd = box(
            "tkhd",
            [0, 0, 0, 3] + be32(0) + be32(0) + be32(id) + be32(0) + be32(samples)
                + [UInt8](repeating: 0, count: 16) + identityMatrix + be32(320 << 16) + be32(240 << 16))
        let mdhd = box("mdhd", [0, 0, 0, 0] + be32(0) + be32(0) + be32(25) + be32(samples) + [0x55, 0xC4, 0, 0])
        let hdlr = box("hdlr", be32(0) + be32(0) + Array("vide".utf8) + [UInt8](repeating: 0, count: 13))
        let sampleEntry = box(
            "avc1",
            [UInt8](repeating: 0, count: 6) + [0, 1] + [UInt8](repeating: 0, count: 16)
                + [1, 64, 0, 240] + be32(0x0048_0000) + be32(0x0048_0000) + be32(0) + [0, 1]
                + [UInt8](repeating: 0, count: 32) + [0, 0x18, 0xFF, 0xFF])
        let stbl = box(
            "stbl",
            box("stsd", be32(0) + be32(1) + sampleEntry)
                + box("stts", be32(0) + be32(1) + be32(samples) + be32(1))
                + box("stsc", be32(0) + be32(1) + be32(1) + be32(samples) + be32(1))
                + box("stsz", be32(0) + be32(1) + be32(samples))
                + box("stco", be32(0) + be32(1) + be32(dataOffset)))
        let dinf = box("dinf", box("dref", be32(0) + be32(1) + box("url ", [0, 0, 0, 1])))
        let minf = box("minf", box("vmhd", [0, 0, 0, 1] + [UInt8](repeating: 0, count: 8)) + dinf + stbl)
        return box("trak", tkhd + box("mdia", mdhd + hdlr + minf))
    }

    private static let identityMatrix: [UInt8] =
        be32(0x0001_0000) + be32(0) + be32(0) + be32(0) + be32(0x0001_0000) + be32(0) + be32(0) + be32(0)
        + be32(0x4000_0000)

    private static func box(_ type: String, _ body: [UInt8]) -> [UInt8] {
        be32(UInt32(body.count + 8)) + Array(type.utf8) + body
    }

    private static func be32(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) }
    }

    /// A Matroska element: its ID's bytes, an 8-byte size, the data.
    private static func element(_ id: UInt32, _ data: [UInt8]) -> [UInt8] {
        let idBytes = (0..<4).map { UInt8(truncatingIfNeeded: id >> (24 - 8 * $0)) }.drop(while: { $0 == 0 })
        let size = (0..<7).map { UInt8(truncatingIfNeeded: UInt64(data.count) >> (48 - 8 * $0)) }
        return Array(idBytes) + [0x01] + size + data
    }

    private static func uint(_ value: UInt64) -> [UInt8] {
        let bytes = (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) }
        let trimmed = Array(bytes.drop(while: { $0 == 0 }))
        return trimmed.isEmpty ? [0] : trimmed
    }
}

import Foundation

/// How many index entries FFmpeg's MP4/QuickTime demuxer would build for a file, counted from the file's boxes before
/// the demuxer reads them (so a refused file costs nothing but this walk).
///
/// The demuxer builds one index entry per sample a track's `stsz` (or `stz2`) declares, and one per fragment sample a
/// `trun` declares, whatever the file holds; only an audio track whose `stts` is one run of duration 1 (uncompressed
/// audio) is indexed by chunk, up to one entry per 160 samples of a chunk. Those boxes are parsed wherever the
/// demuxer would parse them (in any of its container boxes, at any depth), and every one counts, so the count is never
/// below what the demuxer builds. The walk reads box headers and the few fields it needs, through a 64 KiB window.
package struct SampleTableCensus {
    /// The index entries the demuxer would build, all tracks and fragments together.
    package private(set) var samples = 0
    /// Whether the file holds a compressed movie header (`cmov`), whose tables cannot be counted without inflating it.
    package private(set) var hasCompressedHeader = false

    /// Counts the sample tables of the bytes `source` reads; zero samples for bytes that are not an MP4 box tree.
    package init(_ source: some CensusSource) {
        var reader = WindowReader(source: source)
        // Boxes outside any track: the demuxer applies them to its last track, so they count as one more.
        var stray = Track()
        walk(&reader, from: 0, to: reader.size, depth: 0, into: &stray)
        samples = samples &+ stray.entries
    }

    /// What one track declares.
    private struct Track {
        var sampleCount = 0
        var soundOnly = true
        var sawHandler = false
        var durationOneRuns = 0
        var otherTimeRuns = false
        var chunkCount = 0
        var chunkRuns: [(first: Int, samplesPerChunk: Int)] = []

        /// The entries the demuxer builds for this track: one per sample, or for uncompressed audio (a sound track
        /// whose only time run has duration 1) at most one per 160 samples of each chunk.
        var entries: Int {
            guard sawHandler, soundOnly, durationOneRuns == 1, !otherTimeRuns else { return sampleCount }
            var total = 0
            for (index, run) in chunkRuns.enumerated() {
                let next = index + 1 < chunkRuns.count ? chunkRuns[index + 1].first : chunkCount + 1
                let chunks = max(0, min(next, chunkCount + 1) - max(run.first, 1))
                total = total &+ chunks &* ((run.samplesPerChunk + 159) / 160)
            }
            return max(total, 0)
        }
    }

    /// The container boxes the demuxer walks into.
    private static let containers: Set<String> = [
        "moov", "trak", "mdia", "minf", "stbl", "edts", "dinf", "udta", "tref", "mvex", "moof", "traf", "mfra",
        "wave", "sinf", "schi", "ilst", "clip", "matt", "imap", "gmhd", "tapt", "mmpu",
    ]

    /// Walks the boxes between `start` and `end`, counting what they declare into `track`; a `trak` box starts a
    /// track of its own.
    private mutating func walk<Source>(
        _ reader: inout WindowReader<Source>, from start: Int, to end: Int, depth: Int, into track: inout Track
    ) {
        var offset = start
        while offset + 8 <= end, depth < 32 {
            guard let header = reader.header(at: offset, end: end) else { break }
            if header.type == "trak" {
                var fresh = Track()
                walk(&reader, from: header.body, to: header.end, depth: depth + 1, into: &fresh)
                samples = samples &+ fresh.entries
            } else if Self.containers.contains(header.type) {
                walk(&reader, from: header.body, to: header.end, depth: depth + 1, into: &track)
            } else if header.type == "cmov" {
                hasCompressedHeader = true
            } else {
                count(&reader, header, end: header.end, into: &track)
            }
            guard header.end > offset else { break }
            offset = header.end
        }
    }

    /// Counts what one leaf box declares into `track` (or into the census for a fragment's `trun`).
    private mutating func count<Source>(
        _ reader: inout WindowReader<Source>, _ header: BoxHeader, end: Int, into track: inout Track
    ) {
        let body = header.body
        switch header.type {
        case "stsz": track.sampleCount = track.sampleCount &+ reader.uint32(at: body + 8, end: end)
        case "stz2": track.sampleCount = track.sampleCount &+ reader.uint32(at: body + 8, end: end)
        case "trun": samples = samples &+ reader.uint32(at: body + 4, end: end)
        case "hdlr":
            // The types that set a track's kind; a data handler ("alis", "url ") leaves it as it was.
            switch reader.fourCC(at: body + 8, end: end) {
            case "soun", "m1a ": track.sawHandler = true
            case "vide", "subp", "clcp": track.soundOnly = false
            default: break
            }
        case "stts":
            let runs = reader.uint32(at: body + 4, end: end)
            if runs == 1, reader.uint32(at: body + 12, end: end) == 1 {
                track.durationOneRuns += 1
            } else {
                track.otherTimeRuns = true
            }
        case "stco", "co64":
            let width = header.type == "stco" ? 4 : 8
            let stored = max(0, end - body - 8) / width
            track.chunkCount = track.chunkCount &+ min(reader.uint32(at: body + 4, end: end), stored)
        case "stsc":
            let stored = min(reader.uint32(at: body + 4, end: end), max(0, end - body - 8) / 12)
            for index in 0..<stored {
                let entry = body + 8 + index * 12
                track.chunkRuns.append((reader.uint32(at: entry, end: end), reader.uint32(at: entry + 4, end: end)))
            }
        default: break
        }
    }
}

/// Where ``SampleTableCensus`` reads bytes from: a file or bytes in memory.
package protocol CensusSource {
    /// How many bytes there are.
    var size: Int { get }
    /// Up to `count` bytes from `offset` (fewer at the end, none when unreadable).
    func bytes(at offset: Int, count: Int) -> [UInt8]
}

/// A box's type and extent.
private struct BoxHeader {
    var type: String
    /// Where its body starts and where the box ends.
    var body: Int
    var end: Int
}

/// Reads a source through a window of 64 KiB, so a walk over many small boxes reads each byte once.
private struct WindowReader<Source: CensusSource> {
    let source: Source
    let size: Int
    private var windowStart = 0
    private var window: [UInt8] = []

    init(source: Source) {
        self.source = source
        size = source.size
    }

    /// The byte at `offset`, or nil past the end.
    mutating func byte(at offset: Int) -> UInt8? {
        guard offset >= 0, offset < size else { return nil }
        if offset < windowStart || offset >= windowStart + window.count {
            windowStart = offset
            window = source.bytes(at: offset, count: 64 * 1024)
        }
        let index = offset - windowStart
        return index < window.count ? window[index] : nil
    }

    /// The big-endian integer of `width` bytes at `offset`, or 0 when it passes `end`.
    mutating func integer(at offset: Int, width: Int, end: Int) -> UInt64 {
        guard offset + width <= end else { return 0 }
        var value: UInt64 = 0
        for index in 0..<width {
            guard let byte = byte(at: offset + index) else { return 0 }
            value = value << 8 | UInt64(byte)
        }
        return value
    }

    mutating func uint32(at offset: Int, end: Int) -> Int { Int(integer(at: offset, width: 4, end: end)) }

    mutating func fourCC(at offset: Int, end: Int) -> String {
        let value = integer(at: offset, width: 4, end: end)
        let bytes = (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The header of the box at `offset` within `end`, or nil when there is none (too short, a size below its header).
    mutating func header(at offset: Int, end: Int) -> BoxHeader? {
        let declared = integer(at: offset, width: 4, end: end)
        let type = fourCC(at: offset + 4, end: end)
        var body = offset + 8
        var boxEnd: Int
        switch declared {
        case 0: boxEnd = end
        case 1:
            let large = integer(at: offset + 8, width: 8, end: end)
            body = offset + 16
            boxEnd = large > UInt64(Int.max - offset) ? Int.max : offset + Int(large)
        default: boxEnd = offset + Int(declared)
        }
        guard boxEnd >= body else { return nil }
        return BoxHeader(type: type, body: body, end: min(boxEnd, max(end, body)))
    }
}

/// Bytes held in memory, for ``SampleTableCensus``.
package struct CensusBytes: CensusSource {
    let data: Data

    package init(_ data: Data) { self.data = data }

    package var size: Int { data.count }

    package func bytes(at offset: Int, count: Int) -> [UInt8] {
        guard offset >= 0, offset < data.count else { return [] }
        let start = data.startIndex + offset
        return Array(data[start..<(start + min(count, data.count - offset))])
    }
}

/// Reads one draft file (its header, then its records in order, then what follows the last whole one) through a
/// ``DraftReadableFile``, in pieces of ``pieceSize`` bytes.
///
/// It holds at most the bytes of the record it is reading plus one piece: at most ``pieceSize`` +
/// `DraftFormat.recordHeaderSize` + `DraftFormat.maximumPayload` bytes, whatever the file's size. A record handed out
/// refers to those bytes: drop it before asking for the next one, or it keeps them alive.
struct DraftRecordReader {
    /// The most a read asks the storage for at once.
    static let pieceSize = 64 << 10

    let path: String
    private let file: any DraftReadableFile
    /// Bytes of the file from `buffer[start]` on, which is the file's byte at ``offset``.
    private var buffer: [UInt8] = []
    private var start = 0
    /// Where in the file the next record (or the tail) starts.
    private(set) var offset = 0
    /// The most bytes held at once.
    private(set) var peakHeld = 0

    /// The reader of the file at `path`, or nil when there is none.
    init?(path: String, storage: any DraftStorage) throws(DraftError) {
        guard let file = try storage.openForReading(path) else { return nil }
        self.path = path
        self.file = file
    }

    /// The file's size when it was opened.
    var size: Int { file.size }

    /// Whether every byte of the file has been read as records.
    var isAtEnd: Bool { offset >= file.size }

    /// Makes `count` bytes from ``offset`` available in `buffer` (fewer only at the end of the file), reading a piece at
    /// a time after dropping the bytes before ``offset``. - Returns: how many are available, at most `count`.
    private mutating func fill(_ count: Int) throws(DraftError) -> Int {
        let wanted = min(count, file.size - offset)
        while buffer.count - start < wanted {
            if start > 0 {
                buffer.removeSubrange(0..<start)
                start = 0
            }
            let piece = try file.read(at: offset + buffer.count, count: Self.pieceSize)
            if piece.isEmpty { break }
            buffer += piece
            peakHeld = max(peakHeld, buffer.count)
        }
        return max(0, min(count, buffer.count - start))
    }

    private mutating func advance(_ count: Int) {
        start += count
        offset += count
    }

    /// The file's header. - Throws: `DraftError` when the file is empty, not a draft, of a newer version, of the other
    ///   kind, or its header is damaged.
    mutating func header(expecting kind: DraftFormat.Kind) throws(DraftError) -> DraftFormat.Header {
        let available = try fill(DraftFormat.headerSize)
        let header = try DraftFormat.parseHeader(
            Array(buffer[start..<(start + available)]), path: path, expecting: kind)
        advance(DraftFormat.headerSize)
        return header
    }

    /// The next whole, checksummed record, or nil at the end of the file or at a partial or damaged record (``offset``
    /// stays where it starts).
    mutating func next() throws(DraftError) -> DraftFormat.Record? {
        guard try fill(DraftFormat.recordHeaderSize) == DraftFormat.recordHeaderSize else { return nil }
        let length = Int(DraftFormat.read(UInt32.self, buffer, at: start))
        guard length <= DraftFormat.maximumPayload else { return nil }
        _ = try fill(DraftFormat.recordHeaderSize + length)
        guard let record = DraftFormat.record(in: buffer, at: start) else { return nil }
        advance(DraftFormat.recordHeaderSize + length)
        return record
    }

    /// What follows the last whole record (call it once ``next()`` returned nil), reading on to the end of the file:
    /// whole, checksummed records after damage count only when their number is after `last` (the last record before
    /// the damage, or the header's base) and within what the rest of the file can hold.
    mutating func tail(after last: UInt64) throws(DraftError) -> DraftFormat.Tail {
        guard !isAtEnd else { return .none }
        let damage = offset
        var zeros = true
        var later = 0
        var newest = last
        while try fill(1) == 1 {
            if offset > damage, let record = try laterRecord(after: newest) {
                later += 1
                newest = record.sequence
                advance(DraftFormat.recordHeaderSize + record.payload.count)
                continue
            }
            if buffer[start] != 0 { zeros = false }
            advance(1)
        }
        if later > 0 { return .corrupt(laterRecords: later, lastLater: newest) }
        return zeros ? .zeros : .torn
    }

    /// The whole record at ``offset`` when its number comes after `newest` and could be reached in what is left of the
    /// file. A cheap look at the number first: damage seldom frames a plausible one, and only then is the CRC worth
    /// computing (so a scan of a large damaged file stays linear).
    private mutating func laterRecord(after newest: UInt64) throws(DraftError) -> DraftFormat.Record? {
        guard try fill(DraftFormat.recordHeaderSize) == DraftFormat.recordHeaderSize else { return nil }
        let sequence = DraftFormat.read(UInt64.self, buffer, at: start + 8)
        let left = UInt64(file.size - offset)
        guard sequence > newest, sequence - newest <= left / UInt64(DraftFormat.recordHeaderSize) + 1 else {
            return nil
        }
        let length = Int(DraftFormat.read(UInt32.self, buffer, at: start))
        guard length <= DraftFormat.maximumPayload else { return nil }
        _ = try fill(DraftFormat.recordHeaderSize + length)
        return DraftFormat.record(in: buffer, at: start)
    }
}

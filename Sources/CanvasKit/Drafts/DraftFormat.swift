import Foundation

/// What one journal record holds: an accepted event, or the file the recorder writes the current take into.
enum DraftEntry: Sendable, Hashable {
    /// An event the board accepted, in the order it was accepted.
    case event(CanvasEvent)
    /// The file the recorder is writing the current take into (`BoardDraft.noteRecordingFile(_:)`).
    case recordingFile(URL)
}

/// The board a draft stands for at one record: the board and the file of a take in progress.
struct DraftState: Sendable, Hashable, Codable {
    var board: BoardState
    /// The file the recorder writes the current take into, when the app said so; nil when not recording.
    var recordingFile: URL?

    /// Applies one journaled entry. - Returns: nil when it applied, or why it cannot (an event the board rejects: the
    ///   journal does not belong to this board).
    mutating func apply(_ entry: DraftEntry) -> CanvasRejection? {
        switch entry {
        case .event(let event):
            let step = board.handle(event)
            if let rejection = step.rejection { return rejection }
            if !board.isRecording { recordingFile = nil }
            return nil
        case .recordingFile(let url):
            if board.isRecording { recordingFile = url }
            return nil
        }
    }
}

/// The bytes of a draft: a header per file, then framed, checksummed records.
///
/// Header (32 bytes): the signature `MCDRAFT` and a zero byte; the format version (UInt16, little-endian); the kind
/// (1 journal, 2 snapshot); a zero byte; the base sequence (UInt64: a snapshot's is the last record it includes, a
/// journal's the snapshot it continues); the draft's identity (UInt64, random, shared by a journal and its snapshot);
/// the CRC-32 of the 28 bytes before it.
///
/// Record: payload length (UInt32), CRC-32 of the sequence and the payload (UInt32), sequence number (UInt64), then
/// the payload: a `DraftEntry` in the journal (`DraftRecordCodec`), a `DraftState` in the snapshot (its `Codable`
/// form, written by `DraftBinaryEncoder`). All integers are little-endian.
enum DraftFormat {
    static let signature: [UInt8] = Array("MCDRAFT".utf8) + [0]
    /// The version this library writes and the newest it reads. Version 2 writes a take inside the draft's root as
    /// its path below the root (`DraftRoot`); version 1 wrote every URL whole, and reads the same. Version 2 also
    /// journals takes of several segments, the armed undo, the soundtrack, the microphone setting and the maximum take
    /// length (`DraftRecordCodec`). Version 3 journals the missing marks (`markMissing`, `relink`) and keeps them in
    /// the snapshot, so a library that reads up to version 2 refuses such a draft as newer instead of calling it
    /// corrupt. An opened draft of an older version is read as it was written, then rewritten in this version before
    /// anything is appended to it: a file never holds records of two versions.
    static let version = 3
    static let headerSize = 32
    static let recordHeaderSize = 16
    /// The largest payload a record may declare (64 MiB): a length above it is damage, not a record. A restore reads
    /// a file in pieces (`DraftRecordReader`) and holds at most one piece and one record, so this bounds its memory.
    static let maximumPayload = 64 << 20
    /// The largest file a draft reads (256 MiB): a journal or snapshot above it is refused before it is read (a
    /// journal of 100,000 events is about 2 MiB; compaction keeps it far below). It bounds a restore's time; its
    /// memory is bounded by ``maximumPayload``.
    static let maximumFileSize = 256 << 20

    enum Kind: UInt8 {
        case journal = 1
        case snapshot = 2
    }

    struct Header: Equatable {
        var kind: Kind
        var base: UInt64
        var identity: UInt64
        /// The format version the file was written in (``header(_:)`` writes ``DraftFormat/version``).
        var version = DraftFormat.version
    }

    static func header(_ header: Header) -> [UInt8] {
        var bytes = signature
        append(UInt16(version), to: &bytes)
        bytes.append(header.kind.rawValue)
        bytes.append(0)
        append(header.base, to: &bytes)
        append(header.identity, to: &bytes)
        append(DraftChecksum.crc32(bytes), to: &bytes)
        return bytes
    }

    /// Appends the record framing `payload` as record `sequence` to `bytes`.
    static func appendRecord(sequence: UInt64, payload: [UInt8], to bytes: inout [UInt8]) {
        var sequenceBytes: [UInt8] = []
        append(sequence, to: &sequenceBytes)
        append(UInt32(payload.count), to: &bytes)
        append(DraftChecksum.crc32(payload, seed: DraftChecksum.crc32(sequenceBytes)), to: &bytes)
        bytes += sequenceBytes
        bytes += payload
    }

    static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }

    static func read<T: FixedWidthInteger>(_ type: T.Type, _ bytes: [UInt8], at offset: Int) -> T {
        var value: T = 0
        for index in 0..<MemoryLayout<T>.size { value |= T(bytes[offset + index]) << (8 * index) }
        return value
    }

    /// The header of `bytes`, the file at `path`. - Throws: `DraftError` when the file is empty, not a draft, of a
    ///   newer version, of the other kind, or its header is damaged.
    static func parseHeader(_ bytes: [UInt8], path: String, expecting kind: Kind) throws(DraftError) -> Header {
        guard !bytes.isEmpty else { throw .empty(path: path) }
        let prefix = min(bytes.count, signature.count)
        guard bytes[0..<prefix].elementsEqual(signature[0..<prefix]) else { throw .notADraft(path: path) }
        guard bytes.count >= headerSize else {
            throw .corrupt(path: path, reason: "the header is cut short (\(bytes.count) of \(headerSize) bytes)")
        }
        // The checksum first: it covers the version, so a damaged version byte is damage, never "a newer
        // version". Every version keeps this 32-byte header with its checksum over the first 28 bytes.
        guard read(UInt32.self, bytes, at: 28) == DraftChecksum.crc32(bytes[0..<28]) else {
            throw .corrupt(path: path, reason: "the header's checksum does not match")
        }
        let found = Int(read(UInt16.self, bytes, at: 8))
        guard found <= version else { throw .newerVersion(path: path, found: found, supported: version) }
        guard found >= 1 else { throw .corrupt(path: path, reason: "format version 0 does not exist") }
        guard let foundKind = Kind(rawValue: bytes[10]) else {
            throw .corrupt(path: path, reason: "unknown file kind \(bytes[10])")
        }
        guard foundKind == kind else {
            throw .corrupt(
                path: path,
                reason: "it is a \(foundKind == .journal ? "journal" : "snapshot") where a "
                    + "\(kind == .journal ? "journal" : "snapshot") was expected")
        }
        return Header(
            kind: foundKind, base: read(UInt64.self, bytes, at: 12), identity: read(UInt64.self, bytes, at: 20),
            version: found)
    }

    /// One record found in a file.
    struct Record: Equatable {
        let sequence: UInt64
        let payload: ArraySlice<UInt8>
    }

    /// What follows the last whole record of a file.
    enum Tail: Equatable {
        /// Nothing: the file ends with a whole record.
        case none
        /// Zeros only: space the file system gave the file whose data never arrived (a power loss). Nothing was lost
        /// that was ever written.
        case zeros
        /// A partial or damaged last record (a kill or a power loss in the middle of a write), no whole record after.
        case torn
        /// A damaged record followed by whole, checksummed ones: damage, not a torn write: `laterRecords` of them,
        /// the last numbered `lastLater`.
        case corrupt(laterRecords: Int, lastLater: UInt64)
    }

    /// The whole, checksummed record at `offset`, or nil when there is none (the end, a partial or a damaged one).
    static func record(in bytes: [UInt8], at offset: Int) -> Record? {
        guard bytes.count - offset >= recordHeaderSize else { return nil }
        let length = Int(read(UInt32.self, bytes, at: offset))
        guard length <= maximumPayload, length <= bytes.count - offset - recordHeaderSize else { return nil }
        let checksum = read(UInt32.self, bytes, at: offset + 4)
        let body = bytes[(offset + 8)..<(offset + recordHeaderSize + length)]
        guard DraftChecksum.crc32(body) == checksum else { return nil }
        return Record(
            sequence: read(UInt64.self, bytes, at: offset + 8), payload: body.dropFirst(8))
    }
}

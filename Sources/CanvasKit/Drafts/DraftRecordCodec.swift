import Foundation

/// The payload of a journal record: one `DraftEntry` in a compact form, written and read by hand because a restore
/// decodes every record since the snapshot (100,000 of them take a quarter of a second this way, 6x longer through
/// `Codable`'s generic containers).
///
/// Nothing an event carries can be left out silently: ``encode(_:into:)`` binds every associated value of every case
/// by position, so a value added to an event does not compile until it is written here (and read in ``decode(_:)``),
/// and `DraftTests` round-trips every case with every value set. The snapshot holds the board through `Codable`.
///
/// Form: a kind byte, then its values. 1 `tap`, 5 `delete`, 7 `remove`, 16 `undo`: the index (zigzag LEB128).
/// 2 `record`, 4 `cancel`, 6 `add`, 15 `resume`, 17 `disarmUndo`: nothing. 13 `stop`: the URL, then the start and
/// the duration (each the 8 bytes of a `Double`, little-endian). 8 a noted recording file: the URL. 9
/// `recordingStarted`: the host time (a `Double`). 10 `recordingFailed`: the problem's name (a string). 14
/// `recordingCutShort`: the problem's name, 0 or 1 and the file, then the start and the duration. 12 `tap` by
/// identity: the identity's raw number (LEB128). 18 `setSoundtrack`: 0, or 1, the URL, the start, the gain and 0 or
/// 1 for loops. 19 `setMicrophone`: 0 or 1. 20 `markMissing`: the index, then the URL. 21 `relink`: the index
/// (both from format version 3 on; a version 2 draft written by a library that had them holds them too, and reads the
/// same). A string is its UTF-8 length (LEB128) and its bytes. A URL is its
/// relative string, then 0, or 1 and its base URL (the form `URL`'s own `Codable` conformance keeps); or, for a file
/// inside the draft's root (`DraftRoot`, format version 2), its path below the root, then 2. Format version 1 wrote
/// `stop` as 3 (the URL and the start) and `recordingCutShort` as 11 (without the duration): they are still read,
/// with a duration of 0.
enum DraftRecordCodec {
    /// Why a payload that passed its checksum is not an entry.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Appends `entry` to `bytes`, with the URLs inside `root` written relative to it.
    static func encode(_ entry: DraftEntry, into bytes: inout [UInt8], root: DraftRoot? = nil) {
        switch entry {
        case .event(let event):
            switch event {
            case .tap(let index): integer(1, index, &bytes)
            case .record: bytes.append(2)
            case .stop(let url, let start, let duration):
                bytes.append(13)
                write(url, root, &bytes)
                write(start, &bytes)
                write(duration, &bytes)
            case .cancel: bytes.append(4)
            case .recordingStarted(let time):
                bytes.append(9)
                write(time.seconds, &bytes)
            case .recordingFailed(let problem):
                bytes.append(10)
                write(problem.rawValue, &bytes)
            case .recordingCutShort(let problem, let file, let start, let duration):
                bytes.append(14)
                write(problem.rawValue, &bytes)
                if let file {
                    bytes.append(1)
                    write(file, root, &bytes)
                } else {
                    bytes.append(0)
                }
                write(start, &bytes)
                write(duration, &bytes)
            case .delete(let index): integer(5, index, &bytes)
            case .add: bytes.append(6)
            case .remove(let index): integer(7, index, &bytes)
            case .tapCanvas(let id):
                bytes.append(12)
                DraftVarint.write(id.rawValue, into: &bytes)
            case .resume: bytes.append(15)
            case .undo(let index): integer(16, index, &bytes)
            case .disarmUndo: bytes.append(17)
            case .setSoundtrack(let soundtrack):
                bytes.append(18)
                if let soundtrack {
                    bytes.append(1)
                    write(soundtrack.url, root, &bytes)
                    write(soundtrack.start, &bytes)
                    write(soundtrack.gain, &bytes)
                    bytes.append(soundtrack.loops ? 1 : 0)
                } else {
                    bytes.append(0)
                }
            case .setMicrophone(let isOn): bytes.append(contentsOf: [19, isOn ? 1 : 0])
            case .markMissing(let index, let url):
                integer(20, index, &bytes)
                write(url, root, &bytes)
            case .relink(let index): integer(21, index, &bytes)
            }
        case .recordingFile(let url):
            bytes.append(8)
            write(url, root, &bytes)
        }
    }

    private static func integer(_ kind: UInt8, _ value: Int, _ bytes: inout [UInt8]) {
        bytes.append(kind)
        let value = Int64(value)
        DraftVarint.write(UInt64(bitPattern: (value << 1) ^ (value >> 63)), into: &bytes)
    }

    private static func write(_ value: Double, _ bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes += $0 }
    }

    private static func write(_ url: URL, _ root: DraftRoot?, _ bytes: inout [UInt8]) {
        if let relative = root?.relativePath(of: url) {
            write(relative, &bytes)
            bytes.append(2)
            return
        }
        write(url.relativeString, &bytes)
        if let base = url.baseURL {
            bytes.append(1)
            write(base, root, &bytes)
        } else {
            bytes.append(0)
        }
    }

    private static func write(_ string: String, _ bytes: inout [UInt8]) {
        var string = string
        string.withUTF8 { utf8 in
            DraftVarint.write(UInt64(utf8.count), into: &bytes)
            bytes.append(contentsOf: utf8)
        }
    }

    /// The entry in `payload`, which must hold exactly one; URLs written relative to the root are resolved against
    /// `root`.
    static func decode(_ payload: ArraySlice<UInt8>, root: DraftRoot? = nil) throws(Failure) -> DraftEntry {
        var reader = Reader(bytes: payload, offset: payload.startIndex, root: root)
        let entry: DraftEntry
        let kind = try reader.byte()
        switch kind {
        case 1: entry = .event(.tap(try reader.integer()))
        case 2: entry = .event(.record)
        case 3:
            let url = try reader.url(depth: 0)
            entry = .event(.stop(url, start: try reader.double()))
        case 13:
            let url = try reader.url(depth: 0)
            let start = try reader.double()
            entry = .event(.stop(url, start: start, duration: try reader.double()))
        case 4: entry = .event(.cancel)
        case 5: entry = .event(.delete(try reader.integer()))
        case 6: entry = .event(.add)
        case 7: entry = .event(.remove(try reader.integer()))
        case 8: entry = .recordingFile(try reader.url(depth: 0))
        case 9: entry = .event(.recordingStarted(at: HostTime(seconds: try reader.double())))
        case 10: entry = .event(.recordingFailed(try reader.problem()))
        case 11, 14:
            let problem = try reader.problem()
            let file = try reader.flag("a cut-short's file marker") ? try reader.url(depth: 0) : nil
            let start = try reader.double()
            let duration = kind == 14 ? try reader.double() : 0
            entry = .event(.recordingCutShort(problem, file: file, start: start, duration: duration))
        case 12: entry = .event(.tapCanvas(CanvasID(rawValue: try reader.varint())))
        case 15: entry = .event(.resume)
        case 16: entry = .event(.undo(try reader.integer()))
        case 17: entry = .event(.disarmUndo)
        case 18:
            entry = .event(.setSoundtrack(try reader.flag("a soundtrack's marker") ? try reader.soundtrack() : nil))
        case 19: entry = .event(.setMicrophone(try reader.flag("a microphone setting")))
        case 20:
            let index = try reader.integer()
            entry = .event(.markMissing(index, try reader.url(depth: 0)))
        case 21: entry = .event(.relink(try reader.integer()))
        default: throw Failure(description: "unknown entry kind \(kind)")
        }
        guard reader.offset == payload.endIndex else { throw Failure(description: "bytes after the entry") }
        return entry
    }

    private struct Reader {
        let bytes: ArraySlice<UInt8>
        var offset: Int
        let root: DraftRoot?

        mutating func byte() throws(Failure) -> UInt8 {
            guard offset < bytes.endIndex else { throw Failure(description: "the entry is cut short") }
            offset += 1
            return bytes[offset - 1]
        }

        mutating func varint() throws(Failure) -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let byte = try byte()
                guard shift < 63 || (shift == 63 && byte <= 1) else {
                    throw Failure(description: "a number is too large")
                }
                value |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return value }
                shift += 7
            }
        }

        mutating func integer() throws(Failure) -> Int {
            let raw = try varint()
            let value = Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
            guard let result = Int(exactly: value) else { throw Failure(description: "an index is too large") }
            return result
        }

        mutating func double() throws(Failure) -> Double {
            guard bytes.endIndex - offset >= 8 else { throw Failure(description: "the entry is cut short") }
            var pattern: UInt64 = 0
            for index in 0..<8 { pattern |= UInt64(bytes[offset + index]) << (8 * UInt64(index)) }
            offset += 8
            return Double(bitPattern: pattern)
        }

        mutating func string() throws(Failure) -> String {
            let count = try varint()
            guard count <= UInt64(bytes.endIndex - offset) else { throw Failure(description: "the entry is cut short") }
            let end = offset + Int(count)
            guard let string = String(validating: bytes[offset..<end], as: UTF8.self) else {
                throw Failure(description: "a string is not UTF-8")
            }
            offset = end
            return string
        }

        /// A byte that is 0 (false) or 1 (true); anything else is damage to `what`.
        mutating func flag(_ what: String) throws(Failure) -> Bool {
            switch try byte() {
            case 0: return false
            case 1: return true
            default: throw Failure(description: "\(what) is damaged")
            }
        }

        mutating func soundtrack() throws(Failure) -> Soundtrack {
            let url = try url(depth: 0)
            let start = try double()
            let gain = try double()
            guard start.isFinite, gain.isFinite, gain >= 0 else {
                throw Failure(description: "a soundtrack's start or gain is not a number it can have")
            }
            return Soundtrack(url: url, start: start, gain: gain, loops: try flag("a soundtrack's loop marker"))
        }

        mutating func problem() throws(Failure) -> RecorderProblem {
            let name = try string()
            guard let problem = RecorderProblem(rawValue: name) else {
                throw Failure(description: "unknown recorder problem '\(name)'")
            }
            return problem
        }

        /// A URL and its bases; a chain of bases deeper than a URL has is damage.
        mutating func url(depth: Int) throws(Failure) -> URL {
            guard depth < 8 else { throw Failure(description: "a URL's bases nest too deep") }
            let relative = try string()
            let base: URL?
            switch try byte() {
            case 0: base = nil
            case 1: base = try url(depth: depth + 1)
            case 2:
                guard let url = root?.url(relativePath: relative) else {
                    throw Failure(description: "'\(relative)' is not a path below the draft's root")
                }
                return url
            default: throw Failure(description: "a URL's base marker is damaged")
            }
            guard let url = URL(string: relative, relativeTo: base) else {
                throw Failure(description: "'\(relative)' is not a URL")
            }
            return url
        }
    }
}

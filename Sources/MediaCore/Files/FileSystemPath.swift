import Foundation

/// A file's path as the file system knows it: bytes, not text.
///
/// On Linux a file name is any sequence of bytes without `/` and NUL; it need not be UTF-8
/// (a Latin-1 `café` is `63 61 66 E9`, a name may hold `0xFF` or a line break). `String` and
/// Foundation's `URL` cannot carry such a name: both replace the bytes that are not UTF-8 with
/// U+FFFD, so the file can no longer be opened. This type keeps the bytes exactly and hands them
/// to the system calls unchanged.
///
/// For people and for JSON, ``escaped`` writes a path as one line of text, losslessly: see its
/// documentation for the scheme, and ``init(escaped:)`` for the way back.
public struct FileSystemPath: Sendable, Hashable, Comparable {
    /// The path's bytes, without a terminating NUL (and never containing one).
    public let bytes: [UInt8]

    /// The path spelled by `string` in UTF-8; anything from a NUL character on is dropped (no
    /// path can hold one).
    public init(_ string: String) {
        bytes = Array(string.utf8.prefix { $0 != 0 })
    }

    /// The path with exactly these bytes, or nil when they hold a NUL byte.
    public init?(bytes: some Sequence<UInt8>) {
        let bytes = Array(bytes)
        guard !bytes.contains(0) else { return nil }
        self.bytes = bytes
    }

    /// The path of a file URL, as the URL's file-system representation spells it.
    ///
    /// A URL cannot carry bytes that are not UTF-8 (Foundation replaces them when the URL is
    /// made), so a path made from one is only as exact as the URL; prefer the other
    /// initialisers for names read from the system or the command line.
    public init(_ url: URL) {
        bytes = url.withUnsafeFileSystemRepresentation { pointer in
            guard let pointer else { return Array(url.path.utf8) }
            return Array(
                UnsafeBufferPointer(
                    start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self),
                    count: strlen(pointer)))
        }
    }

    /// Bytes that are not NUL, already checked by the caller.
    package init(unchecked bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Whether the path starts at the root (`/`).
    public var isAbsolute: Bool { bytes.first == UInt8(ascii: "/") }

    /// Whether the bytes are valid UTF-8, so that ``string`` is exact.
    public var isValidUTF8: Bool { String(validating: bytes, as: UTF8.self) != nil }

    /// The path as text: exact when the bytes are UTF-8, otherwise with each invalid byte
    /// replaced by U+FFFD (lossy: use ``escaped`` to show it, and the path itself to open it).
    public var string: String { String(decoding: bytes, as: UTF8.self) }

    /// The bytes of the last component (`clip.mp4` of `a/b/clip.mp4`; empty for `/` or an
    /// empty path), trailing slashes ignored.
    public var lastComponent: [UInt8] {
        let trimmed = trimmingTrailingSlashes
        guard let slash = trimmed.lastIndex(of: UInt8(ascii: "/")) else { return Array(trimmed) }
        return Array(trimmed[(slash + 1)...])
    }

    /// The folder holding the last component: `a/b` for `a/b/clip.mp4`, `/` for `/clip.mp4`,
    /// `.` for a bare name.
    public var directory: FileSystemPath {
        let trimmed = trimmingTrailingSlashes
        guard let slash = trimmed.lastIndex(of: UInt8(ascii: "/")) else { return FileSystemPath(".") }
        var end = slash
        while end > trimmed.startIndex, trimmed[end - 1] == UInt8(ascii: "/") { end -= 1 }
        return end == trimmed.startIndex ? FileSystemPath("/") : FileSystemPath(unchecked: Array(trimmed[..<end]))
    }

    /// This path with `name` (one component: no `/`, no NUL) added below it.
    public func appending(component name: [UInt8]) -> FileSystemPath {
        precondition(!name.contains(0) && !name.contains(UInt8(ascii: "/")), "a component holds no / or NUL")
        if bytes.isEmpty { return FileSystemPath(unchecked: name) }
        return FileSystemPath(
            unchecked: bytes.last == UInt8(ascii: "/") ? bytes + name : bytes + [UInt8(ascii: "/")] + name)
    }

    /// The last component's extension, lowercased (ASCII letters only), without the dot; empty
    /// when there is none (`clip`, `.hidden`).
    public var pathExtension: String {
        let name = lastComponent
        guard let dot = name.lastIndex(of: UInt8(ascii: ".")), dot > name.startIndex else { return "" }
        return String(decoding: name[(dot + 1)...].map(Self.asciiLowercased), as: UTF8.self)
    }

    /// The last component without its extension (`clip` of `a/clip.mp4`).
    public var stem: [UInt8] {
        let name = lastComponent
        guard let dot = name.lastIndex(of: UInt8(ascii: ".")), dot > name.startIndex else { return name }
        return Array(name[..<dot])
    }

    /// Calls `body` with the path as a NUL-terminated C string, for a system call (valid only
    /// during the call).
    public func withCString<Result, Failure: Error>(
        _ body: (UnsafePointer<CChar>) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let characters = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
        defer { characters.deallocate() }
        bytes.withUnsafeBytes { raw in
            UnsafeMutableRawBufferPointer(start: characters, count: bytes.count).copyMemory(from: raw)
        }
        characters[bytes.count] = 0
        return try body(characters)
    }

    /// Orders paths by their bytes (for UTF-8 names, the order of their Unicode scalars).
    public static func < (lhs: FileSystemPath, rhs: FileSystemPath) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }

    private var trimmingTrailingSlashes: ArraySlice<UInt8> {
        var trimmed = bytes[...]
        while trimmed.count > 1, trimmed.last == UInt8(ascii: "/") { trimmed = trimmed.dropLast() }
        return trimmed
    }

    package static func asciiLowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }
}

extension FileSystemPath: CustomStringConvertible {
    /// The ``escaped`` form.
    public var description: String { escaped }
}

// MARK: Escaping

extension FileSystemPath {
    /// The path as one line of text that gives back its exact bytes: percent-escaping, as in URLs.
    ///
    /// - `%` is written `%25`;
    /// - each byte that is not part of a valid UTF-8 character is written `%XX` (two uppercase
    ///   hexadecimal digits): Latin-1 `café` is `caf%E9`, a `0xFF` byte is `%FF`;
    /// - control characters (U+0000-U+001F, U+007F: a line break, a tab) are written `%XX`, so
    ///   a path never breaks the line it is printed on;
    /// - every other character is written as itself.
    ///
    /// So a UTF-8 name without `%` or control characters (nearly every name) is printed
    /// unchanged, and any name can be recovered exactly by percent-decoding: ``init(escaped:)``,
    /// Python's `urllib.parse.unquote_to_bytes`, or any URL library's percent-decoder.
    public var escaped: String {
        var text = ""
        text.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let length = Self.utf8SequenceLength(in: bytes, at: index)
            if length == 0 {
                Self.appendEscape(bytes[index], to: &text)
                index += 1
                continue
            }
            let character = bytes[index..<(index + length)]
            if length == 1, let byte = character.first, byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: "%") {
                Self.appendEscape(byte, to: &text)
            } else {
                text += String(decoding: character, as: UTF8.self)
            }
            index += length
        }
        return text
    }

    /// The path as a JSON string carries it: the exact characters of a name that is valid UTF-8 (a control character
    /// such as a line break is escaped by JSON itself, `\n` or `\u0001`, and decodes back exactly; a `%` is itself),
    /// and ``escaped`` (percent-encoded) only for a name that is not valid UTF-8.
    package var jsonText: String { isValidUTF8 ? string : escaped }

    /// The path an ``escaped`` text stands for: each `%XX` becomes the byte XX, everything else
    /// its UTF-8 bytes. Nil when a `%` is not followed by two hexadecimal digits or the result
    /// holds a NUL byte.
    public init?(escaped text: String) {
        var bytes: [UInt8] = []
        let utf8 = Array(text.utf8)
        var index = 0
        while index < utf8.count {
            guard utf8[index] == UInt8(ascii: "%") else {
                bytes.append(utf8[index])
                index += 1
                continue
            }
            guard index + 2 < utf8.count, let high = Self.hexValue(utf8[index + 1]),
                let low = Self.hexValue(utf8[index + 2])
            else { return nil }
            bytes.append(high << 4 | low)
            index += 3
        }
        self.init(bytes: bytes)
    }

    private static func appendEscape(_ byte: UInt8, to text: inout String) {
        let digits = Array("0123456789ABCDEF".utf8)
        text += "%"
        text.unicodeScalars.append(Unicode.Scalar(digits[Int(byte >> 4)]))
        text.unicodeScalars.append(Unicode.Scalar(digits[Int(byte & 0x0F)]))
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }

    /// The length of the well-formed UTF-8 character starting at `index` (1-4), or 0 when the
    /// byte there does not start one (a stray continuation byte, an overlong form, a surrogate,
    /// a code point above U+10FFFF, a sequence cut short).
    package static func utf8SequenceLength(in bytes: [UInt8], at index: Int) -> Int {
        let first = bytes[index]
        let length: Int
        var lower: UInt8 = 0x80
        var upper: UInt8 = 0xBF
        switch first {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            lower = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            upper = 0x9F
        case 0xF0:
            length = 4
            lower = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            upper = 0x8F
        default: return 0
        }
        guard index + length <= bytes.count else { return 0 }
        guard (lower...upper).contains(bytes[index + 1]) else { return 0 }
        for offset in 2..<max(2, length) where !(0x80...0xBF).contains(bytes[index + offset]) { return 0 }
        return length
    }
}

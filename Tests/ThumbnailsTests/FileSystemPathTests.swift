import Foundation
import Testing
import Thumbnails

@Suite("FileSystemPath: paths as bytes, printed losslessly")
struct FileSystemPathTests {
    @Test(
        "escaping keeps UTF-8 names as they are and writes %, control characters and invalid bytes as %XX",
        arguments: [
            (Array("clip.mp4".utf8), "clip.mp4"),
            (Array("Dämmerung 日本.mov".utf8), "Dämmerung 日本.mov"),
            (Array("caf".utf8) + [0xE9] + Array(".mp4".utf8), "caf%E9.mp4"),
            ([0x61, 0xFF, 0x62], "a%FFb"),
            (Array("new\nline\t.mp4".utf8), "new%0Aline%09.mp4"),
            (Array("100%.mp4".utf8), "100%25.mp4"),
            ([0xE6, 0x97], "%E6%97"),  // a character cut short
            ([0xED, 0xA0, 0x80], "%ED%A0%80"),  // a surrogate, which UTF-8 may not encode
            ([0xC0, 0xAF], "%C0%AF"),  // an overlong "/"
        ])
    func escaping(bytes: [UInt8], escaped: String) throws {
        let path = try #require(FileSystemPath(bytes: bytes))
        #expect(path.escaped == escaped)
        #expect(FileSystemPath(escaped: escaped) == path, "percent-decoding gives the bytes back")
        #expect(!path.escaped.contains("\n"))
    }

    @Test("every byte sequence survives escaping and unescaping")
    func roundTripOfEveryPair() {
        for first in UInt8(1)...255 {
            for second in [UInt8(0x25), 0x41, 0x80, 0xBF, 0xC3, 0xFF] {
                let path = FileSystemPath(bytes: [first, second, 0xA9])!
                #expect(FileSystemPath(escaped: path.escaped) == path, "\(first) \(second)")
            }
        }
    }

    @Test("malformed escapes and NUL bytes are refused")
    func refusals() {
        #expect(FileSystemPath(escaped: "a%4") == nil)
        #expect(FileSystemPath(escaped: "a%zz") == nil)
        #expect(FileSystemPath(escaped: "a%00") == nil)
        #expect(FileSystemPath(bytes: [0x61, 0]) == nil)
    }

    @Test("components, folders and extensions work on bytes")
    func components() throws {
        let path = try #require(FileSystemPath(bytes: Array("dir/sub/caf".utf8) + [0xE9] + Array(".MP4".utf8)))
        #expect(path.lastComponent == Array("caf".utf8) + [0xE9] + Array(".MP4".utf8))
        #expect(path.stem == Array("caf".utf8) + [0xE9])
        #expect(path.pathExtension == "mp4")
        #expect(path.directory == FileSystemPath("dir/sub"))
        #expect(FileSystemPath("clip.mp4").directory == FileSystemPath("."))
        #expect(FileSystemPath("/clip.mp4").directory == FileSystemPath("/"))
        #expect(FileSystemPath("a//b/").lastComponent == Array("b".utf8))
        #expect(FileSystemPath(".hidden").pathExtension == "")
        #expect(FileSystemPath("out/").appending(component: Array("x.png".utf8)) == FileSystemPath("out/x.png"))
        #expect(FileSystemPath("out").appending(component: [0xFF]).bytes == Array("out/".utf8) + [0xFF])
        #expect(FileSystemPath(URL(fileURLWithPath: "/tmp/a b.mp4")) == FileSystemPath("/tmp/a b.mp4"))
    }
}

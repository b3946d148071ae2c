import Foundation
import TestSupport
import Testing

@testable import MediaCore
@testable import Thumbnails

@Suite("Typed errors for inputs that are not describable videos")
struct ThumbnailErrorTests {
    /// Describes `url`, requires a `ThumbnailError` of `kind`, and returns it.
    func failure(
        _ url: URL,
        _ kind: ThumbnailError.Kind,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> ThumbnailError {
        let error = try #require(
            throws: ThumbnailError.self, sourceLocation: sourceLocation
        ) {
            try MediaDescription(contentsOf: url)
        }
        #expect(error.kind == kind, "\(error.reason)", sourceLocation: sourceLocation)
        let lines = error.reason.split(whereSeparator: \.isNewline)
        #expect(lines.count == 1, sourceLocation: sourceLocation)
        #expect(error.reason.contains(url.lastPathComponent), sourceLocation: sourceLocation)
        return error
    }

    @Test("an audio-only file has no video stream, and the reason says what it has")
    func audioOnly() throws {
        let error = try failure(Fixtures.url("audio-only.m4a"), .noVideoStream)
        #expect(error.reason.contains("audio (aac)"))
    }

    @Test("an empty file is reported as empty before FFmpeg sees it")
    func empty() throws {
        let error = try failure(Fixtures.url("empty.mp4"), .notAMediaFile)
        #expect(error.reason.contains("empty"))
    }

    @Test("a missing file is not found")
    func missing() throws {
        let error = try failure(Fixtures.url("no-such-file.mp4"), .fileNotFound)
        #expect(error.reason.contains("no such file"))
    }

    @Test("a text file named .mp4 is not a media file, with FFmpeg's reason")
    func textFile() throws {
        let error = try failure(Fixtures.url("not-a-video.mp4"), .notAMediaFile)
        #expect(error.reason.contains(FFmpegError.invalidData.message))
    }

    @Test("an MP4 cut in half before its index (moov at the end) is a damaged or truncated file")
    func truncatedIndexAtEnd() throws {
        // Without the moov box FFmpeg cannot find any stream: "moov atom not found", which
        // avformat_open_input returns as invalid data. Its start is an MP4's, so it is damaged, not something else.
        let error = try failure(Fixtures.url("truncated-index-at-end.mp4"), .decodeFailed)
        #expect(error.reason.hasPrefix(Fixtures.url("truncated-index-at-end.mp4").path + ": damaged or truncated file"))
        #expect(error.reason.contains(FFmpegError.invalidData.message))
        // The demuxer's own log line is routed into the reason.
        #expect(error.reason.contains("moov atom not found"))
    }

    /// `h264.mp4` with the sample description's codec code (`avc1`, its last occurrence: the first is a brand in
    /// `ftyp`) replaced by `code`.
    private func withCodecCode(_ code: [UInt8], in folder: TemporaryFolder) throws -> URL {
        var bytes = [UInt8](try Data(contentsOf: Fixtures.url("h264.mp4")))
        let avc1 = Array("avc1".utf8)
        let at = try #require((0...(bytes.count - 4)).last { Array(bytes[$0..<($0 + 4)]) == avc1 })
        bytes.replaceSubrange(at..<(at + 4), with: code)
        let url = folder.url.appending(path: "coded.mp4")
        try Data(bytes).write(to: url)
        return url
    }

    @Test("a video stream naming no codec (bytes that are no code) is damaged, not an unsupported codec")
    func codecNamedByNoCode() throws {
        let folder = try TemporaryFolder()
        let url = try withCodecCode([0x00, 0x13, 0x37, 0x00], in: folder)
        let error = try failure(url, .decodeFailed)
        #expect(error.reason == "\(url.path): damaged or truncated file (its video stream names no codec)")
    }

    @Test("a codec code FFmpeg does not know is an unsupported codec, named")
    func unknownCodecCode() throws {
        let folder = try TemporaryFolder()
        let url = try withCodecCode(Array("zzzz".utf8), in: folder)
        let error = try failure(url, .unsupportedCodec)
        #expect(error.reason == "\(url.path): unsupported codec 'zzzz' (a codec FFmpeg does not know)")
    }

    @Test("a directory is not a media file")
    func directory() throws {
        let folder = try TemporaryFolder()
        let inner = folder.url.appending(path: "clip.mp4", directoryHint: .isDirectory)
        try FileManager.default.createDirectory(at: inner, withIntermediateDirectories: false)
        let error = try failure(inner, .notAMediaFile)
        #expect(error.reason.contains("directory"))
    }

    @Test("a URL that is not a file URL is an invalid argument")
    func notAFileURL() throws {
        let url = try #require(URL(string: "https://example.com/clip.mp4"))
        _ = try failure(url, .invalidArgument)
    }

    @Test(
        "a file without read permission is not readable",
        .enabled(if: geteuid() != 0, "root reads any file regardless of its mode")
    )
    func unreadable() throws {
        let folder = try TemporaryFolder()
        let copy = folder.url.appending(path: "locked.mp4")
        try FileManager.default.copyItem(at: Fixtures.url("h264.mp4"), to: copy)
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: copy.path)
        _ = try failure(copy, .notReadable)
    }

    @Test("reasons are forced onto one line")
    func oneLine() {
        let error = ThumbnailError(.decodeFailed, reason: "first\nsecond\r\nthird")
        #expect(error.reason == "first second third")
        #expect(error.description == error.reason)
    }

    @Test("FFmpeg's codes keep their raw value and carry FFmpeg's message")
    func ffmpegCodes() {
        #expect(FFmpegError.endOfFile.message == "End of file")
        #expect(FFmpegError.tryAgain.message == "Resource temporarily unavailable")
        #expect(FFmpegError.noSuchFile.message == "No such file or directory")
        #expect(FFmpegError.invalidData.code < 0)
        let distinct: Set<FFmpegError> = [
            .endOfFile, .tryAgain, .invalidData, .streamNotFound, .decoderNotFound, .encoderNotFound,
            .demuxerNotFound, .exit, .outOfMemory, .noSuchFile, .permissionDenied, .isDirectory, .invalidArgument,
        ]
        #expect(distinct.count == 13)
        #expect(FFmpegError(code: -123_456).message.contains("123456"))
        var logged = FFmpegError.invalidData
        logged.loggedLines = ["moov atom not found"]
        #expect(logged == .invalidData)
        #expect(logged.message == "Invalid data found when processing input (moov atom not found)")
    }
}

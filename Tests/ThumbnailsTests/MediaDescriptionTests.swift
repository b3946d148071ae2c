import Foundation
import TestSupport
import Testing

@testable import MediaCore
@testable import Thumbnails

/// What one fixture claims to be (see Fixtures/README.md).
struct FixtureClaim: Sendable, CustomTestStringConvertible {
    var file: String
    var container: String
    var codec: String
    var frameSize: PixelSize
    var displaySize: PixelSize
    var pixelAspectRatio = Rational(numerator: 1, denominator: 1)
    var rotation = 0
    var frameRate: Rational? = Rational(numerator: 25, denominator: 1)
    var duration: Double
    var startTime: Double = 0
    var bitsPerComponent = 8
    var videoStreamIndex = 0

    var testDescription: String { file }
}

let mp4 = "mov,mp4,m4a,3gp,3g2,mj2"
let small = PixelSize(width: 320, height: 180)
let smallTurned = PixelSize(width: 180, height: 320)

let claims: [FixtureClaim] = [
    FixtureClaim(
        file: "h264.mp4", container: mp4, codec: "h264", frameSize: small, displaySize: small, duration: 2),
    FixtureClaim(
        file: "hevc.mp4", container: mp4, codec: "hevc", frameSize: small, displaySize: small, duration: 2),
    FixtureClaim(
        file: "vp9.webm", container: "matroska,webm", codec: "vp9", frameSize: small, displaySize: small,
        duration: 2),
    FixtureClaim(
        file: "mpeg4.avi", container: "avi", codec: "mpeg4", frameSize: small, displaySize: small, duration: 2),
    FixtureClaim(
        file: "rotation-minus90.mp4", container: mp4, codec: "h264", frameSize: small, displaySize: smallTurned,
        rotation: 90, duration: 2),
    FixtureClaim(
        file: "rotation-180.mp4", container: mp4, codec: "h264", frameSize: small, displaySize: small,
        rotation: 180, duration: 2),
    FixtureClaim(
        file: "rotation-90.mp4", container: mp4, codec: "h264", frameSize: small, displaySize: smallTurned,
        rotation: 270, duration: 2),
    FixtureClaim(
        file: "black-first-second.mp4", container: mp4, codec: "h264", frameSize: small, displaySize: small,
        duration: 3),
    FixtureClaim(
        file: "one-frame.mp4", container: mp4, codec: "h264", frameSize: small, displaySize: small,
        duration: 0.04),
    FixtureClaim(
        file: "hevc-10bit.mp4", container: mp4, codec: "hevc", frameSize: small, displaySize: small,
        duration: 2, bitsPerComponent: 10),
    FixtureClaim(
        file: "offset-timestamps.ts", container: "mpegts", codec: "h264", frameSize: small, displaySize: small,
        duration: 2, startTime: 11.4),
    FixtureClaim(
        file: "anamorphic.mp4", container: mp4, codec: "h264", frameSize: PixelSize(width: 240, height: 180),
        displaySize: small, pixelAspectRatio: Rational(numerator: 4, denominator: 3), duration: 2),
    // Cut in half after a +faststart remux: the index at the front survives and still describes
    // all three seconds; only decoding finds the missing second half.
    FixtureClaim(
        file: "truncated-index-at-front.mp4", container: mp4, codec: "h264", frameSize: small,
        displaySize: small, duration: 3),
]

@Suite("Describing media files")
struct MediaDescriptionTests {
    @Test("every video fixture is what it claims", arguments: claims)
    func fixtureClaims(_ claim: FixtureClaim) throws {
        let media = try MediaDescription(contentsOf: Fixtures.url(claim.file))
        #expect(media.containerFormat == claim.container)
        #expect(media.codecName == claim.codec)
        #expect(media.frameSize == claim.frameSize)
        #expect(media.displaySize == claim.displaySize)
        #expect(media.pixelAspectRatio == claim.pixelAspectRatio)
        #expect(media.rotation == claim.rotation)
        #expect(media.frameRate == claim.frameRate)
        #expect(media.bitsPerComponent == claim.bitsPerComponent)
        #expect(media.videoStreamIndex == claim.videoStreamIndex)
        #expect(media.isAttachedPicture == false)
        let duration = try #require(media.duration)
        #expect(abs(duration - claim.duration) < 0.1, "duration \(duration) s, claimed \(claim.duration) s")
        let startTime = try #require(media.startTime)
        #expect(abs(startTime - claim.startTime) < 0.1, "start \(startTime) s, claimed \(claim.startTime) s")
    }

    @Test("the 10-bit clip reports its pixel format")
    func tenBitPixelFormat() throws {
        let media = try MediaDescription(contentsOf: Fixtures.url("hevc-10bit.mp4"))
        #expect(media.pixelFormatName == "yuv420p10le")
        let eightBit = try MediaDescription(contentsOf: Fixtures.url("hevc.mp4"))
        #expect(eightBit.pixelFormatName == "yuv420p")
    }

    @Test("the video stream is chosen over an audio stream listed next to it")
    func videoAmongAudio() throws {
        // h264.mp4 holds H.264 video and AAC audio.
        let media = try MediaDescription(contentsOf: Fixtures.url("h264.mp4"))
        #expect(media.codecName == "h264")
    }

    @Test("a file name with a colon is read as a file, not as a protocol")
    func colonInFileName() throws {
        let folder = try TemporaryFolder()
        let copy = folder.url.appending(path: "take:1.mp4")
        try FileManager.default.copyItem(at: Fixtures.url("h264.mp4"), to: copy)
        let media = try MediaDescription(contentsOf: copy)
        #expect(media.codecName == "h264")
    }

    @Test("descriptions from many tasks at once agree")
    func concurrentDescriptions() async throws {
        let names = claims.map(\.file)
        let described = try await withThrowingTaskGroup(of: (String, String).self) { group in
            for round in 0..<4 {
                for name in names {
                    group.addTask {
                        let media = try MediaDescription(contentsOf: Fixtures.url(name))
                        return ("\(round) \(name)", media.codecName)
                    }
                }
            }
            var results: [String: String] = [:]
            for try await (key, codec) in group { results[key] = codec }
            return results
        }
        #expect(described.count == names.count * 4)
        for claim in claims {
            #expect(described["3 \(claim.file)"] == claim.codec)
        }
    }

    @Test(
        "display-matrix angles become clockwise quarter turns",
        arguments: [
            (0.0, 0), (-90.0, 90), (90.0, 270), (180.0, 180), (-180.0, 180), (-89.6, 90), (44.0, 0),
            (46.0, 270), (Double.nan, 0),
        ] as [(Double, Int)]
    )
    func quarterTurns(counterclockwise: Double, clockwise: Int) {
        #expect(MediaDescription.clockwiseQuarterTurns(fromCounterclockwise: counterclockwise) == clockwise)
    }
}

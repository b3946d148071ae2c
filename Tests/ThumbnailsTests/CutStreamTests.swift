import Foundation
import TestSupport
import Testing
import Thumbnails

/// Streams cut between keyframes, as phones, editors and recorders write them: the first-frame cover is what the file
/// shows first, as the ffmpeg CLI shows it.
@Suite("First-frame covers of streams cut between keyframes")
struct CutStreamTests {
    let scratch: TemporaryFolder

    init() throws {
        scratch = try TemporaryFolder(prefix: "CutStreamTests")
    }

    /// Runs the ffmpeg command with `arguments` (quiet, overwriting).
    static func ffmpeg(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(filePath: "/usr/bin/env")
        process.arguments = ["ffmpeg", "-v", "error", "-nostdin", "-y"] + arguments
        try process.run()
        process.waitUntilExit()
        struct Failed: Error {}
        guard process.terminationStatus == 0 else { throw Failed() }
    }

    @Test(
        "an edit list starting mid-GOP (a stream copy cut at 0.6 s): the frame at the edit's start, not the next keyframe"
    )
    func editListStartingMidGOP() throws {
        // h264.mp4 has keyframes at 0 and 1 s: the copy keeps the packets from 0 s and its edit list hides 0-0.6 s.
        let cut = scratch.url.appending(path: "cut.mov")
        try Self.ffmpeg(["-ss", "0.6", "-i", Fixtures.url("h264.mp4").path, "-an", "-c", "copy", cut.path])
        let cover = try CoverGenerator().makeCover(for: cut)
        #expect(abs(cover.actualTime) < 0.001, "the first frame shown, not the keyframe at 0.4 s: \(cover.actualTime)")
    }

    @Test("an MPEG-TS cut mid-GOP: the first decodable frame, not a failure")
    func transportStreamCutMidGOP() throws {
        let whole = scratch.url.appending(path: "whole.ts")
        try Self.ffmpeg([
            "-i", Fixtures.url("h264.mp4").path, "-an", "-c", "copy", "-bsf:v", "h264_mp4toannexb", "-f", "mpegts",
            whole.path,
        ])
        // From a packet boundary three eighths in: the first video packets are not keyframes and do not decode.
        let bytes = try Data(contentsOf: whole)
        let start = bytes.count * 3 / 8 / 188 * 188
        let cut = scratch.url.appending(path: "cut.ts")
        try bytes.suffix(from: start).write(to: cut)
        let cover = try CoverGenerator().makeCover(for: cut)
        #expect(cover.isKeyframe)
        #expect(cover.actualTime > 0, "the first decodable frame comes after the undecodable ones")
        // An exact time in the same file gave a cover before too; the first frame now agrees with it.
        let later = try CoverGenerator().makeCover(for: cut, options: CoverOptions(time: .seconds(1)))
        #expect(later.actualTime >= cover.actualTime)
    }
}

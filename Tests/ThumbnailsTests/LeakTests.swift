import Foundation
import Locking
import TestSupport
import Testing

@testable import MediaCore
@testable import Thumbnails

@Suite("No leaks: memory stays flat over many covers")
struct LeakTests {
    /// Resident memory in bytes, from /proc/self/statm (Linux); nil elsewhere.
    static func residentBytes() -> Int? {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = statm.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    @Test(
        "1,000 covers (files, memory, exact, skip-dark, PNG and JPEG) leave resident memory flat",
        .enabled(if: residentBytes() != nil, "needs /proc/self/statm")
    )
    func flat() throws {
        let generator = CoverGenerator()
        let url = Fixtures.url("h264.mp4")
        let data = try Data(contentsOf: url)
        let small = PixelSize(width: 32, height: 32)
        func round(_ index: Int) throws {
            var options = CoverOptions(maximumSize: small)
            switch index % 4 {
            case 1: options = CoverOptions(maximumSize: small, time: .seconds(0.2)).exact()
            case 2: options.skipsDarkFrames = true
            default: break
            }
            let image =
                index % 5 == 0
                ? try generator.makeCover(from: data, name: "h264.mp4", options: options)
                : try generator.makeCover(for: url, options: options)
            _ = try image.encoded(as: index % 2 == 0 ? .png : .jpeg)
            // A failure path too: its resources must be freed as well.
            if index % 10 == 0 {
                #expect(throws: ThumbnailError.self) { try generator.makeCover(for: Fixtures.url("audio-only.m4a")) }
            }
        }
        for index in 0..<100 { try round(index) }
        let tracker = Thumbnails.LifetimeTracker()
        let before = try #require(Self.residentBytes())
        try Thumbnails.LifetimeTracker.$current.withValue(tracker) {
            for index in 0..<1000 { try round(index) }
        }
        let after = try #require(Self.residentBytes())
        // Every FFmpeg owner this test's covers created was freed (exact: other suites running
        // at the same time are not counted).
        #expect(tracker.live.isEmpty, "still alive: \(tracker.live)")
        #expect(tracker.typesSeen == ["FormatContext", "MemoryIO", "Decoder", "Packet", "Frame", "Scaler"])
        // And nothing leaked below them, inside FFmpeg: a leaked 320x180 frame per cover would
        // be 86 MB, a leaked decoder far more. Alone this grows by 0 KB. The resident size is the
        // whole process's, so it says something about this test only when no other suite runs
        // beside it: the suites that decode many videos at once (the real-world differential suite,
        // the batch and worker tests) grew it by 74 MB in a release run with the exact check above
        // clean, and ThreadSanitizer's shadow memory grows with every suite. So the bound is checked
        // when Tools/test.sh runs this suite alone (MULTICANVAS_RESIDENT_CHECK=1), not ThreadSanitizer.
        let growth = after - before
        if ProcessInfo.processInfo.environment["MULTICANVAS_RESIDENT_CHECK"] != nil, !ThreadSanitizer.isActive {
            #expect(growth < 48 << 20, "resident memory grew by \(growth / 1024) KB over 1,000 covers")
        }
    }
}

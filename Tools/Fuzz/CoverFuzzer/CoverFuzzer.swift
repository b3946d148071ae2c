import Foundation
import Thumbnails

// libFuzzer entry point for the in-memory cover path (`CoverGenerator.makeCover(from:)`), built only by
// Tools/fuzz-covers.sh (`MULTICANVAS_FUZZ=1 swift build --sanitize fuzzer -Xswiftc -sanitize=fuzzer,address`).
//
// Every input must end in a cover or a `ThumbnailError` with a one-line reason: a crash, a sanitizer report, a hang
// (libFuzzer's -timeout) or a memory blow-up (-rss_limit_mb) is a finding. The options vary with the input's length,
// so one corpus exercises the keyframe path, the exact path, the last frame and skip-dark.

/// The generator every input goes through (it holds no open files, only its cancellation epoch).
private let generator = CoverGenerator()

/// The options for an input of `count` bytes.
private func options(forInputOf count: Int) -> CoverOptions {
    var options = CoverOptions(maximumSize: PixelSize(width: 160, height: 120))
    switch count % 4 {
    case 0: break  // the keyframe at the start
    case 1: options = CoverOptions(maximumSize: options.maximumSize, time: .fraction(0.5)).exact()
    case 2: options.time = .fraction(1)
    default:
        options.skipsDarkFrames = true
        options.pixelFormat = .rgba
    }
    return options
}

/// libFuzzer calls this once per input: the bytes go to `makeCover(from:)`; returns 0 (the input is kept or not by
/// coverage alone).
@_cdecl("LLVMFuzzerTestOneInput")
public func coverFuzzerTestOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    do {
        let cover = try generator.makeCover(from: data, name: "input", options: options(forInputOf: count))
        // A cover is a real picture: its pixels fill exactly its rows.
        precondition(cover.width > 0 && cover.height > 0, "empty cover \(cover.width)x\(cover.height)")
        precondition(cover.pixels.count == cover.bytesPerRow * cover.height, "pixel buffer size mismatch")
        precondition(cover.width <= 160 && cover.height <= 120, "cover \(cover.width)x\(cover.height) exceeds 160x120")
    } catch {
        precondition(!error.reason.isEmpty && !error.reason.contains("\n"), "not a one-line reason: \(error.reason)")
    }
    return 0
}

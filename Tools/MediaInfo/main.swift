// media-info: prints what MultiCanvas's Thumbnails module reads from media files, one line per file.
// A development tool (the README's demo and a quick check of a fixture): `swift run media-info FILE...`.
// Exit codes: 0 when every file was described, 1 when some failed (each with its one-line reason), 2 usage.
import Foundation
import Thumbnails

let paths = CommandLine.arguments.dropFirst()
guard !paths.isEmpty, !paths.contains(where: { $0 == "-h" || $0 == "--help" }) else {
    FileHandle.standardError.write(Data("usage: media-info FILE...\n".utf8))
    exit(paths.isEmpty ? 2 : 0)
}

var failures = 0
for path in paths {
    let name = (path as NSString).lastPathComponent
    do {
        let media = try MediaDescription(contentsOf: URL(fileURLWithPath: path))
        let duration = media.duration.map { String(format: "%.2f s", $0) } ?? "unknown duration"
        let rate =
            media.frameRate.map { String(format: "%.2f fps", $0.doubleValue) }
            ?? "unknown rate"
        let display = media.displaySize
        print(
            "\(name): \(media.containerFormat), \(media.codecName) \(media.frameSize.width)x\(media.frameSize.height)"
                + " (shown \(display.width)x\(display.height), pixel aspect \(media.pixelAspectRatio.numerator):"
                + "\(media.pixelAspectRatio.denominator), rotation \(media.rotation)), \(rate), \(duration)"
        )
    } catch {
        failures += 1
        print("\(name): error (\(error.kind.rawValue)): \(error.reason)")
    }
}
exit(failures == 0 ? 0 : 1)

import Foundation
import Thumbnails

/// Reference pictures from the `ffmpeg` command (the CLI is the reference for how a cover looks) and
/// the measures the picture tests compare with: PSNR and mean saturation of packed RGB.
enum PictureReference {
    /// An RGB24 picture the CLI produced.
    struct Picture {
        var width: Int
        var height: Int
        var pixels: [UInt8]
    }

    struct CommandError: Error, CustomStringConvertible {
        var description: String
    }

    /// The first frame of `input` (a file, or a lavfi source with `lavfi: true`) as the `ffmpeg`
    /// command shows it (autorotate on, unless `noAutorotate`), through `filter` when given, as RGB24 of `width` x
    /// `height`.
    static func frame(
        _ input: String, lavfi: Bool = false, noAutorotate: Bool = false, filter: String? = nil, width: Int,
        height: Int
    ) throws -> Picture {
        var arguments = ["-hide_banner", "-nostdin", "-loglevel", "error"]
        if lavfi { arguments += ["-f", "lavfi"] }
        if noAutorotate { arguments += ["-noautorotate"] }
        arguments += ["-i", input, "-frames:v", "1"]
        if let filter { arguments += ["-vf", filter] }
        arguments += ["-f", "rawvideo", "-pix_fmt", "rgb24", "-"]
        let process = Process()
        process.executableURL = URL(filePath: "/usr/bin/env")
        process.arguments = ["ffmpeg"] + arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0, data.count == width * height * 3 else {
            throw CommandError(
                description: "ffmpeg \(arguments.joined(separator: " ")): status \(process.terminationStatus), "
                    + "\(data.count) bytes for \(width)x\(height): \(message)")
        }
        return Picture(width: width, height: height, pixels: [UInt8](data))
    }

    /// Peak signal-to-noise ratio of two equally long 8-bit pictures, in dB (infinity when equal).
    static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        precondition(a.count == b.count && !a.isEmpty)
        var sum = 0.0
        for index in a.indices {
            let difference = Double(a[index]) - Double(b[index])
            sum += difference * difference
        }
        let meanSquare = sum / Double(a.count)
        return meanSquare == 0 ? .infinity : 10 * log10(255 * 255 / meanSquare)
    }

    /// Mean HSV saturation of packed RGB24: (max - min) / max per pixel, 0 for black.
    static func saturation(_ rgb: [UInt8]) -> Double {
        var sum = 0.0
        var count = 0
        var index = 0
        while index + 2 < rgb.count {
            let r = Double(rgb[index])
            let g = Double(rgb[index + 1])
            let b = Double(rgb[index + 2])
            let high = max(r, g, b)
            sum += high > 0 ? (high - min(r, g, b)) / high : 0
            count += 1
            index += 3
        }
        return sum / Double(max(count, 1))
    }

    /// How much an RGB24 picture of `width` columns combs: the mean absolute difference of each
    /// line's green from the mean of the lines above and below it. Woven fields of a moving
    /// picture make it large; a progressive (or deinterlaced) picture keeps it small.
    static func combing(_ rgb: [UInt8], width: Int) -> Double {
        let height = rgb.count / (width * 3)
        guard height >= 3 else { return 0 }
        var sum = 0.0
        for y in 1..<(height - 1) {
            for x in 0..<width {
                let above = Double(rgb[((y - 1) * width + x) * 3 + 1])
                let here = Double(rgb[(y * width + x) * 3 + 1])
                let below = Double(rgb[((y + 1) * width + x) * 3 + 1])
                sum += abs(here - (above + below) / 2)
            }
        }
        return sum / Double((height - 2) * width)
    }
}

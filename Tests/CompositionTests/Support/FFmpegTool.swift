import Foundation
import TestSupport

/// The ffmpeg command line, the oracle of the composition tests: it generates the takes and composes the reference
/// with the equivalent filter graph, and it decodes both outputs to raw pixels and samples.
enum FFmpegTool {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs `ffmpeg -v error -y ARGUMENTS...` and returns its standard output.
    @discardableResult
    static func run(_ arguments: [String]) throws -> Data {
        let result = try runTool("ffmpeg", ["-nostdin", "-v", "error", "-y"] + arguments)
        guard result.status == 0 else {
            throw Failure(description: "ffmpeg \(arguments.joined(separator: " ")) failed: \(result.errorText)")
        }
        return result.output
    }

    /// Every frame of `file`'s video as 8-bit 4:2:0 planes (Y, then Cb, then Cr), one `Data` per frame, through
    /// `filter` (a filter chain) when given. `everyFrame`: each decoded frame once, none repeated or dropped to make
    /// a constant rate (what a variable-rate file needs).
    static func frames(
        of file: URL, width: Int, height: Int, filter: String? = nil, everyFrame: Bool = false
    ) throws -> [Data] {
        let filtering = (filter.map { ["-vf", $0] } ?? []) + (everyFrame ? ["-fps_mode", "passthrough"] : [])
        let data = try run(
            ["-i", file.path, "-map", "0:v:0"] + filtering + ["-f", "rawvideo", "-pix_fmt", "yuv420p", "-"])
        let frameSize = width * height * 3 / 2
        return stride(from: 0, to: data.count - frameSize + 1, by: frameSize).map {
            data.subdata(in: $0..<($0 + frameSize))
        }
    }

    /// The presentation time, in seconds from the file's start, of each frame of `file`'s video in display order, as
    /// `ffprobe` reads them.
    static func frameTimes(of file: URL) throws -> [Double] {
        let result = try runTool(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=best_effort_timestamp_time",
                "-show_entries", "format=start_time", "-of", "csv=p=0", file.path,
            ])
        guard result.status == 0 else { throw Failure(description: "ffprobe \(file.path) failed: \(result.errorText)") }
        let data = result.output
        let values = String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap {
            Double($0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: ",")))
        }
        // The format's start time comes last.
        guard let start = values.last else { return [] }
        return values.dropLast().map { $0 - start }
    }

    /// `file`'s audio as interleaved stereo float samples at 48 kHz.
    static func samples(of file: URL) throws -> [Float] {
        let data = try run(["-i", file.path, "-map", "0:a:0", "-f", "f32le", "-ac", "2", "-ar", "48000", "-"])
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }
}

/// The level of one frequency in a stretch of samples: the amplitude of the sinusoid at `frequency` (Goertzel).
func toneAmplitude(_ samples: ArraySlice<Float>, frequency: Double, sampleRate: Double = 48_000) -> Double {
    let count = samples.count
    guard count > 0 else { return 0 }
    let k = (Double(count) * frequency / sampleRate).rounded()
    let omega = 2 * Double.pi * k / Double(count)
    let coefficient = 2 * cos(omega)
    var previous = 0.0
    var beforePrevious = 0.0
    for sample in samples {
        let current = Double(sample) + coefficient * previous - beforePrevious
        beforePrevious = previous
        previous = current
    }
    let power = previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious
    return 2 * power.squareRoot() / Double(count)
}

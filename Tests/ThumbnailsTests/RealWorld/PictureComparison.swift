import Foundation
import Locking

/// Measures for comparing a cover with a reference picture, both packed RGB24 of the same size.
enum PictureComparison {
    /// Peak signal-to-noise ratio over every channel of every pixel, in dB; `.infinity` for identical pictures.
    static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        precondition(a.count == b.count && !a.isEmpty, "PSNR of pictures of different sizes")
        var sum: UInt64 = 0
        for index in a.indices {
            let difference = Int(a[index]) - Int(b[index])
            sum &+= UInt64(difference * difference)
        }
        guard sum > 0 else { return .infinity }
        let meanSquare = Double(sum) / Double(a.count)
        return 10 * log10(255 * 255 / meanSquare)
    }

    /// Mean saturation (HSV's: (max - min) / max per pixel, 0 for black), 0...1.
    static func saturation(_ rgb: [UInt8]) -> Double {
        var total = 0.0
        var count = 0
        var index = 0
        while index + 2 < rgb.count {
            let high = max(rgb[index], rgb[index + 1], rgb[index + 2])
            let low = min(rgb[index], rgb[index + 1], rgb[index + 2])
            if high > 0 { total += Double(high - low) / Double(high) }
            count += 1
            index += 3
        }
        return count == 0 ? 0 : total / Double(count)
    }

    /// How much the picture combs: the mean distance of each row from the average of the rows above and below
    /// (grey levels, 0...255). Woven fields of a moving picture make this large; a deinterlaced or progressive
    /// picture keeps it near its natural detail.
    static func combing(_ rgb: [UInt8], width: Int, height: Int) -> Double {
        guard height >= 3, width >= 1 else { return 0 }
        func grey(_ x: Int, _ y: Int) -> Double {
            let at = (y * width + x) * 3
            return (Double(rgb[at]) + Double(rgb[at + 1]) + Double(rgb[at + 2])) / 3
        }
        var total = 0.0
        for y in 1..<(height - 1) {
            for x in 0..<width {
                total += abs(grey(x, y) - (grey(x, y - 1) + grey(x, y + 1)) / 2)
            }
        }
        return total / Double((height - 2) * width)
    }
}

/// A per-process cache of ffprobe results keyed by path; the value is computed outside the lock (two tests may
/// probe the same file at once, which costs a process, never a wrong answer).
final class ProbeCache: Sendable {
    private let values = LockedValue<[String: FFmpegReference.Probe]>([:])

    func value(for key: String, make: () throws -> FFmpegReference.Probe) throws -> FFmpegReference.Probe {
        if let cached = values.withLock({ $0[key] }) { return cached }
        let made = try make()
        values.withLock { $0[key] = made }
        return made
    }
}

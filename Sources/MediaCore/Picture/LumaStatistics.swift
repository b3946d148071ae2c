/// The brightness and contrast of a decoded frame, measured cheaply on its luma plane (or the
/// first component of an RGB format) at a grid of at most 64 x 48 sample points: enough to tell
/// a black or blank frame from a picture, at a few microseconds per frame.
package struct LumaStatistics {
    /// Mean brightness, 0 (black) ... 1 (white), in the format's own scale (limited-range black
    /// is about 0.06).
    package var mean: Double
    /// Standard deviation of the samples on the same scale: near 0 for a uniform frame.
    package var deviation: Double

    /// Darker than this mean is "dark": limited-range black is 16/255 = 0.063, a dim fade
    /// about 0.09.
    package static let darkMean = 0.1
    /// Less spread than this is "flat": about 8 levels of 255.
    package static let flatDeviation = 0.03

    /// Whether the frame is almost black or almost uniform: not worth showing as a cover.
    package var isDarkOrFlat: Bool { mean < Self.darkMean || deviation < Self.flatDeviation }

    /// How much a frame shows, to pick the best of several dull ones.
    package var liveliness: Double { deviation + mean / 10 }

    /// Measures `frame`; nil for a pixel format without a samplable plane.
    package init?(_ frame: Frame) {
        guard frame.hasPicture, let layout = FFmpeg.firstComponentLayout(of: frame.pixelFormat),
            layout.depth > 0, layout.depth <= 16
        else { return nil }
        let (planes, strides) = FFmpeg.planes(of: frame.pointer)
        guard let plane = planes[layout.plane] else { return nil }
        let stride = Int(strides[layout.plane])
        let columns = min(frame.width, 64)
        let rows = min(frame.height, 48)
        let wide = layout.depth > 8
        let mask = (1 << layout.depth) - 1
        let scale = 1 / Double(mask)
        var sum = 0.0
        var sumOfSquares = 0.0
        for row in 0..<rows {
            let y = (2 * row + 1) * frame.height / (2 * rows)
            let line = plane.advanced(by: y * stride + layout.offset)
            for column in 0..<columns {
                let x = (2 * column + 1) * frame.width / (2 * columns)
                let sample = line.advanced(by: x * layout.step)
                var raw: Int
                if wide {
                    let first = Int(sample[0])
                    let second = Int(sample[1])
                    raw = layout.isBigEndian ? first << 8 | second : second << 8 | first
                } else {
                    raw = Int(sample[0])
                }
                raw = (raw >> layout.shift) & mask
                let value = Double(raw) * scale
                sum += value
                sumOfSquares += value * value
            }
        }
        let count = Double(rows * columns)
        mean = sum / count
        deviation = max(0, sumOfSquares / count - mean * mean).squareRoot()
    }
}

internal import CFFmpeg

extension Frame {
    /// Whether ``halve(into:)`` can scale this frame into `target`: both are 8-bit 4:2:0 limited-range pictures, this
    /// one's matrix is BT.709 or unstated (so nothing is converted), and `target` is exactly half as wide and half as
    /// high, with sides that keep the chroma planes exactly halved too (this frame's sides are multiples of 4).
    package func canBeHalved(into target: Frame) -> Bool {
        let plain = AV_PIX_FMT_YUV420P.rawValue
        let matrix = colorSpace
        return pixelFormat == plain && target.pixelFormat == plain && !isFullRange
            && (matrix == Int32(AVCOL_SPC_UNSPECIFIED.rawValue) || matrix == Int32(AVCOL_SPC_BT709.rawValue))
            && width >= 4 && height >= 4 && width % 4 == 0 && height % 4 == 0
            && target.width == width / 2 && target.height == height / 2
    }

    /// Scales this frame into `target` when ``canBeHalved(into:)`` holds (`target` half as wide and half as high),
    /// with the filter swscale's bilinear scaler uses at exactly 2:1: each output sample is the separable weighting
    /// 1/8, 3/8, 3/8, 1/8 of the 4 x 4 source samples around it (the picture's edge samples repeated beyond it),
    /// rounded to nearest. swscale rounds its intermediate sums with a slight bias, so the two differ by at most one
    /// step (on about 6% of the samples of a random picture); the picture is the same. It costs about half what
    /// swscale's scale does, and halving is what a grid of takes the size of the output asks for (two columns of
    /// takes recorded full screen).
    ///
    /// - Returns: whether it halved the frame; when it returns false it has touched nothing (the planes' sizes
    ///   ``canBeHalved(into:)`` checks are what keep every read and write inside them), and a general scaler must
    ///   do the work.
    @discardableResult
    package func halve(into target: Frame) -> Bool {
        guard canBeHalved(into: target) else { return false }
        for index in 0..<3 {
            guard let source = plane(index), let destination = target.plane(index) else { continue }
            let shift = index == 0 ? 0 : 1
            Self.halve(
                source.base, stride: source.stride, width: width >> shift, height: height >> shift,
                into: destination.base, stride: destination.stride)
        }
        return true
    }

    /// Halves one plane of `width` x `height` samples (both even, at least 2) into `target`: each source row is
    /// filtered across once (``filterRow(_:width:into:)``), into a ring of the four rows an output row weighs, and
    /// the output row is the weighting of those four down the picture.
    private static func halve(
        _ source: UnsafeMutablePointer<UInt8>, stride sourceStride: Int, width: Int, height: Int,
        into target: UnsafeMutablePointer<UInt8>, stride targetStride: Int
    ) {
        let half = width / 2
        withUnsafeTemporaryAllocation(of: UInt16.self, capacity: 4 * half) { buffer in
            guard let ring = buffer.baseAddress else { return }
            // Source row r, filtered across, is in ring slot r % 4: an output row weighs four consecutive rows.
            func filtered(_ row: Int) -> UnsafeMutablePointer<UInt16> { ring + (row & 3) * half }
            var lastFiltered = -1
            for row in 0..<(height / 2) {
                // The four source rows around this output row, the edge rows repeated at the picture's edges.
                let bottomRow = min(2 * row + 2, height - 1)
                while lastFiltered < bottomRow {
                    lastFiltered += 1
                    filterRow(source + lastFiltered * sourceStride, width: width, into: filtered(lastFiltered))
                }
                let top = filtered(max(2 * row - 1, 0))
                let upper = filtered(2 * row)
                let lower = filtered(2 * row + 1)
                let bottom = filtered(bottomRow)
                let output = target + row * targetStride
                // Each output sample weighs 64 times its value: (sum + 32) / 64 rounds it to nearest.
                for column in 0..<half {
                    let sum = top[column] &+ 3 &* (upper[column] &+ lower[column]) &+ bottom[column] &+ 32
                    output[column] = UInt8(truncatingIfNeeded: sum >> 6)
                }
            }
        }
    }

    /// Weighs `row` (`width` samples, even) across: sample i of `sums` is 1, 3, 3, 1 times samples 2i - 1 to 2i + 2,
    /// the edge samples repeated. Inside the row it reads the samples in pairs, as 16-bit words whose low byte is the
    /// even sample, so the loop needs no shuffling of samples and vectorizes on any SIMD unit.
    private static func filterRow(
        _ row: UnsafeMutablePointer<UInt8>, width: Int, into sums: UnsafeMutablePointer<UInt16>
    ) {
        let half = width / 2
        func sample(_ x: Int) -> UInt16 { UInt16(row[min(max(x, 0), width - 1)]) }
        func clamped(_ column: Int) -> UInt16 {
            sample(2 * column - 1) &+ 3 &* (sample(2 * column) &+ sample(2 * column + 1)) &+ sample(2 * column + 2)
        }
        sums[0] = clamped(0)
        if half > 2 {
            let pairs = UnsafeRawPointer(row)
            for column in 1..<(half - 1) {
                let before = UInt16(littleEndian: pairs.loadUnaligned(fromByteOffset: 2 * column - 2, as: UInt16.self))
                let pair = UInt16(littleEndian: pairs.loadUnaligned(fromByteOffset: 2 * column, as: UInt16.self))
                let after = UInt16(littleEndian: pairs.loadUnaligned(fromByteOffset: 2 * column + 2, as: UInt16.self))
                sums[column] = (before >> 8) &+ 3 &* ((pair & 0xFF) &+ (pair >> 8)) &+ (after & 0xFF)
            }
        }
        if half > 1 { sums[half - 1] = clamped(half - 1) }
    }
}

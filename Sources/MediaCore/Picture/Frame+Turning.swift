extension Frame {
    /// This frame's picture turned upright by `orientation` plane by plane, sample for sample, as the ffmpeg CLI's
    /// autorotate turns it (`transpose`, `hflip`, `vflip` on the stored planes): no value is converted or filtered,
    /// so a turned take keeps the very samples and colours of the same take recorded upright. The new frame keeps
    /// this one's properties (times, range, matrix); its sample aspect ratio is turned with it.
    ///
    /// - Returns: nil when there is nothing to turn (`orientation` is upright) or when the planes cannot be turned
    ///   alone: an interlaced frame (its fields would become columns), or a pixel format whose pixels cannot be moved
    ///   one by one (``FFmpeg/turnablePlanes(of:)``: chroma subsampled differently across and down, as 4:2:2).
    /// - Throws: ``FFmpegError`` when the new picture cannot be allocated.
    package func turnedUpright(by orientation: Orientation) throws(FFmpegError) -> Frame? {
        guard !orientation.isUpright, FrameConverter.firstField(of: self) == nil,
            let planes = FFmpeg.turnablePlanes(of: pixelFormat)
        else { return nil }
        let turned = try Frame()
        let (uprightWidth, uprightHeight) = orientation.transposes ? (height, width) : (width, height)
        try FFmpeg.allocatePicture(turned.pointer, like: pointer, width: uprightWidth, height: uprightHeight)
        if orientation.transposes { FFmpeg.setSampleAspectRatio(sampleAspectRatio?.reciprocal, of: turned.pointer) }
        for (index, layout) in planes.enumerated() {
            guard let source = plane(index), let target = turned.plane(index) else { continue }
            // A subsampled plane covers an odd side with one more sample (as FFmpeg rounds it: up).
            orientation.turn(
                source.base, stride: source.stride, width: -((-width) >> layout.shift),
                height: -((-height) >> layout.shift), bytesPerPixel: layout.bytesPerPixel, into: target.base,
                stride: target.stride)
        }
        return turned
    }
}

extension Orientation {
    /// Copies a plane of `width` x `height` pixels of `bytesPerPixel` bytes each (rows `sourceStride` bytes apart)
    /// into `destination` (rows `destinationStride` bytes apart), turned upright: the upright plane is `height` x
    /// `width` when ``transposes``, else `width` x `height`. Output pixel (x, y) comes from stored pixel (sx, sy) as
    /// the type's mapping says.
    package func turn(
        _ source: UnsafePointer<UInt8>, stride sourceStride: Int, width: Int, height: Int, bytesPerPixel: Int,
        into destination: UnsafeMutablePointer<UInt8>, stride destinationStride: Int
    ) {
        let outputWidth = transposes ? height : width
        let outputHeight = transposes ? width : height
        let rowBytes = outputWidth * bytesPerPixel
        if !transposes && !flipsX {
            // Whole rows, top to bottom or bottom to top.
            for y in 0..<height {
                let sourceY = flipsY ? height - 1 - y : y
                (destination + y * destinationStride).update(from: source + sourceY * sourceStride, count: rowBytes)
            }
            return
        }
        // Output pixel (x, y) comes from source byte start + x * stepAlongX + y * stepAlongY, copied in tiles of
        // 32 x 32 pixels: a transposing copy then reads 32 source rows at a time, which stay in the cache.
        var start = 0
        let columnStep = flipsX ? -bytesPerPixel : bytesPerPixel
        let rowStep = flipsY ? -sourceStride : sourceStride
        if flipsX { start += (width - 1) * bytesPerPixel }
        if flipsY { start += (height - 1) * sourceStride }
        let stepAlongX = transposes ? rowStep : columnStep
        let stepAlongY = transposes ? columnStep : rowStep
        let tile = 32
        for tileY in stride(from: 0, to: outputHeight, by: tile) {
            for tileX in stride(from: 0, to: outputWidth, by: tile) {
                for y in tileY..<min(tileY + tile, outputHeight) {
                    Self.copy(
                        min(tile, outputWidth - tileX), pixelsOf: bytesPerPixel,
                        from: source + start + y * stepAlongY + tileX * stepAlongX, step: stepAlongX,
                        into: destination + y * destinationStride + tileX * bytesPerPixel)
                }
            }
        }
    }

    /// Copies `count` pixels of `bytesPerPixel` bytes, `step` bytes apart in `source`, side by side into `target`.
    private static func copy(
        _ count: Int, pixelsOf bytesPerPixel: Int, from source: UnsafePointer<UInt8>, step: Int,
        into target: UnsafeMutablePointer<UInt8>
    ) {
        var from = source
        var target = target
        switch bytesPerPixel {
        case 1:
            for _ in 0..<count {
                target.pointee = from.pointee
                target += 1
                from += step
            }
        case 4:
            for _ in 0..<count {
                UnsafeMutableRawPointer(target).storeBytes(
                    of: UnsafeRawPointer(from).loadUnaligned(as: UInt32.self), as: UInt32.self)
                target += 4
                from += step
            }
        default:
            // Byte by byte: a copy call per 2- or 3-byte pixel costs more than the pixel.
            for _ in 0..<count {
                for byte in 0..<bytesPerPixel { target[byte] = from[byte] }
                target += bytesPerPixel
                from += step
            }
        }
    }
}

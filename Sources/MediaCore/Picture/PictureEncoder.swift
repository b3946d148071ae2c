/// Encodes packed 8-bit RGB(A) pictures as PNG or baseline JPEG files' bytes, with FFmpeg's image encoders.
package enum PictureEncoder {
    /// The PNG bytes of `pixels` (`height` rows of `bytesPerRow` bytes, `width` pixels of `layout` each).
    package static func png(
        _ pixels: [UInt8], width: Int, height: Int, bytesPerRow: Int, layout: PictureLayout
    ) throws(FFmpegError) -> [UInt8] {
        try pixels.withUnsafeBufferPointer { buffer throws(FFmpegError) -> [UInt8] in
            // The encoder only reads the plane (it copies a frame that is not reference-counted).
            guard let base = buffer.baseAddress else { throw .invalidArgument }
            return try FFmpeg.encodeImage(
                .png, layout: layout.ffmpegLayout, width: width, height: height,
                planes: [UnsafeMutablePointer(mutating: base)], strides: [bytesPerRow])
        }
    }

    /// The JPEG bytes of `pixels` at `quality` (1-100; 100 is the mjpeg encoder's best quantiser), as full-range 4:2:0.
    package static func jpeg(
        _ pixels: [UInt8], width: Int, height: Int, bytesPerRow: Int, layout: PictureLayout, quality: Int
    ) throws(FFmpegError) -> [UInt8] {
        // Copy into an FFmpeg picture (padded as swscale's readers expect), convert to
        // full-range 4:2:0, encode.
        let source = try Frame()
        try FFmpeg.allocatePicture(source.pointer, width: width, height: height, layout: layout.ffmpegLayout)
        let (planes, strides) = FFmpeg.planes(of: source.pointer)
        guard let plane = planes[0] else { throw .outOfMemory }
        let stride = Int(strides[0])
        let rowBytes = width * layout.bytesPerPixel
        pixels.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            for row in 0..<height {
                (plane + row * stride).update(from: base + row * bytesPerRow, count: rowBytes)
            }
        }
        let converted = try Frame()
        try FFmpeg.allocatePicture(converted.pointer, width: width, height: height, layout: .yuvj420p)
        let scaler = try Scaler(
            from: FFmpeg.ScaleSide(
                width: width, height: height, format: layout.ffmpegLayout.formatNumber, isFullRange: true),
            to: FFmpeg.ScaleSide(
                width: width, height: height, format: FFmpeg.PixelLayout.yuvj420p.formatNumber, isFullRange: true)
        )
        try scaler.scale(source, into: converted)
        let (yuvPlanes, yuvStrides) = FFmpeg.planes(of: converted.pointer)
        guard let luma = yuvPlanes[0], let blue = yuvPlanes[1], let red = yuvPlanes[2] else { throw .outOfMemory }
        // Quality 100 is quantiser 2 (the best mjpeg allows), quality 1 is 31.
        let quantizer = 2 + (100 - quality) * 29 / 99
        return try FFmpeg.encodeImage(
            .mjpeg(quantizer: quantizer), layout: .yuvj420p, width: width, height: height,
            planes: [luma, blue, red], strides: [Int(yuvStrides[0]), Int(yuvStrides[1]), Int(yuvStrides[2])])
    }
}

extension PictureLayout {
    var ffmpegLayout: FFmpeg.PixelLayout { self == .rgba ? .rgba : .rgb24 }
}

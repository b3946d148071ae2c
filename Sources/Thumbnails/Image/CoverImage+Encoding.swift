import Foundation

extension CoverImage {
    /// The cover encoded as a PNG or JPEG file's bytes.
    ///
    /// - Throws: ``ThumbnailError`` `.invalidArgument` for a JPEG quality outside 1...100,
    ///   `.encodeFailed` when FFmpeg's encoder fails (with its message).
    public func encoded(as format: CoverImageFormat) throws(ThumbnailError) -> Data {
        let bytes: [UInt8]
        do {
            switch format {
            case .png:
                bytes = try encodePNG()
            case .jpeg(let quality):
                guard (1...100).contains(quality) else {
                    throw ThumbnailError(.invalidArgument, reason: "JPEG quality \(quality) is outside 1...100")
                }
                bytes = try encodeJPEG(quality: quality)
            }
        } catch let error as FFmpegError {
            throw ThumbnailError(
                .encodeFailed, reason: "cannot encode a \(size) cover as \(format)", ffmpegError: error)
        } catch let error as ThumbnailError {
            throw error
        } catch {
            throw ThumbnailError(.encodeFailed, reason: "cannot encode a \(size) cover as \(format): \(error)")
        }
        return Data(bytes)
    }

    /// Encodes the cover and writes it to `url` atomically: the bytes go to a temporary file in
    /// the same folder, which is then renamed over `url`. On any failure `url` is left as it was
    /// (absent, or the previous file) and the temporary file is removed; an empty or partial
    /// file is never left behind. An existing file at `url` is replaced.
    ///
    /// - Throws: ``ThumbnailError`` `.invalidArgument` (not a file URL, a bad JPEG quality),
    ///   `.encodeFailed`, `.writeFailed` (no such folder, no permission, disk full).
    public func write(to url: URL, as format: CoverImageFormat) throws(ThumbnailError) {
        guard url.isFileURL else {
            throw ThumbnailError(.invalidArgument, reason: "\(url.absoluteString): not a file URL")
        }
        try write(toFileAt: FileSystemPath(url), as: format)
    }

    /// Encodes the cover and writes it to the file at `path` atomically, as
    /// ``write(to:as:)`` does, for a path held as bytes (a name that is not UTF-8).
    ///
    /// Links are never followed: a link at `path` is replaced by the cover (the file it points
    /// to is untouched), and the temporary file is created only where nothing exists. A
    /// temporary file left by a writer that was killed (hidden, `.NAME.cover-tmp-PID-XXXXXX`) is
    /// removed by the next ``CoverBatch`` run into that folder.
    ///
    /// - Throws: ``ThumbnailError`` `.invalidArgument` (a path naming a folder, a bad JPEG
    ///   quality), `.encodeFailed`, `.writeFailed` (no such folder, no permission, disk full),
    ///   with a one-line reason naming `path`.
    public func write(toFileAt path: FileSystemPath, as format: CoverImageFormat) throws(ThumbnailError) {
        let data = try encoded(as: format)
        try AtomicFile.replace(path, with: data)
    }

    private func encodePNG() throws(FFmpegError) -> [UInt8] {
        let layout: FFmpeg.PixelLayout = pixelFormat == .rgba ? .rgba : .rgb24
        return try pixels.withUnsafeBufferPointer { buffer throws(FFmpegError) -> [UInt8] in
            // The encoder only reads the plane (it copies a frame that is not reference-counted).
            guard let base = buffer.baseAddress else { throw .invalidArgument }
            return try FFmpeg.encodeImage(
                .png, layout: layout, width: width, height: height, planes: [UnsafeMutablePointer(mutating: base)],
                strides: [bytesPerRow])
        }
    }

    private func encodeJPEG(quality: Int) throws(FFmpegError) -> [UInt8] {
        let layout: FFmpeg.PixelLayout = pixelFormat == .rgba ? .rgba : .rgb24
        // Copy into an FFmpeg picture (padded as swscale's readers expect), convert to
        // full-range 4:2:0, encode.
        let source = try Frame()
        try FFmpeg.allocatePicture(source.pointer, width: width, height: height, layout: layout)
        let (planes, strides) = FFmpeg.planes(of: source.pointer)
        guard let plane = planes[0] else { throw .outOfMemory }
        let stride = Int(strides[0])
        let rowBytes = width * pixelFormat.bytesPerPixel
        pixels.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            for row in 0..<height {
                (plane + row * stride).update(from: base + row * bytesPerRow, count: rowBytes)
            }
        }
        let converted = try Frame()
        try FFmpeg.allocatePicture(converted.pointer, width: width, height: height, layout: .yuvj420p)
        let scaler = try Scaler(
            from: FFmpeg.ScaleSide(width: width, height: height, format: layout.formatNumber, isFullRange: true),
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

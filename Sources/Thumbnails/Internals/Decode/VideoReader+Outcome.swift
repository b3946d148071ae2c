import MediaCore

extension VideoReader {
    // MARK: Outcome

    /// The error for a stream of which nothing decodes.
    func decodeFailure() -> ThumbnailError {
        let reason = "\(input.path): damaged or truncated file: no \(input.video.codecName) frame could be decoded"
        if let error = lastDecodeError ?? readFailure {
            return ThumbnailError(.decodeFailed, reason: reason, ffmpegError: error)
        }
        if damagedPackets > 0 || damagedFrames > 0 {
            return ThumbnailError(
                .decodeFailed, reason: "\(reason) (\(damagedPackets + damagedFrames) damaged packets or frames)")
        }
        return ThumbnailError(.decodeFailed, reason: reason)
    }

    /// Starts counting problems afresh (each cover of a session reports its own).
    func forgetProblems() {
        lastPacketTime = nil
        readFromStart = false
        damagedPackets = 0
        damagedFrames = 0
        decodeErrors = 0
        lastDecodeError = nil
        readFailure = nil
    }

    /// One line per problem met while reading (a cover was still found).
    var warnings: [String] {
        var lines: [String] = []
        if let readFailure {
            lines.append("reading stopped early: \(readFailure.message)")
        }
        if damagedPackets > 0 {
            lines.append("skipped \(damagedPackets) damaged packet\(damagedPackets == 1 ? "" : "s")")
        }
        if damagedFrames > 0 {
            lines.append("skipped \(damagedFrames) damaged frame\(damagedFrames == 1 ? "" : "s")")
        }
        if decodeErrors > 0, let lastDecodeError {
            lines.append(
                "\(decodeErrors) decode error\(decodeErrors == 1 ? "" : "s"), the last: \(lastDecodeError.message)")
        }
        return lines
    }
}

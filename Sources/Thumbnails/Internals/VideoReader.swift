/// Reads and decodes the video stream of one opened input: seeking, decoding a lone keyframe,
/// or decoding every frame in order. It converts timestamps to seconds from the first frame
/// and keeps the warnings a cover should carry.
///
/// Deliberately not `Sendable`: it owns the input, the decoder, and their C state.
final class VideoReader {
    let input: MediaInput
    let streamIndex: Int
    let decoder: Decoder
    private let packet: Packet
    private let keyframePacket: Packet
    /// Seconds per timestamp unit, as the exact ratio the stream states: times are computed as
    /// `units * numerator / denominator`, so 176400 units of 1/90000 s are 1.96 s, not the
    /// 1.9600000000000002 s a multiplication by 1/90000 gives.
    let timeBase: Rational
    /// The timestamp that counts as 0 s: the stream's start (or the first frame's timestamp).
    private var origin: Int64?
    /// Seconds per frame from the stream's frame rate, when it states one.
    let frameDuration: Double?
    /// The stream's length in seconds (else the container's), when stated.
    let duration: Double?
    /// Called between packets; throws `.cancelled` to stop.
    private let checkCancellation: () throws(ThumbnailError) -> Void

    private var draining = false
    private var damagedPackets = 0
    private var damagedFrames = 0
    private var decodeErrors = 0
    private var lastDecodeError: FFmpegError?
    private var readFailure: FFmpegError?

    init(
        input: MediaInput,
        threadCount: Int,
        checkCancellation: @escaping () throws(ThumbnailError) -> Void
    ) throws(ThumbnailError) {
        self.input = input
        self.checkCancellation = checkCancellation
        let index = input.video.index
        streamIndex = index
        let format = input.format
        do {
            decoder = try Decoder(format: format, streamIndex: index, threadCount: threadCount)
            packet = try Packet()
            keyframePacket = try Packet()
        } catch {
            switch error {
            case .decoderNotFound:
                throw ThumbnailError(
                    .unsupportedCodec, reason: "\(input.path): no decoder for \(input.video.codecName)",
                    ffmpegError: error)
            default:
                throw ThumbnailError(
                    .decodeFailed, reason: "\(input.path): cannot open the \(input.video.codecName) decoder",
                    ffmpegError: error)
            }
        }
        let base = format.timeBase(ofStream: index)
        timeBase = base.numerator > 0 && base.denominator > 0 ? base : Rational(numerator: 1, denominator: 90_000)
        if let start = format.startTimestamp(ofStream: index) {
            origin = start
        } else if let containerStart = format.startTime {
            origin = Self.timestamp(ofSeconds: containerStart, timeBase: timeBase)
        }
        if let rate = input.video.frameRate, rate.numerator > 0, rate.denominator > 0 {
            frameDuration = 1 / rate.doubleValue
        } else {
            frameDuration = nil
        }
        if let streamDuration = format.durationTimestamp(ofStream: index) {
            duration = Self.seconds(ofUnits: Double(streamDuration), timeBase: timeBase)
        } else if let containerDuration = format.duration {
            // The container's duration counts from its own start; the stream may start later.
            let streamStart = Self.seconds(ofUnits: Double(origin ?? 0), timeBase: timeBase)
            let offset = format.startTime.map { start in streamStart - start } ?? 0
            duration = max(0, containerDuration - max(0, offset))
        } else {
            duration = nil
        }
    }

    // MARK: Time

    /// The frame's time in seconds from the first frame; nil when it has no timestamp.
    func seconds(of frame: Frame) -> Double? {
        guard let timestamp = frame.timestamp else { return nil }
        if origin == nil { origin = timestamp }
        return Self.seconds(from: origin ?? 0, to: timestamp, timeBase: timeBase)
    }

    /// `timestamp - origin` in seconds. A damaged file may hold any two 64-bit timestamps, whose
    /// difference can overflow: then it is taken in floating point instead of trapping.
    static func seconds(from origin: Int64, to timestamp: Int64, timeBase: Rational) -> Double {
        let (difference, overflow) = timestamp.subtractingReportingOverflow(origin)
        return seconds(ofUnits: overflow ? Double(timestamp) - Double(origin) : Double(difference), timeBase: timeBase)
    }

    /// `units` of `timeBase` in seconds.
    static func seconds(ofUnits units: Double, timeBase: Rational) -> Double {
        units * Double(timeBase.numerator) / Double(timeBase.denominator)
    }

    /// `seconds` in units of `timeBase`, rounded; nil when that does not fit in 64 bits (a start
    /// time in a damaged file's tiny time base).
    static func timestamp(ofSeconds seconds: Double, timeBase: Rational) -> Int64? {
        let units = (seconds * Double(timeBase.denominator) / Double(timeBase.numerator)).rounded()
        guard units.isFinite, abs(units) < 0x1p62 else { return nil }
        return Int64(units)
    }

    /// Seeks to the keyframe at or before `seconds` from the start (with `forward`, at or after
    /// it). Returns false when the demuxer cannot seek (the reader then goes on from where it is).
    @discardableResult
    func seek(to seconds: Double, forward: Bool = false) -> Bool {
        let units = (seconds * Double(timeBase.denominator) / Double(timeBase.numerator)).rounded(.down)
        let offset = units.isFinite && abs(units) < 1e15 ? Int64(units) : Int64(1e15)
        let (target, overflow) = (origin ?? 0).addingReportingOverflow(offset)
        do {
            try input.format.seek(streamIndex: streamIndex, to: overflow ? Int64.max / 2 : target, forward: forward)
        } catch {
            return false
        }
        decoder.flush()
        draining = false
        return true
    }

    // MARK: Packets

    /// Reads the next intact packet of the video stream into `packet`; false at the end of the
    /// input (or when reading fails, which is remembered as a warning).
    private func readVideoPacket() throws(ThumbnailError) -> Bool {
        while true {
            try checkCancellation()
            packet.clear()
            switch input.format.readPacket(into: packet) {
            case .endOfFile:
                return false
            case .failed(.exit):
                // The interrupt callback stopped the read: this job is cancelled.
                try checkCancellation()
                throw ThumbnailError(.cancelled, reason: "\(input.path): cancelled")
            case .failed(let error):
                readFailure = error
                return false
            case .packet:
                guard packet.streamIndex == streamIndex, packet.hasData else { continue }
                if packet.isCorrupt {
                    damagedPackets += 1
                    continue
                }
                return true
            }
        }
    }

    /// Sends `packet`; a packet the decoder rejects is counted, not fatal (the next keyframe
    /// may decode).
    private func send(_ packet: Packet) {
        do {
            try decoder.send(packet)
        } catch {
            decodeErrors += 1
            lastDecodeError = error
        }
    }

    // MARK: Decoding

    /// Decodes the next frame in presentation order into `frame`, reading packets as needed and
    /// draining the decoder at the end of the input. Frames the decoder flags as damaged are
    /// skipped. Returns false when no frame is left.
    func nextFrame(into frame: Frame) throws(ThumbnailError) -> Bool {
        var consecutiveFailures = 0
        while true {
            let status: FFmpeg.CodecStatus
            do {
                status = try decoder.receive(into: frame)
                consecutiveFailures = 0
            } catch {
                decodeErrors += 1
                lastDecodeError = error
                consecutiveFailures += 1
                guard consecutiveFailures < 32 else { throw decodeFailure() }
                continue
            }
            switch status {
            case .done:
                if frame.isDamaged {
                    damagedFrames += 1
                    frame.clear()
                    continue
                }
                return true
            case .endOfFile:
                return false
            case .tryAgain:
                break
            }
            if draining { return false }
            if try readVideoPacket() {
                send(packet)
                packet.clear()
            } else {
                // Already draining is the only failure here, and that is the state wanted.
                _ = try? decoder.send(nil)
                draining = true
            }
        }
    }

    /// Decodes the next keyframe on its own: skips packets up to the next keyframe packet,
    /// sends only that one and drains the decoder, so a single frame is decoded whatever the
    /// stream's reordering delay. When a lone keyframe yields no picture (a field pair split over
    /// two packets, a codec that needs what follows), it decodes on in order from that keyframe
    /// instead. Returns false when no keyframe is left. The decoder is flushed afterwards, so
    /// the next call starts clean.
    func nextKeyframe(into frame: Frame) throws(ThumbnailError) -> Bool {
        while true {
            // The demuxer need not even read the packets in between (MP4 and Matroska skip
            // them by their index); the check below keeps that true for the others.
            input.format.setSkipsNonKeyframes(ofStream: streamIndex, true)
            var found = false
            repeat {
                found = try readVideoPacket()
            } while found && !packet.isKeyframe
            input.format.setSkipsNonKeyframes(ofStream: streamIndex, false)
            guard found else { return false }
            decoder.flush()
            draining = false
            do {
                try keyframePacket.copy(from: packet)
                try decoder.send(packet)
            } catch {
                decodeErrors += 1
                lastDecodeError = error
                continue
            }
            packet.clear()
            // Draining a decoder that just took a packet cannot fail in a way that matters: the
            // receive below reports what there is.
            _ = try? decoder.send(nil)
            draining = true
            while true {
                let status: FFmpeg.CodecStatus
                do {
                    status = try decoder.receive(into: frame)
                } catch {
                    decodeErrors += 1
                    lastDecodeError = error
                    break
                }
                guard status == .done else { break }
                if frame.isDamaged {
                    damagedFrames += 1
                    frame.clear()
                    continue
                }
                decoder.flush()
                draining = false
                return true
            }
            // No picture from the lone keyframe: decode on in order from it.
            decoder.flush()
            draining = false
            send(keyframePacket)
            keyframePacket.clear()
            if try nextFrame(into: frame) { return true }
        }
    }

    // MARK: Outcome

    /// The error for a stream of which nothing decodes.
    func decodeFailure() -> ThumbnailError {
        let reason = "\(input.path): no \(input.video.codecName) frame could be decoded"
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

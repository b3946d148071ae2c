import MediaCore

/// Reads and decodes the video stream of one opened input: seeking, decoding a lone keyframe,
/// or decoding every frame in order. It converts timestamps to seconds from the first frame
/// and keeps the warnings a cover should carry.
///
/// Deliberately not `Sendable`: it owns the input, the decoder, and their C state.
///
/// Its concerns live in one file each: this one holds its state, opening and time arithmetic;
/// `VideoReader+Packets.swift` reads packets, `VideoReader+Decoding.swift` decodes frames (through
/// MediaCore's `DecodeLoop`, which this reader feeds as its `PacketFeed`),
/// `VideoReader+Outcome.swift` says what came of it. Its state is therefore internal, not private,
/// and is touched only by these files.
final class VideoReader {
    let input: MediaInput
    let streamIndex: Int
    /// The decoder, fed by this reader (``PacketFeed``).
    let frames: DecodeLoop
    let packet: Packet
    let keyframePacket: Packet
    /// Seconds per timestamp unit, as the exact ratio the stream states: times are computed as
    /// `units * numerator / denominator`, so 176400 units of 1/90000 s are 1.96 s, not the
    /// 1.9600000000000002 s a multiplication by 1/90000 gives.
    let timeBase: Rational
    /// The timestamp that counts as 0 s: the stream's start (or the first frame's timestamp).
    var origin: Int64?
    /// Seconds per frame from the stream's frame rate, when it states one.
    let frameDuration: Double?
    /// The stream's length in seconds (else the container's), when stated, or as estimated by
    /// ``estimateDuration()``.
    var duration: Double?
    /// Whether the input has no timestamps to seek by or place frames with (a raw elementary
    /// stream): it is read from its start, and its frames are placed by counting at
    /// ``frameDuration``.
    let isUntimed: Bool
    /// Whether the demuxer cannot seek this stream (an untimed stream, an audio file's cover
    /// art): a seek reopens the input instead.
    let cannotSeek: Bool
    /// Called between packets; throws `.cancelled` to stop.
    let checkCancellation: () throws(ThumbnailError) -> Void

    /// A packet read ahead and not used yet: the next read returns it.
    let pendingPacket: Packet
    /// Holds the packet just read while ``settleOrigin(resumingAt:)`` reads others.
    let spare: Packet
    var hasPending = false
    var pendingOrdinal = 0
    /// Whether a packet was read since the input was opened (or reopened).
    var hasRead = false
    /// Video packets read since the start, for placing an untimed stream's packets.
    var packetsFromStart = 0
    /// The ordinal (from the start) of the packet in `packet`.
    var packetOrdinal = 0
    /// Frames returned by ``nextFrame(into:)`` since the start, for placing an untimed
    /// stream's frames; nil after a seek that landed somewhere.
    var framesFromStart: Int? = 0
    /// The timestamp of the last keyframe packet decoded alone, presentation (else decode): where
    /// the next keyframe search continues from in MP4, and where to seek back to it.
    var lastKeyframeTimestamp: Int64?

    /// The time of the frame last returned by ``nextFrame(into:)``, ``nextKeyframe(into:)`` or
    /// ``lastKeyframe(atOrBefore:readsOn:into:)``, in seconds from the first frame; nil when it
    /// has none.
    var lastFrameTime: Double?
    /// Whether the last read met the end of the input.
    var reachedEnd = false
    /// The latest presentation time of a video packet read since ``forgetProblems()``.
    var lastPacketTime: Double?
    /// Whether a seek could not be made and reading started over from the start.
    var readFromStart = false
    /// Whether the origin is known to be the first frame's time (see ``settleOrigin(resumingAt:)``).
    var originSettled = false
    var damagedPackets = 0
    var damagedFrames = 0
    var decodeErrors = 0
    var lastDecodeError: FFmpegError?
    var readFailure: FFmpegError?

    /// The packet kept by keep(_:): its number, its position in the file, its presentation time.
    var keptOrdinal = 0
    var keptPosition: Int64?
    var keptTime: Double?

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
            frames = DecodeLoop(decoder: try Decoder(format: format, streamIndex: index, threadCount: threadCount))
            packet = try Packet()
            keyframePacket = try Packet()
            pendingPacket = try Packet()
            spare = try Packet()
        } catch {
            switch error {
            case .decoderNotFound:
                throw MediaInput.noDecoder(for: [input.video], path: input.path)
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
        isUntimed = origin == nil && format.duration == nil || format.hasNoTimestamps
        cannotSeek = isUntimed || input.video.isAttachedPicture
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

    /// Where a seek left the reader.
    enum SeekOutcome {
        /// The demuxer seeked: reading goes on near the target.
        case landed
        /// The input cannot seek (or the seek failed): it was opened again and reading starts
        /// over from its first packet.
        case atStart
    }

    /// Seeks to the keyframe at or before `seconds` from the start (with `forward`, at or after
    /// it). An input that cannot seek, or a seek that fails, starts over from the beginning
    /// instead (reopened when anything was read, since a failed seek drops FFmpeg's buffered
    /// packets and the cover art's one packet is read only once).
    func seek(to seconds: Double, forward: Bool = false) throws(ThumbnailError) -> SeekOutcome {
        if !cannotSeek {
            // The start is sought a second before the first timestamp: demuxers that compare
            // decode times (MPEG-TS) would otherwise land just after the first keyframe, whose
            // decode time precedes its presentation time.
            let seekSeconds = seconds > 0 ? seconds : -1
            let units = (seekSeconds * Double(timeBase.denominator) / Double(timeBase.numerator)).rounded(.down)
            let offset = units.isFinite && abs(units) < 1e15 ? Int64(units) : Int64(1e15)
            let (target, overflow) = (origin ?? 0).addingReportingOverflow(offset)
            if seek(toTimestamp: overflow ? Int64.max / 2 : target, forward: forward)
                || (seconds <= 0 && seek(toTimestamp: origin ?? 0, forward: forward))
            {
                framesFromStart = seconds <= 0 ? 0 : nil
                lastKeyframeTimestamp = nil
                return .landed
            }
            // A failed seek may have dropped FFmpeg's buffered packets and moved the read
            // position: only opening the input again restores its start.
            hasRead = true
        }
        try rewind()
        if seconds > 0 { readFromStart = true }
        return .atStart
    }

    /// Opens the input again and reads it from its first packet: for a demuxer whose seeks
    /// report success but leave nothing to read (a still picture's).
    func restart() throws(ThumbnailError) {
        hasRead = true
        try rewind()
        readFromStart = true
    }

    /// Seeks stream timestamp `timestamp`; false when the demuxer cannot.
    func seek(toTimestamp timestamp: Int64, forward: Bool) -> Bool {
        do {
            try input.format.seek(streamIndex: streamIndex, to: timestamp, forward: forward)
        } catch {
            return false
        }
        frames.restart()
        hasPending = false
        pendingPacket.clear()
        reachedEnd = false
        return true
    }

    /// Goes back to the first packet: nothing to do when nothing was read (or sought) yet, else
    /// the input is opened again.
    func rewind() throws(ThumbnailError) {
        frames.restart()
        hasPending = false
        pendingPacket.clear()
        reachedEnd = false
        packetsFromStart = 0
        framesFromStart = 0
        lastKeyframeTimestamp = nil
        guard hasRead else { return }
        try input.reopen()
        hasRead = false
    }

    /// The duration estimated from the last timestamps, for a container that states none
    /// (Matroska written to a pipe, a raw stream): the reader seeks to the last keyframe and
    /// reads the packets from there to the end (or, when it cannot seek, reads every packet
    /// from the start, without decoding), and takes the end of the latest packet. Sets
    /// ``duration``. The reader is left at the end: the next cover seeks.
    func estimateDuration() throws(ThumbnailError) -> Double? {
        if let duration { return duration }
        if cannotSeek {
            try rewind()
        } else if !seek(toTimestamp: Int64.max / 2, forward: false) {
            hasRead = true  // the failed seek may have dropped buffered packets: reopen
            try rewind()
        }
        var end: Double?
        while try readVideoPacket() {
            guard let start = presentationTime(ofPacketNumber: packetOrdinal) else { continue }
            let length =
                packet.duration.map { Self.seconds(ofUnits: Double($0), timeBase: timeBase) } ?? frameDuration ?? 0
            end = max(end ?? 0, start + length)
        }
        duration = end
        return end
    }
}

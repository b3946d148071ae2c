import MediaCore

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
    /// The stream's length in seconds (else the container's), when stated, or as estimated by
    /// ``estimateDuration()``.
    private(set) var duration: Double?
    /// Whether the input has no timestamps to seek by or place frames with (a raw elementary
    /// stream): it is read from its start, and its frames are placed by counting at
    /// ``frameDuration``.
    let isUntimed: Bool
    /// Whether the demuxer cannot seek this stream (an untimed stream, an audio file's cover
    /// art): a seek reopens the input instead.
    let cannotSeek: Bool
    /// Called between packets; throws `.cancelled` to stop.
    private let checkCancellation: () throws(ThumbnailError) -> Void

    private var draining = false
    /// A packet read ahead and not used yet: the next read returns it.
    private let pendingPacket: Packet
    /// Holds the packet just read while ``settleOrigin(resumingAt:)`` reads others.
    private let spare: Packet
    private var hasPending = false
    private var pendingOrdinal = 0
    /// Whether a packet was read since the input was opened (or reopened).
    private var hasRead = false
    /// Video packets read since the start, for placing an untimed stream's packets.
    private var packetsFromStart = 0
    /// The ordinal (from the start) of the packet in `packet`.
    private var packetOrdinal = 0
    /// Frames returned by ``nextFrame(into:)`` since the start, for placing an untimed
    /// stream's frames; nil after a seek that landed somewhere.
    private var framesFromStart: Int? = 0
    /// The timestamp of the last keyframe packet decoded alone, presentation (else decode): where
    /// the next keyframe search continues from in MP4, and where to seek back to it.
    private var lastKeyframeTimestamp: Int64?

    /// The time of the frame last returned by ``nextFrame(into:)``, ``nextKeyframe(into:)`` or
    /// ``lastKeyframe(atOrBefore:readsOn:into:)``, in seconds from the first frame; nil when it
    /// has none.
    private(set) var lastFrameTime: Double?
    /// Whether the last read met the end of the input.
    private(set) var reachedEnd = false
    /// The latest presentation time of a video packet read since ``forgetProblems()``.
    private(set) var lastPacketTime: Double?
    /// Whether a seek could not be made and reading started over from the start.
    private(set) var readFromStart = false
    /// Whether the origin is known to be the first frame's time (see ``settleOrigin(resumingAt:)``).
    private var originSettled = false
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
    private func seek(toTimestamp timestamp: Int64, forward: Bool) -> Bool {
        do {
            try input.format.seek(streamIndex: streamIndex, to: timestamp, forward: forward)
        } catch {
            return false
        }
        decoder.flush()
        draining = false
        hasPending = false
        pendingPacket.clear()
        reachedEnd = false
        return true
    }

    /// Goes back to the first packet: nothing to do when nothing was read (or sought) yet, else
    /// the input is opened again.
    private func rewind() throws(ThumbnailError) {
        decoder.flush()
        draining = false
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

    // MARK: Packets

    /// Reads the next intact packet of the video stream into `packet`; false at the end of the
    /// input (or when reading fails, which is remembered as a warning).
    private func readVideoPacket() throws(ThumbnailError) -> Bool {
        guard try readNextVideoPacket() else { return false }
        if !originSettled, packet.isKeyframe {
            originSettled = true
            if packet.presentationTimestamp == nil, !isUntimed, let resume = packet.decodeTimestamp {
                try settleOrigin(resumingAt: resume)
            }
        }
        return true
    }

    /// Makes the first frame's time the origin in a stream whose first keyframe carries no
    /// presentation timestamp (AVI with B-frames): FFmpeg places such a frame by the decode
    /// timestamps around it, so the first frame is shown a reorder delay after the stream's
    /// start, and FFmpeg's tools count from it. Runs once per reader, at the first keyframe read
    /// that lacks a presentation timestamp (`resume` is its decode timestamp): the reader goes to
    /// the start, decodes the first frame when the first keyframe lacks one too, then returns
    /// to the keyframe it had read and leaves it in `packet` (or, when it cannot find it again,
    /// restores the packet and keeps the next one pending). Files whose keyframes have
    /// presentation timestamps never get here.
    private func settleOrigin(resumingAt resume: Int64) throws(ThumbnailError) {
        guard !cannotSeek else { return }
        do {
            try spare.copy(from: packet)
        } catch {
            return
        }
        defer { spare.clear() }
        let ordinal = packetOrdinal
        guard seek(toTimestamp: origin ?? resume, forward: false) else { return }
        framesFromStart = nil
        var found = false
        repeat {
            found = try readNextVideoPacket()
        } while found && !packet.isKeyframe
        if found, packet.presentationTimestamp == nil {
            decoder.flush()
            draining = false
            send(packet)
            let first = try Self.makeFrame()
            if try nextFrame(into: first), let timestamp = first.timestamp {
                origin = timestamp
            }
        }
        decoder.flush()
        draining = false
        guard seek(toTimestamp: resume, forward: false) else { return }
        while try readNextVideoPacket() {
            if let position = spare.position, let here = packet.position {
                if here == position { return }
                if here > position {
                    try keepPending()
                    break
                }
                continue
            }
            let time = packet.decodeTimestamp ?? packet.presentationTimestamp ?? Int64.min
            if packet.isKeyframe, packet.decodeTimestamp == resume { return }
            if time > resume {
                try keepPending()
                break
            }
        }
        // Not found again: carry on with the packet that was read, from about where it was.
        do {
            try packet.copy(from: spare)
        } catch {
            throw ThumbnailError(.decodeFailed, reason: "cannot reference a packet", ffmpegError: error)
        }
        packetOrdinal = ordinal
    }

    private static func makeFrame() throws(ThumbnailError) -> Frame {
        do {
            return try Frame()
        } catch {
            throw ThumbnailError(.decodeFailed, reason: "cannot allocate a frame", ffmpegError: error)
        }
    }

    /// Reads the next intact packet of the video stream, the pending one first.
    private func readNextVideoPacket() throws(ThumbnailError) -> Bool {
        if hasPending {
            hasPending = false
            packet.clear()
            do {
                try packet.copy(from: pendingPacket)
            } catch {
                throw ThumbnailError(.decodeFailed, reason: "cannot reference a packet", ffmpegError: error)
            }
            pendingPacket.clear()
            packetOrdinal = pendingOrdinal
            return true
        }
        while true {
            try checkCancellation()
            packet.clear()
            hasRead = true
            switch input.format.readPacket(into: packet) {
            case .endOfFile:
                reachedEnd = true
                return false
            case .failed(.exit):
                // The interrupt callback stopped the read: this job is cancelled.
                try checkCancellation()
                throw ThumbnailError(.cancelled, reason: "\(input.path): cancelled")
            case .failed(let error):
                readFailure = error
                reachedEnd = true
                return false
            case .packet:
                guard packet.streamIndex == streamIndex, packet.hasData else { continue }
                packetOrdinal = packetsFromStart
                packetsFromStart += 1
                if packet.isCorrupt {
                    damagedPackets += 1
                    continue
                }
                if let time = presentationTime(ofPacketNumber: packetOrdinal) {
                    lastPacketTime = max(lastPacketTime ?? time, time)
                }
                return true
            }
        }
    }

    /// Keeps the packet just read for the next read.
    private func keepPending() throws(ThumbnailError) {
        do {
            try pendingPacket.copy(from: packet)
        } catch {
            throw ThumbnailError(.decodeFailed, reason: "cannot reference a packet", ffmpegError: error)
        }
        pendingOrdinal = packetOrdinal
        hasPending = true
    }

    /// `timestamp` in seconds from the first frame (which it defines when no origin is known yet).
    private func seconds(ofTimestamp timestamp: Int64) -> Double {
        if origin == nil { origin = timestamp }
        return Self.seconds(from: origin ?? 0, to: timestamp, timeBase: timeBase)
    }

    /// When the packet in `packet` (the `ordinal`-th from the start) is shown: its presentation
    /// timestamp; for an untimed stream, its place at ``frameDuration`` (right for keyframes,
    /// which no earlier-decoded frame follows); nil when the container does not say.
    private func presentationTime(ofPacketNumber ordinal: Int) -> Double? {
        if isUntimed { return Double(ordinal) * (frameDuration ?? 0) }
        return packet.presentationTimestamp.map(seconds(ofTimestamp:))
    }

    /// A time no later packet is shown before: the packet's decode timestamp (else its
    /// presentation timestamp); nil when it has neither.
    private func decodeTime(ofPacketNumber ordinal: Int) -> Double? {
        if isUntimed { return Double(ordinal) * (frameDuration ?? 0) }
        return (packet.decodeTimestamp ?? packet.presentationTimestamp).map(seconds(ofTimestamp:))
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
                let counted = framesFromStart.map { Double($0) * (frameDuration ?? 0) }
                lastFrameTime = isUntimed ? counted : seconds(of: frame) ?? counted
                framesFromStart = framesFromStart.map { $0 + 1 }
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
    /// stream's reordering delay. Returns false when no keyframe is left. The decoder is flushed
    /// afterwards, so the next call starts clean.
    ///
    /// In MP4/MOV the skipping is a forward seek from the last keyframe decoded (by the sample
    /// table, nothing read in between): asking that demuxer to discard non-keyframes would give
    /// the keyframe after them a wrong presentation time. Elsewhere the demuxer is asked to
    /// discard them (Matroska skips them by its index).
    func nextKeyframe(into frame: Frame) throws(ThumbnailError) -> Bool {
        if input.format.seeksBySampleTable, !hasPending, let previous = lastKeyframeTimestamp {
            // MP4's seek reads the timestamp as a presentation time.
            guard seek(toTimestamp: previous + 1, forward: true) else { return false }
        }
        while true {
            let skips = !input.format.seeksBySampleTable && !isUntimed
            if skips { input.format.setSkipsNonKeyframes(ofStream: streamIndex, true) }
            var found = false
            repeat {
                found = try readVideoPacket()
            } while found && !packet.isKeyframe
            if skips { input.format.setSkipsNonKeyframes(ofStream: streamIndex, false) }
            guard found else { return false }
            try keep(packet)
            if try decodeKept(into: frame) { return true }
        }
    }

    /// The last keyframe whose presentation time is at or before `target` seconds, from where the
    /// reader is (after a seek), decoded alone. With `readsOn` the packets after the first
    /// keyframe are read on, and the last keyframe at or before `target` is kept (demuxers that
    /// seek by bisection or a coarse index, MPEG-PS/TS and ASF, land on an earlier one), until a
    /// packet decoded after `target` shows that no later keyframe can qualify; without it (MP4's
    /// sample table seeks exactly) the first keyframe is taken. A first keyframe after `target`
    /// is returned as it is (the caller seeks further back). Returns false when no keyframe is
    /// left.
    func lastKeyframe(atOrBefore target: Double, readsOn: Bool, into frame: Frame) throws(ThumbnailError) -> Bool {
        let slack = 1e-5
        while true {
            let skips = !input.format.seeksBySampleTable && !isUntimed
            if skips { input.format.setSkipsNonKeyframes(ofStream: streamIndex, true) }
            var candidate: Double??
            while try readVideoPacket() {
                guard packet.isKeyframe else {
                    // Past `target` no later keyframe can qualify: stop, once one was found or when a
                    // later time was asked. For the first frame (a stream cut mid-GOP, an MPEG-TS
                    // recorded from the middle: its first packets are not keyframes and do not
                    // decode) read on to the first keyframe, the first decodable frame, as the ffmpeg
                    // CLI shows it.
                    if candidate != nil || target > slack, let time = decodeTime(ofPacketNumber: packetOrdinal),
                        time > target + slack
                    {
                        break
                    }
                    continue
                }
                // A keyframe with no presentation timestamp (AVI) is judged by its decode time,
                // which is never later; the decoded frame says the truth and the caller checks.
                let time = presentationTime(ofPacketNumber: packetOrdinal) ?? decodeTime(ofPacketNumber: packetOrdinal)
                if candidate != nil, let time, time > target + slack {
                    try keepPending()
                    break
                }
                try keep(packet)
                candidate = .some(time)
                guard readsOn, let time, time < target - slack else { break }
            }
            if skips { input.format.setSkipsNonKeyframes(ofStream: streamIndex, false) }
            guard candidate != nil else { return false }
            if try decodeKept(into: frame) { return true }
            // The kept keyframe does not decode: the next one may.
            if !hasPending, reachedEnd { return false }
        }
    }

    /// Makes `keyframePacket` a reference to `source` and remembers where it is.
    private func keep(_ source: Packet) throws(ThumbnailError) {
        do {
            try keyframePacket.copy(from: source)
        } catch {
            throw ThumbnailError(.decodeFailed, reason: "cannot reference a packet", ffmpegError: error)
        }
        keptOrdinal = packetOrdinal
        keptPosition = source.position
        keptTime = presentationTime(ofPacketNumber: packetOrdinal)
        lastKeyframeTimestamp = source.presentationTimestamp ?? source.decodeTimestamp
    }

    private var keptOrdinal = 0
    private var keptPosition: Int64?
    private var keptTime: Double?

    /// Decodes `keyframePacket` alone into `frame`. When the lone keyframe yields no picture (a
    /// field pair split over two packets, a codec that needs what follows), it is decoded on in
    /// order from that keyframe instead. The frame's time is its own timestamp, else the
    /// packet's; a keyframe with neither (AVI with B-frames, whose reference frames carry only a
    /// decode time) is decoded in order from it, as FFmpeg's own players do, so FFmpeg places it.
    private func decodeKept(into frame: Frame) throws(ThumbnailError) -> Bool {
        decoder.flush()
        draining = false
        do {
            try decoder.send(keyframePacket)
        } catch {
            decodeErrors += 1
            lastDecodeError = error
            return false
        }
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
            if isUntimed {
                lastFrameTime = Double(keptOrdinal) * (frameDuration ?? 0)
            } else if keyframePacket.presentationTimestamp == nil, let placed = try placedInOrder(into: frame) {
                lastFrameTime = placed
            } else {
                lastFrameTime =
                    seconds(of: frame) ?? keptTime ?? keyframePacket.decodeTimestamp.map(seconds(ofTimestamp:))
            }
            return true
        }
        // No picture from the lone keyframe: decode on in order from it (the packets after it
        // are still to be read, or were read on past it: then the reader seeks back to it).
        if hasPending || keptOrdinal + 1 != packetsFromStart {
            guard try seekBackToKept() else { return false }
        }
        decoder.flush()
        draining = false
        send(keyframePacket)
        if let keptTime, keptTime < -1e-5 {
            // A keyframe before the first frame's time: an edit list that starts between keyframes
            // (a stream copy cut mid-GOP, as phones and editors write it) hides the frames before
            // its start, and the decoder drops them. The first picture it returns is the one at the
            // edit's start: what the file shows first, and what the ffmpeg CLI returns.
            return try nextFrame(into: frame)
        }
        return try nextKeyframeFrame(into: frame)
    }

    /// Seeks back to the kept keyframe and reads it again into `packet` (and `keyframePacket`):
    /// demuxers that seek by bisection land before it, so packets are read up to it. False when it
    /// cannot be found again.
    private func seekBackToKept() throws(ThumbnailError) -> Bool {
        guard let start = lastKeyframeTimestamp, !cannotSeek, seek(toTimestamp: start, forward: false) else {
            return false
        }
        framesFromStart = nil
        let position = keptPosition
        while try readVideoPacket() {
            if let position, let here = packet.position {
                // By byte position where the demuxer says it: the timestamps a demuxer guesses for
                // packets without them (MPEG-PS) differ from one seek to the next.
                if here == position, packet.isKeyframe {
                    try keep(packet)
                    return true
                }
                if here > position { return false }
                continue
            }
            if packet.isKeyframe, (packet.presentationTimestamp ?? packet.decodeTimestamp) == start {
                try keep(packet)
                return true
            }
            if let decoded = packet.decodeTimestamp ?? packet.presentationTimestamp, decoded > start { return false }
        }
        return false
    }

    /// The time FFmpeg gives the kept keyframe, which has no presentation timestamp, when it is
    /// decoded in order: its decoder places such a frame by the decode timestamps around it (as
    /// ffprobe and the ffmpeg CLI show it). Nil when the reader cannot go back to it. The frame
    /// is decoded again into `frame`.
    private func placedInOrder(into frame: Frame) throws(ThumbnailError) -> Double? {
        guard try seekBackToKept() else { return nil }
        decoder.flush()
        draining = false
        send(packet)
        guard try nextKeyframeFrame(into: frame) else { return nil }
        return lastFrameTime
    }

    /// Decodes on in order (the keyframe already sent) to the first keyframe picture, within a
    /// few frames: keyframe mode returns no picture that is not a keyframe, except the frame at
    /// the start of an edit list that begins between keyframes (``decodeKept(into:)``).
    private func nextKeyframeFrame(into frame: Frame) throws(ThumbnailError) -> Bool {
        for _ in 0..<16 {
            guard try nextFrame(into: frame) else { return false }
            if frame.isKeyframe {
                decoder.flush()
                draining = false
                return true
            }
        }
        return false
    }

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

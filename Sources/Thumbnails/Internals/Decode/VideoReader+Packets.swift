import MediaCore

extension VideoReader {
    // MARK: Packets

    /// Reads the next intact packet of the video stream into `packet`; false at the end of the
    /// input (or when reading fails, which is remembered as a warning).
    func readVideoPacket() throws(ThumbnailError) -> Bool {
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
    func settleOrigin(resumingAt resume: Int64) throws(ThumbnailError) {
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
            frames.restart()
            try frames.send(packet, from: self)
            let first = try Self.makeFrame()
            if try nextFrame(into: first), let timestamp = first.timestamp {
                origin = timestamp
            }
        }
        frames.restart()
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

    static func makeFrame() throws(ThumbnailError) -> Frame {
        do {
            return try Frame()
        } catch {
            throw ThumbnailError(.decodeFailed, reason: "cannot allocate a frame", ffmpegError: error)
        }
    }

    /// Reads the next intact packet of the video stream, the pending one first.
    func readNextVideoPacket() throws(ThumbnailError) -> Bool {
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
    func keepPending() throws(ThumbnailError) {
        do {
            try pendingPacket.copy(from: packet)
        } catch {
            throw ThumbnailError(.decodeFailed, reason: "cannot reference a packet", ffmpegError: error)
        }
        pendingOrdinal = packetOrdinal
        hasPending = true
    }

    /// `timestamp` in seconds from the first frame (which it defines when no origin is known yet).
    func seconds(ofTimestamp timestamp: Int64) -> Double {
        if origin == nil { origin = timestamp }
        return Self.seconds(from: origin ?? 0, to: timestamp, timeBase: timeBase)
    }

    /// When the packet in `packet` (the `ordinal`-th from the start) is shown: its presentation
    /// timestamp; for an untimed stream, its place at ``frameDuration`` (right for keyframes,
    /// which no earlier-decoded frame follows); nil when the container does not say.
    func presentationTime(ofPacketNumber ordinal: Int) -> Double? {
        if isUntimed { return Double(ordinal) * (frameDuration ?? 0) }
        return packet.presentationTimestamp.map(seconds(ofTimestamp:))
    }

    /// A time no later packet is shown before: the packet's decode timestamp (else its
    /// presentation timestamp); nil when it has neither.
    func decodeTime(ofPacketNumber ordinal: Int) -> Double? {
        if isUntimed { return Double(ordinal) * (frameDuration ?? 0) }
        return (packet.decodeTimestamp ?? packet.presentationTimestamp).map(seconds(ofTimestamp:))
    }
}

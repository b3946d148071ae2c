import MediaCore

extension VideoReader {
    // MARK: Decoding

    /// Decodes the next frame in presentation order into `frame`, reading packets as needed and
    /// draining the decoder at the end of the input. Frames the decoder flags as damaged are
    /// skipped. Returns false when no frame is left.
    func nextFrame(into frame: Frame) throws(ThumbnailError) -> Bool {
        guard try frames.next(into: frame, from: self) else { return false }
        let counted = framesFromStart.map { Double($0) * (frameDuration ?? 0) }
        lastFrameTime = isUntimed ? counted : seconds(of: frame) ?? counted
        framesFromStart = framesFromStart.map { $0 + 1 }
        return true
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
    func keep(_ source: Packet) throws(ThumbnailError) {
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

    /// Decodes `keyframePacket` alone into `frame`. When the lone keyframe yields no picture (a
    /// field pair split over two packets, a codec that needs what follows), it is decoded on in
    /// order from that keyframe instead. The frame's time is its own timestamp, else the
    /// packet's; a keyframe with neither (AVI with B-frames, whose reference frames carry only a
    /// decode time) is decoded in order from it, as FFmpeg's own players do, so FFmpeg places it.
    func decodeKept(into frame: Frame) throws(ThumbnailError) -> Bool {
        guard try frames.decodeAlone(keyframePacket, from: self) else { return false }
        if try frames.next(into: frame, from: self) {
            frames.restart()
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
        frames.restart()
        try frames.send(keyframePacket, from: self)
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
    func seekBackToKept() throws(ThumbnailError) -> Bool {
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
    func placedInOrder(into frame: Frame) throws(ThumbnailError) -> Double? {
        guard try seekBackToKept() else { return nil }
        frames.restart()
        try frames.send(packet, from: self)
        guard try nextKeyframeFrame(into: frame) else { return nil }
        return lastFrameTime
    }

    /// Decodes on in order (the keyframe already sent) to the first keyframe picture, within a
    /// few frames: keyframe mode returns no picture that is not a keyframe, except the frame at
    /// the start of an edit list that begins between keyframes (``decodeKept(into:)``).
    func nextKeyframeFrame(into frame: Frame) throws(ThumbnailError) -> Bool {
        for _ in 0..<16 {
            guard try nextFrame(into: frame) else { return false }
            if frame.isKeyframe {
                frames.restart()
                return true
            }
        }
        return false
    }
}

extension VideoReader: PacketFeed {
    /// The next intact packet of the video stream (``readVideoPacket()``), nil at the end of the input.
    func nextPacket() throws(ThumbnailError) -> Packet? {
        try readVideoPacket() ? packet : nil
    }

    /// A refused packet or a frame that failed is counted as a warning, not fatal (the next keyframe may decode);
    /// 32 failures in a row to give a frame mean nothing decodes.
    func decoderFailed(_ error: FFmpegError, inARow: Int) throws(ThumbnailError) {
        decodeErrors += 1
        lastDecodeError = error
        guard inARow < 32 else { throw decodeFailure() }
    }

    /// Frames the decoder flags as damaged are counted and skipped.
    func accepts(_ frame: Frame) -> Bool {
        guard frame.isDamaged else { return true }
        damagedFrames += 1
        return false
    }
}

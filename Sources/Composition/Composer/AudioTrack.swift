import Foundation
import MediaCore

/// One stretch of a track's sound: a file's audio stream placed on the output's timeline.
struct AudioPiece: Sendable {
    let path: FileSystemPath
    let stream: StreamParameters
    /// The file's start time (seconds), what its timestamps count from.
    let origin: Double
    /// The output sample at which the piece's time 0 plays (its first sample plays at its own time after that, never
    /// before it); nil to play its first sample right after the track's last one.
    let place: Int?
    /// The output sample at which the piece is cut, nil to play it to its end.
    let end: Int?
    /// The most samples it plays, nil for all it decodes: its stream's stated length, which leaves out the padding
    /// that fills its last AAC frame (a looped piece would otherwise start late by that much at each pass).
    var length: Int? = nil
    /// Turns a reason into the error naming the piece's file.
    let fail: @Sendable (String) -> CompositionError

    /// The pieces of a take's `segments` (placed on its clock, the take's time 0 at output sample `offsetSamples`):
    /// each segment with sound placed at its start and cut at its end, the last one not cut (the join rule,
    /// ``TakeSegment``).
    static func pieces(of segments: [TakeSegment], offsetSamples: Int) -> [AudioPiece] {
        let rate = Double(CompositionPlan.AudioSettings.sampleRate)
        return segments.enumerated().compactMap { index, segment in
            segment.audio.map { stream in
                AudioPiece(
                    path: FileSystemPath(segment.file), stream: stream, origin: segment.origin,
                    place: offsetSamples + Int((segment.start * rate).rounded()),
                    end: index == segments.count - 1
                        ? nil : offsetSamples + Int(((segment.start + segment.length) * rate).rounded()),
                    fail: segment.fail)
            }
        }
    }
}

/// One track's sound on its way to the mix (a take's segments, or the soundtrack): decodes each piece's audio in
/// order, resamples it to 48 kHz float (mono stays mono, anything else becomes stereo, as the first piece decides),
/// and adds each stretch of the output to the mix with the track's gain and pan. Pieces are joined without gap or
/// overlap: a piece starting after the one before leaves silence between them, one starting before it loses the
/// samples that would overlap; a piece is cut at its end.
///
/// The first piece is opened when the track is made (a bad file fails the composition before anything is written);
/// each later one when the track reaches it. Memory: the samples of at most one mix chunk and one decoded frame,
/// whatever the track's length.
final class AudioTrack {
    private let pieces: [AudioPiece]
    /// Whether the pieces start again after the last, each time following the one before.
    private let loops: Bool
    private let gain: Double
    private let pan: Double
    private let interruption: Interruption
    /// The piece being read, and how many times the pieces have been gone through.
    private var reader: AudioPieceReader?
    private var nextPiece = 0
    private var pass = 0
    /// Samples the current pass has given: a pass that gives none ends a loop.
    private var passSamples = 0
    /// 1 or 2, fixed by the first frame decoded.
    private var channels = 0
    /// Resampled samples not mixed yet, interleaved; `fifoStart` is the output sample of the first.
    private var fifo: [Float] = []
    private var fifoStart = 0
    /// Whether a sample has been placed (``fifoStart`` means something).
    private var started = false
    private var endOfInput = false
    private var converted: [Float] = []

    /// A track of `pieces`, played once or over and over (`loops`), at `gain` and `pan`; opens the first piece.
    init(
        pieces: [AudioPiece], loops: Bool, gain: Double, pan: Double, interruption: Interruption
    ) throws(CompositionError) {
        self.pieces = pieces
        self.loops = loops
        self.gain = gain
        self.pan = pan
        self.interruption = interruption
        if let first = pieces.first {
            reader = try AudioPieceReader(first, interruption: interruption)
            nextPiece = 1
        } else {
            endOfInput = true
        }
    }

    /// The output sample just after the last one placed.
    private var fifoEnd: Int { fifoStart + fifo.count / max(1, channels) }

    /// Adds the track's samples for output samples `start ..< start + mix.frameCount` to `mix`.
    func mix(into mix: inout StereoMixBuffer, from start: Int) throws(CompositionError) {
        guard gain > 0 else { return }
        let end = start + mix.frameCount
        while true {
            addQueued(to: &mix, from: start)
            // Whatever is queued now lies at or after `end`: the queue is empty unless the stretch is complete.
            if endOfInput || (started && fifoEnd >= end) { return }
            try decodeMore()
        }
    }

    /// Adds the queued samples that fall in `mix` (output samples from `start` on) and takes them off the queue,
    /// with those placed before `start` (a piece placed before the output's start, such as music started part-way
    /// into its file), so the queue never holds more than the frame last decoded.
    private func addQueued(to mix: inout StereoMixBuffer, from start: Int) {
        guard started, !fifo.isEmpty else { return }
        if fifoStart < start {
            let drop = min(fifo.count / channels, start - fifoStart)
            fifo.removeFirst(drop * channels)
            fifoStart += drop
        }
        let from = fifoStart - start
        let count = min(fifo.count / channels, mix.frameCount - from)
        guard from < mix.frameCount, count > 0 else { return }
        let gains = AudioMix.panGains(pan: pan, channels: channels)
        let left = Float(gains.left * gain)
        let right = Float(gains.right * gain)
        fifo.withUnsafeBufferPointer { samples in
            let used = UnsafeBufferPointer(rebasing: samples[0..<(count * channels)])
            if channels == 1 {
                mix.add(mono: used, at: from, left: left, right: right)
            } else {
                mix.add(stereo: used, at: from, left: left, right: right)
            }
        }
        fifo.removeFirst(count * channels)
        fifoStart += count
    }

    /// Decodes and resamples one more frame of the current piece into the queue, or moves on to the next piece.
    private func decodeMore() throws(CompositionError) {
        guard let reader else {
            try openNextPiece()
            return
        }
        converted.removeAll(keepingCapacity: true)
        guard let time = try reader.next(into: &converted, channels: &channels) else {
            self.reader = nil
            append(reader)
            return
        }
        if !reader.isPlaced {
            // A piece placed by the plan starts at its place plus its first sample's time; on a later pass of a loop
            // (or without a place) it follows the sample placed last.
            if pass == 0, let place = reader.piece.place {
                let rate = Double(CompositionPlan.AudioSettings.sampleRate)
                reader.place(at: place + Int((max(0, time) * rate).rounded()))
            } else {
                reader.place(at: started ? fifoEnd : 0)
            }
        }
        append(reader)
    }

    /// Moves the samples `reader` converted into the (empty) queue, where they fall: after silence when the piece
    /// starts after the last sample placed, without those that would overlap it, and none past the piece's end.
    private func append(_ reader: AudioPieceReader) {
        guard let position = reader.position, !converted.isEmpty else { return }
        let decoded = converted.count / channels
        defer { reader.advance(by: decoded) }
        let first = started ? min(decoded, max(0, fifoEnd - position)) : 0
        var last = reader.piece.end.map { min(decoded, $0 - position) } ?? decoded
        if let length = reader.piece.length { last = min(last, length - reader.played) }
        guard last > first else { return }
        if !started || position > fifoEnd {
            started = true
            fifoStart = position
        }
        fifo.append(contentsOf: converted[(first * channels)..<(last * channels)])
        passSamples += last - first
    }

    /// Opens the next piece (starting the pieces again when the track loops and the last pass gave sound), or ends
    /// the track.
    private func openNextPiece() throws(CompositionError) {
        if nextPiece == pieces.count {
            guard loops, passSamples > 0 else {
                endOfInput = true
                return
            }
            nextPiece = 0
            pass += 1
            passSamples = 0
        }
        reader = try AudioPieceReader(pieces[nextPiece], interruption: interruption)
        nextPiece += 1
    }
}

/// One piece of a track being read: its file opened again for its audio stream, decoded in order and resampled to
/// 48 kHz.
final class AudioPieceReader {
    let piece: AudioPiece
    private let format: FormatContext
    private let frames: DecodedStream
    private let timeBase: Double
    private var resampler: Resampler?
    private let frame: Frame
    /// The output sample of the next sample converted, nil until the piece is placed.
    private(set) var position: Int?
    /// How many samples have been converted since the piece was placed.
    private(set) var played = 0

    /// Opens `piece`'s file for its audio stream, which probing found, under the same rules as its first opening
    /// (`TakeSource.open`: the file is checked again, so a file swapped since for a FIFO, device or folder is refused).
    ///
    /// The file is not probed again when its header names the same stream: probing decodes a few video frames, and
    /// the audio decoder takes its format from the frames it decodes. Other streams' packets are dropped by the
    /// demuxer.
    init(_ piece: AudioPiece, interruption: Interruption) throws(CompositionError) {
        self.piece = piece
        let stream = piece.stream
        do {
            format = try TakeSource.open(piece.path, interruption: interruption, fail: piece.fail, probing: false)
            let header = stream.index < format.streamCount ? format.stream(at: stream.index) : nil
            let decoder: Decoder
            if let header, header.mediaType == stream.mediaType, header.codecName == stream.codecName,
                let opened = try? Decoder(format: format, streamIndex: stream.index, threadCount: 1)
            {
                decoder = opened
            } else {
                // A container whose header does not say it all (streams found only in the packets): probe it.
                try format.findStreamInfo()
                guard stream.index < format.streamCount, format.stream(at: stream.index).codecName == stream.codecName
                else {
                    throw piece.fail("its audio stream changed between two reads of the file")
                }
                decoder = try Decoder(format: format, streamIndex: stream.index, threadCount: 1)
            }
            format.discardStreams(except: stream.index)
            frames = try DecodedStream(format: format, decoder: decoder, streamIndex: stream.index)
            frame = try Frame()
        } catch {
            throw TakeSource.failure(error, piece.fail)
        }
        timeBase = format.timeBase(ofStream: stream.index).doubleValue
    }

    /// Whether the piece has been placed on the output's timeline.
    var isPlaced: Bool { position != nil }

    /// Places the piece's next sample at output sample `sample`.
    func place(at sample: Int) { position = sample }

    /// Counts `count` samples as converted.
    func advance(by count: Int) {
        position = position.map { $0 + count }
        played += count
    }

    /// Decodes the next frame and appends it to `samples`, resampled (to `channels` channels: 0 lets this first frame
    /// decide, 1 for mono, 2 otherwise); returns its time in seconds from the file's start (0 when it has none). At the
    /// end of the piece, appends what the resampler held back and returns nil.
    func next(into samples: inout [Float], channels: inout Int) throws(CompositionError) -> Double? {
        do {
            guard try frames.next(into: frame) else {
                try resampler?.convert(nil, into: &samples)
                return nil
            }
            if resampler == nil {
                if channels == 0 { channels = frame.channelCount == 1 ? 1 : 2 }
                resampler = try Resampler(
                    for: frame, channels: channels, sampleRate: CompositionPlan.AudioSettings.sampleRate)
            }
            let time = frame.timestamp.map { Double($0) * timeBase - piece.origin } ?? 0
            try resampler?.convert(frame, into: &samples)
            return time
        } catch {
            throw TakeSource.failure(error, piece.fail)
        }
    }
}

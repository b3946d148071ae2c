import Foundation
import MediaCore

/// One take's sound on its way to the mix: decodes the take's audio in order, resamples it to 48 kHz float (mono
/// stays mono, anything else becomes stereo), and adds each stretch of the output to the mix with the take's gain and
/// pan, at the take's place on the output's timeline.
///
/// Memory: the samples of at most one mix chunk and one decoded frame, whatever the take's length.
final class AudioTrack {
    private let format: FormatContext
    private let frames: DecodedStream
    private let timeBase: Double
    private let origin: Double
    private let gain: Double
    private let pan: Double
    /// The output sample at which the take's time 0 plays.
    private let offset: Int
    private var resampler: Resampler?
    /// Resampled samples not mixed yet, interleaved; `fifoStart` is the output sample of the first.
    private var fifo: [Float] = []
    private var fifoStart = 0
    private var started = false
    private var endOfInput = false
    private let fail: (String) -> CompositionError

    /// Opens the audio `stream` of the take at `path`, which ``TakeSource/probe(_:order:shouldStop:)`` found, with
    /// the file's start time `origin` (seconds); its samples play from output sample `offsetSamples` on.
    ///
    /// The file is opened again (the probe's context reads the video on another thread) but not probed again when
    /// its header names the same stream: probing decodes a few video frames, and the audio decoder takes its format
    /// from the frames it decodes. Other streams' packets are dropped by the demuxer.
    init(
        path: FileSystemPath, stream: StreamParameters, origin: Double, offsetSamples: Int, gain: Double,
        pan: Double, interruption: Interruption, fail: @escaping (String) -> CompositionError
    ) throws(CompositionError) {
        self.fail = fail
        do {
            format = try FormatContext(path: path, interruption: interruption, policy: .selfContained)
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
                    throw fail("its audio stream changed between two reads of the file")
                }
                decoder = try Decoder(format: format, streamIndex: stream.index, threadCount: 1)
            }
            format.discardStreams(except: stream.index)
            frames = try DecodedStream(format: format, decoder: decoder, streamIndex: stream.index)
        } catch {
            throw TakeSource.failure(error, fail)
        }
        timeBase = format.timeBase(ofStream: stream.index).doubleValue
        self.origin = origin
        offset = offsetSamples
        self.gain = gain
        self.pan = pan
    }

    private var channels: Int { resampler?.channels ?? 2 }

    /// Adds the take's samples for output samples `start ..< start + mix.frameCount` to `mix`.
    func mix(into mix: inout StereoMixBuffer, from start: Int) throws(CompositionError) {
        let end = start + mix.frameCount
        while !endOfInput, !started || fifoStart + fifo.count / channels < end {
            try decodeMore()
        }
        guard started else { return }
        // Samples before `start` are late leftovers (never, for a continuous take): drop them.
        if fifoStart < start {
            let drop = min(fifo.count / channels, start - fifoStart)
            fifo.removeFirst(drop * channels)
            fifoStart += drop
        }
        let available = fifo.count / channels
        let from = fifoStart - start
        let count = min(available, mix.frameCount - from)
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

    /// Decodes and resamples one more frame into the FIFO (or drains the resampler at the end).
    private func decodeMore() throws(CompositionError) {
        do {
            let frame = try Frame()
            guard try frames.next(into: frame) else {
                try resampler?.convert(nil, into: &fifo)
                endOfInput = true
                return
            }
            if resampler == nil {
                resampler = try Resampler(
                    for: frame, channels: frame.channelCount == 1 ? 1 : 2,
                    sampleRate: CompositionPlan.AudioSettings.sampleRate)
            }
            if !started {
                started = true
                let time = frame.timestamp.map { Double($0) * timeBase - origin } ?? 0
                fifoStart = offset + Int((max(0, time) * Double(CompositionPlan.AudioSettings.sampleRate)).rounded())
            }
            try resampler?.convert(frame, into: &fifo)
        } catch {
            throw TakeSource.failure(error, fail)
        }
    }
}

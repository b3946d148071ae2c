internal import CFFmpeg

/// An opened encoder (libx264 or AAC); frees it in `deinit`.
///
/// Deliberately not `Sendable`: a codec context is used by one thread at a time.
package final class Encoder {
    let pointer: FFmpeg.CodecContextPointer
    private let lifetime = OwnerLifetime(of: Encoder.self)

    private init(pointer: FFmpeg.CodecContextPointer) {
        self.pointer = pointer
    }

    deinit {
        FFmpeg.closeCodec(pointer)
    }

    /// libx264 for `width` x `height` 4:2:0 BT.709 frames at `frames / seconds` per second, `crf` (0 = lossless) and
    /// `preset`, High profile, `threadCount` threads (0: libx264's choice), parameter sets in the header (MP4), and
    /// `constraints` when given (level, closed GOP, B-frames, VBV; they override the preset's choices).
    ///
    /// Throws ``FFmpegError/encoderNotFound`` when FFmpeg was built without libx264, or FFmpeg's error for settings it
    /// refuses.
    package static func h264(
        width: Int, height: Int, frames: Int, perSeconds seconds: Int, crf: Int, preset: String, threadCount: Int,
        constraints: H264Constraints? = nil
    ) throws(FFmpegError) -> Encoder {
        Encoder(
            pointer: try FFmpeg.openH264Encoder(
                width: width, height: height, frameRate: (frames, seconds), crf: crf, preset: preset,
                threadCount: threadCount, constraints: constraints, globalHeader: true))
    }

    /// FFmpeg's AAC encoder: `channels` channels at `sampleRate`, `bitRate` bit/s, its configuration in the header.
    package static func aac(sampleRate: Int, channels: Int, bitRate: Int) throws(FFmpegError) -> Encoder {
        Encoder(
            pointer: try FFmpeg.openAACEncoder(
                sampleRate: sampleRate, channels: channels, bitRate: bitRate, globalHeader: true))
    }

    /// Sends a frame to encode, or nil to drain the encoder.
    package func send(_ frame: Frame?) throws(FFmpegError) -> FFmpeg.CodecStatus {
        try FFmpeg.sendFrame(frame?.pointer, to: pointer)
    }

    /// Takes the next encoded packet into `packet` (`.tryAgain`: send more first; `.endOfFile`: drained).
    package func receive(into packet: Packet) throws(FFmpegError) -> FFmpeg.CodecStatus {
        try FFmpeg.receivePacket(from: pointer, into: packet.pointer)
    }

    /// Samples per channel the encoder takes in each frame (audio; 1,024 for AAC).
    package var frameSize: Int { FFmpeg.frameSize(of: pointer) }

    /// Samples per channel the encoder puts before the first input sample (audio; AAC's priming, 1,024), which a
    /// player skips only when an edit list tells it to.
    package var initialPadding: Int { FFmpeg.initialPadding(of: pointer) }
}

/// An MP4 file being written; closes and frees it in `deinit` (the caller removes a file it did not finish).
///
/// Deliberately not `Sendable`.
package final class Muxer {
    private let pointer: FFmpeg.OutputContextPointer
    private var timeBases: [AVRational] = []
    private let lifetime = OwnerLifetime(of: Muxer.self)

    /// A muxer that will write an MP4 file at `path`.
    package init(path: FileSystemPath) throws(FFmpegError) {
        pointer = try FFmpeg.makeMP4Output(path: path)
    }

    deinit {
        FFmpeg.freeOutput(pointer)
    }

    /// Adds a stream carrying `encoder`'s packets; returns its index.
    package func addStream(for encoder: Encoder) throws(FFmpegError) -> Int {
        let index = try FFmpeg.addStream(to: pointer, for: encoder.pointer)
        timeBases.append(FFmpeg.timeBase(of: encoder.pointer))
        return index
    }

    /// Creates the file and writes the header (`+faststart`: the index is moved to the front at the end).
    ///
    /// With `editLists` false no edit list is written: a video track with B-frames gets negative composition offsets
    /// (`ctts` version 1) so its first picture is still shown at time 0, and an audio track's priming samples are
    /// played (the caller drops as many samples from the start of the sound to keep it in step).
    package func start(faststart: Bool, editLists: Bool = true) throws(FFmpegError) {
        try FFmpeg.startOutput(pointer, faststart: faststart, editLists: editLists)
    }

    /// Writes a packet of stream `index`, its times in that stream's encoder's time base.
    package func write(_ packet: Packet, stream index: Int) throws(FFmpegError) {
        try FFmpeg.writePacket(packet.pointer, stream: index, timeBase: timeBases[index], to: pointer)
    }

    /// Writes the trailer and closes the file.
    package func finish() throws(FFmpegError) {
        try FFmpeg.finishOutput(pointer)
    }
}

/// A libswresample context converting one input's audio to interleaved float at one rate; frees it in `deinit`.
///
/// Deliberately not `Sendable`.
package final class Resampler {
    private let pointer: FFmpeg.ResamplerPointer
    /// The output's channels (1 or 2).
    package let channels: Int
    private let lifetime = OwnerLifetime(of: Resampler.self)

    /// A resampler from `frame`'s format, rate and channel layout to `channels` interleaved float channels at
    /// `sampleRate` (more than two channels are downmixed with libswresample's standard matrix).
    package init(for frame: Frame, channels: Int, sampleRate: Int) throws(FFmpegError) {
        pointer = try FFmpeg.makeResampler(for: frame.pointer, channels: channels, sampleRate: sampleRate)
        self.channels = channels
    }

    deinit {
        FFmpeg.freeResampler(pointer)
    }

    /// Appends `frame`'s samples, converted and interleaved, to `output`; nil appends what the resampler still holds.
    package func convert(_ frame: Frame?, into output: inout [Float]) throws(FFmpegError) {
        try FFmpeg.resample(pointer, frame?.pointer, channels: channels, into: &output)
    }
}

import Foundation
import MediaCore

/// The encode and mux stages: the H.264 and AAC encoders and the MP4 muxer writing the temporary file, fed one
/// picture and its sound at a time.
final class OutputStreams {
    private let video: Encoder
    private let audio: Encoder
    private let muxer: Muxer
    private let videoStream: Int
    private let audioStream: Int
    private let packet: Packet
    /// AAC frames take a fixed number of samples: what is left over waits for the next picture's sound.
    private let chunk: Int
    private var pendingSound: [Float] = []
    /// The timestamp of the next audio frame, in samples (the first is the number of samples dropped).
    private var samplesEncoded = 0
    /// Samples still to drop from the start of the mix (AAC's priming, when the file has no edit list).
    private var samplesToDrop = 0
    /// What a failure to write names.
    private let output: URL

    /// Opens the encoders for `plan` and starts an MP4 (`+faststart`) at `temporary`. A plan with a target gets its
    /// encoder limits for an output of `duration` seconds and no edit list.
    init(_ plan: CompositionPlan, duration: Double, temporary: FileSystemPath, output: URL, threadCount: Int) throws {
        video = try Encoder.h264(
            width: plan.size.width, height: plan.size.height, frames: plan.frameRate.frames,
            perSeconds: plan.frameRate.seconds, crf: plan.video.constantRateFactor, preset: plan.video.preset,
            threadCount: threadCount, constraints: plan.target?.constraints(at: plan.frameRate, duration: duration))
        audio = try Encoder.aac(
            sampleRate: CompositionPlan.AudioSettings.sampleRate, channels: 2,
            bitRate: plan.target?.audioBitRate ?? plan.audio.bitRate)
        muxer = try Muxer(path: temporary)
        videoStream = try muxer.addStream(for: video)
        audioStream = try muxer.addStream(for: audio)
        packet = try Packet()
        chunk = audio.frameSize > 0 ? audio.frameSize : 1024
        self.output = output
        // Without an edit list, a player plays the AAC encoder's priming as the first samples of the track; as many
        // samples are dropped from the start of the mix, so sample n of the file is still sample n of the mix and
        // picture and sound stay in step (the first 21 ms of sound are the priming's silence).
        let editLists = plan.target == nil
        samplesToDrop = editLists ? 0 : audio.initialPadding
        samplesEncoded = samplesToDrop
        do {
            try muxer.start(faststart: true, editLists: editLists)
        } catch {
            throw CompositionError(.output, "cannot write \(output.path): \(TakeSource.reason(error))")
        }
    }

    /// Encodes `picture` as output frame `index`, then `sound` (interleaved stereo) as far as whole AAC frames go.
    func write(_ picture: Frame, index: Int, sound: [Float]) throws {
        picture.presentationTimestamp = Int64(index)
        _ = try video.send(picture)
        try drain(video, stream: videoStream)
        if samplesToDrop > 0 {
            let dropped = min(samplesToDrop, sound.count / 2)
            samplesToDrop -= dropped
            pendingSound += sound[(2 * dropped)...]
        } else {
            pendingSound += sound
        }
        try encodeSound(final: false)
    }

    /// Encodes the sound left, drains both encoders and completes the MP4.
    func finish() throws {
        try encodeSound(final: true)
        _ = try video.send(nil)
        try drain(video, stream: videoStream)
        _ = try audio.send(nil)
        try drain(audio, stream: audioStream)
        do {
            try muxer.finish()
        } catch {
            throw CompositionError(.output, "cannot write \(output.path): \(TakeSource.reason(error))")
        }
    }

    private func drain(_ encoder: Encoder, stream: Int) throws {
        while true {
            packet.clear()
            guard try encoder.receive(into: packet) == .done else { return }
            // Each picture lasts one tick of the video encoder's time base (one frame); without it the MP4 would
            // give the last one no time, and players would drop it.
            if stream == videoStream, packet.duration == nil { packet.setDuration(1) }
            try muxer.write(packet, stream: stream)
        }
    }

    private func encodeSound(final: Bool) throws {
        while pendingSound.count >= 2 * chunk || (final && !pendingSound.isEmpty) {
            let count = min(chunk, pendingSound.count / 2)
            let frame = try Frame.planarFloatAudio(
                samples: count, channels: 2, sampleRate: CompositionPlan.AudioSettings.sampleRate)
            Compositor.deinterleave(pendingSound[0..<(2 * count)], into: frame)
            pendingSound.removeFirst(2 * count)
            frame.presentationTimestamp = Int64(samplesEncoded)
            samplesEncoded += count
            _ = try audio.send(frame)
            try drain(audio, stream: audioStream)
        }
    }
}

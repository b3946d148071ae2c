import Foundation
import MediaCore

extension CompositionPlan.Soundtrack {
    /// The soundtrack's track: its file opened under the takes' input rules and placed so that the file's point
    /// ``start`` plays at timeline time 0, the output starting at timeline time `origin`; looped when it
    /// ``loops``, at ``gain``, in the centre.
    ///
    /// - Throws: ``CompositionError`` of kind `.music` naming the file when it cannot be read or has no audio FFmpeg
    ///   can decode.
    func open(origin: Double, interruption: Interruption) throws(CompositionError) -> AudioTrack {
        let name = file.lastPathComponent
        let fail = { @Sendable (reason: String) in CompositionError(.music(file: name), reason) }
        let stream: StreamParameters
        let fileStart: Double
        let stated: Double?
        do {
            let format = try TakeSource.open(FileSystemPath(file), interruption: interruption, fail: fail)
            guard let audio = format.streams.first(where: { $0.mediaType == "audio" && $0.hasDecoder }) else {
                throw fail("has no audio stream FFmpeg can decode")
            }
            stream = audio
            fileStart = format.startTime ?? 0
            stated = format.durationTimestamp(ofStream: audio.index).map {
                Double($0) * format.timeBase(ofStream: audio.index).doubleValue
            }
        } catch {
            throw TakeSource.failure(error, fail)
        }
        // The file's time 0 plays at timeline time -start, which is output time -start - origin.
        let place = Int((-(start + origin) * Double(CompositionPlan.AudioSettings.sampleRate)).rounded())
        var piece = AudioPiece(
            path: FileSystemPath(file), stream: stream, origin: fileStart, place: place, end: nil, fail: fail)
        // Each pass plays the stream's stated length, when stated: not the padding of its last AAC frame.
        if let stated, stated > 0, stated.isFinite {
            piece.length = Int((stated * Double(CompositionPlan.AudioSettings.sampleRate)).rounded())
        }
        return try AudioTrack(pieces: [piece], loops: loops, gain: gain, pan: 0, interruption: interruption)
    }
}

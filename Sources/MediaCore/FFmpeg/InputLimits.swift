/// What one input may make FFmpeg's demuxer hold, checked before the demuxer spends it: how many streams it may
/// have and how many samples its index may list.
///
/// A header can declare anything. A 5 KB MP4 whose sample tables declare 80 million samples makes FFmpeg's MP4
/// demuxer build an index of 80 million entries (24 bytes each: 1.9 GB) while it opens the file; a 92 KB Matroska
/// file of 999 tracks makes it set up 999 streams (about 1 GB). So the sample tables of an MP4 or QuickTime file are
/// counted from its boxes before FFmpeg reads them (``SampleTableCensus``), every demuxer is told the stream limit
/// (FFmpeg's `max_streams`), and the index every demuxer built is counted again once the input is open.
package enum InputLimits {
    /// The most streams an input may have: a phone's recording has two to five; a film with many audio and subtitle
    /// languages fits.
    package static let maximumStreams = 32

    /// The most samples an input's index may list, all streams together: a 4-hour recording at 60 frames a second
    /// with AAC audio (1.5 million) fits. FFmpeg's index takes 24 bytes an entry, so at most 48 MB.
    package static let maximumSamples = 2 << 20

    /// Nil when `samples` declared by a file of `size` bytes are within the limits; else the one-clause reason it is
    /// refused, naming the limits. A sample takes at least one byte of the file, so a file may declare at most one
    /// sample per byte: a few kilobytes can never declare an index bigger than themselves.
    package static func refusal(samples: Int, size: Int) -> String? {
        guard samples > min(size, maximumSamples) else { return nil }
        return "its sample tables declare \(samples) samples in \(size) bytes: refused, an input may declare at most "
            + "one sample per byte and \(maximumSamples) in all"
    }

    /// The reason an input with more than ``maximumStreams`` streams is refused.
    package static let streamsRefusal =
        "it has more than \(maximumStreams) streams: refused, an input may have at most \(maximumStreams)"

    /// The start of the line FFmpeg logs when a demuxer asks for more streams than `max_streams` allows.
    static let streamLimitMarker = "exceeds max_streams"
}

import Foundation

/// The inputs an attacker uploads to a cover service, written deterministically into a folder: playlists, manifests
/// and scripts named like videos that would make FFmpeg open other files (a "secret" video and a text file beside
/// them, another user's upload), a header declaring a frame no decoder may allocate, and headers declaring millions of
/// samples or hundreds of streams (``HeaderBombs``). Each shape names what the refusal must say.
package struct AttackShapes {
    /// One upload: its file name in the folder and the words its refusal must contain.
    package struct Shape: Sendable, CustomStringConvertible {
        package var name: String
        package var refusal: String
        package var description: String { name }
    }

    package let folder: URL

    /// The playlist and script shapes: every one is refused by default.
    package static let refusedShapes: [Shape] = [
        Shape(name: "hls-absolute.mp4", refusal: "an HLS playlist: refused, it would open other files"),
        Shape(name: "hls-file-url.mp4", refusal: "an HLS playlist: refused, it would open other files"),
        Shape(name: "hls-sibling.avi", refusal: "an HLS playlist: refused, it would open other files"),
        Shape(name: "hls-map.mp4", refusal: "an HLS playlist: refused, it would open other files"),
        Shape(name: "dash-baseurl.mp4", refusal: "a DASH manifest: refused, it would open other files"),
        Shape(name: "concat-text.mp4", refusal: "an ffconcat script: refused, it would open other files"),
        Shape(name: "concat-sibling.mp4", refusal: "an ffconcat script: refused, it would open other files"),
        Shape(name: "subtitles.mp4", refusal: "a subtitle file (srt): refused, not a video"),
        Shape(name: "huge-frame.mp4", refusal: "pixels a frame): refused, a frame may have at most 33554432 pixels"),
        Shape(
            name: "sample-tables.mp4",
            refusal: "declare 80000000 samples in 4683 bytes: refused, an input may declare at most one sample per byte"
        ),
        Shape(
            name: "three-sample-tables.mp4",
            refusal:
                "declare 240000000 samples in 5561 bytes: refused, an input may declare at most one sample per byte"),
        Shape(name: "many-tracks.mkv", refusal: "more than 32 streams: refused, an input may have at most 32"),
    ]

    /// The header shapes alone, as the fuzz corpus keeps them (Fixtures/fuzz/cover-NAME).
    package static let headerShapes: [String: Data] = [
        "sample-tables.mp4": HeaderBombs.sampleTables(tracks: 1, samples: 80_000_000),
        "three-sample-tables.mp4": HeaderBombs.sampleTables(tracks: 3, samples: 80_000_000),
        "many-tracks.mkv": HeaderBombs.manyTracks(999),
    ]

    /// Writes every shape into `folder`, beside `secret.ts` (the file a playlist would expose), `notes.txt` (a text
    /// file a concat script would draw) and `other-upload.mp4` (another user's upload), copied from `fixture`.
    package init(in folder: URL, fixture: URL) throws {
        self.folder = folder
        let video = try Data(contentsOf: fixture)
        try video.write(to: folder.appending(path: "other-upload.mp4"))
        let secret = folder.appending(path: "secret.ts")
        try Self.transportStream(of: fixture, to: secret)
        try Data("the secret notes of another user\n".utf8).write(to: folder.appending(path: "notes.txt"))
        let hls = { (segment: String) in
            "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\n\(segment)\n#EXT-X-ENDLIST\n"
        }
        let files: [String: String] = [
            "hls-absolute.mp4": hls(secret.path),
            "hls-file-url.mp4": hls("file:\(secret.path)"),
            "hls-sibling.avi": hls("secret.ts"),
            "hls-map.mp4":
                "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:10\n#EXT-X-MAP:URI=\"other-upload.mp4\"\n"
                + "#EXTINF:10,\nother-upload.mp4\n#EXT-X-ENDLIST\n",
            "dash-baseurl.mp4": """
            <?xml version="1.0"?>
            <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT1S" \
            minBufferTime="PT1S" profiles="urn:mpeg:dash:profile:isoff-on-demand:2011">
            <BaseURL>file:\(folder.path)/</BaseURL>
            <Period><AdaptationSet mimeType="video/mp4"><Representation id="1" bandwidth="1000" \
            codecs="avc1.64001f" width="320" height="180"><BaseURL>other-upload.mp4</BaseURL></Representation>\
            </AdaptationSet></Period></MPD>

            """,
            "concat-text.mp4": "ffconcat version 1.0\nfile notes.txt\n",
            "concat-sibling.mp4": "ffconcat version 1.0\nfile other-upload.mp4\n",
            "subtitles.mp4": "1\n00:00:00,000 --> 00:00:02,000\nthe secret notes of another user\n\n",
        ]
        for (name, text) in files { try Data(text.utf8).write(to: folder.appending(path: name)) }
        // A raw stream whose header declares 16000x16000: refused from the header, before any frame is allocated.
        var huge = Data("YUV4MPEG2 W16000 H16000 F25:1 Ip A1:1 C420jpeg\nFRAME\n".utf8)
        huge.append(Data(count: 4096))
        try huge.write(to: folder.appending(path: "huge-frame.mp4"))
        for (name, bytes) in Self.headerShapes { try bytes.write(to: folder.appending(path: name)) }
    }

    /// The path of the upload `name` in the folder.
    package func url(_ name: String) -> URL { folder.appending(path: name) }

    /// Rewrites `fixture` as MPEG-TS at `output` (stream copy) with the ffmpeg command.
    private static func transportStream(of fixture: URL, to output: URL) throws {
        let process = Process()
        process.executableURL = URL(filePath: "/usr/bin/env")
        process.arguments = [
            "ffmpeg", "-v", "error", "-y", "-i", fixture.path, "-c", "copy", "-bsf:v", "h264_mp4toannexb", "-f",
            "mpegts", output.path,
        ]
        try process.run()
        process.waitUntilExit()
        struct Failed: Error {}
        guard process.terminationStatus == 0 else { throw Failed() }
    }
}

import Foundation

/// What the ffmpeg CLI says about a file and shows at a time: the reference the real-world suite compares covers with.
///
/// Everything comes from running `ffprobe` and `ffmpeg` (the Debian 5.1 build the corpus is made with) as processes,
/// never from the library under test. The rules the reference follows are the cover contract's, written out in
/// Docs/Thumbnails.md ("Real-world files"):
/// - the video stream is the one the ffmpeg CLI maps by default;
/// - times count from the first frame the decoder gives (ffprobe's frame list, best-effort timestamps);
/// - exact mode is the last frame starting at or before the time, keyframe mode the last keyframe at or before it
///   (at time 0, the first frame listed, as `-frames:v 1` shows it);
/// - the size is the stored size with the sample aspect ratio ffprobe reports applied to the width, turned by the
///   display matrix, then fitted inside the box without enlarging (rounded to the nearest pixel, at least 1);
/// - orientation follows the display matrix as FFmpeg 6.1 and later's autorotate applies it (mirrors included;
///   FFmpeg 5.1's CLI reads the matrix's angle only), with explicit `transpose` / `hflip` / `vflip` filters;
/// - the picture is the exact turn of the decoded planes, as the CLI's autorotate makes it before any filter, then one
///   swscale pass (bilinear, the frame's own matrix and range) to RGB24 at the upright size: the same steps the cover
///   service takes, so a matching cover is bit-identical or nearly.
enum FFmpegReference {
    /// One decoded frame in ffprobe's list, in output (display) order.
    struct ProbedFrame: Sendable {
        /// The frame's best-effort timestamp in seconds, as ffprobe and the ffmpeg CLI use it.
        var time: Double
        var isKeyframe: Bool
        var pictureType: String
    }

    /// What ffprobe reports about the file's video stream.
    struct Probe: Sendable {
        /// The stream the ffmpeg CLI maps by default.
        var streamIndex: Int
        var codec: String
        var width: Int
        var height: Int
        /// ffprobe's `sample_aspect_ratio` (`av_guess_sample_aspect_ratio`: the container's before the codec's).
        var sampleAspectRatio: (Int, Int)
        /// The display matrix's nine values as ffprobe prints them (row-major), nil when the stream has none.
        var displayMatrix: [Int32]?
        /// The container's duration in seconds, nil when it does not say.
        var duration: Double?
        var frames: [ProbedFrame]

        /// The first frame's time: covers count from it.
        var origin: Double { frames.first?.time ?? 0 }

        /// The duration covers take fractions of: the container's, else estimated from the last frame's time plus
        /// its duration (what a file written to a pipe needs).
        var effectiveDuration: Double {
            if let duration { return duration }
            guard let last = frames.last else { return 0 }
            return last.time + frameDuration(at: frames.count - 1) - origin
        }

        /// How long frame `index` is shown: until the next frame, or the one before's duration for the last frame.
        func frameDuration(at index: Int) -> Double {
            if index + 1 < frames.count { return frames[index + 1].time - frames[index].time }
            if index > 0 { return frames[index].time - frames[index - 1].time }
            return 0.04
        }

        /// The filters that turn a stored frame upright, as FFmpeg's autorotate (6.1 and later) derives them from
        /// the display matrix: a quarter turn with or without a flip, or horizontal and vertical flips.
        var uprightFilters: [String] {
            guard let m = displayMatrix else { return [] }
            // av_display_rotation_get: the matrix's angle, counterclockwise; the CLI negates it and wraps to 0..<360.
            let scale0 = hypot(Double(m[0]), Double(m[3]))
            let scale1 = hypot(Double(m[1]), Double(m[4]))
            guard scale0 > 0, scale1 > 0 else { return [] }
            var theta = -(-atan2(Double(m[1]) / scale1, Double(m[0]) / scale0) * 180 / .pi).rounded()
            theta -= 360 * (theta / 360 + 0.9 / 360).rounded(.down)
            if abs(theta - 90) < 1 { return [m[3] > 0 ? "transpose=cclock_flip" : "transpose=clock"] }
            if abs(theta - 270) < 1 { return [m[3] < 0 ? "transpose=clock_flip" : "transpose=cclock"] }
            if abs(theta - 180) < 1 { return (m[0] < 0 ? ["hflip"] : []) + (m[4] < 0 ? ["vflip"] : []) }
            return m[4] < 0 ? ["vflip"] : []
        }

        /// True when the upright picture is the stored one turned a quarter.
        var isQuarterTurn: Bool { uprightFilters.contains { $0.hasPrefix("transpose") } }

        /// The cover's size by the contract's rule (see the type's comment): upright and before the turn.
        func sizes(maximum: (width: Int, height: Int)) -> (upright: (Int, Int), scaled: (Int, Int)) {
            let (numerator, denominator) = sampleAspectRatio
            var displayWidth = Double(width)
            if numerator > 0, denominator > 0 { displayWidth *= Double(numerator) / Double(denominator) }
            let displayHeight = Double(height)
            let uprightWidth = isQuarterTurn ? displayHeight : displayWidth
            let uprightHeight = isQuarterTurn ? displayWidth : displayHeight
            var scale = 1.0
            if maximum.width > 0 { scale = min(scale, Double(maximum.width) / uprightWidth) }
            if maximum.height > 0 { scale = min(scale, Double(maximum.height) / uprightHeight) }
            let upright = (
                max(1, Int((uprightWidth * scale).rounded())), max(1, Int((uprightHeight * scale).rounded()))
            )
            return (upright, isQuarterTurn ? (upright.1, upright.0) : upright)
        }
    }

    /// A reference picture: packed RGB24 rows, top first.
    struct Picture: Sendable {
        var width: Int
        var height: Int
        var pixels: [UInt8]
    }

    struct ToolError: Error, CustomStringConvertible {
        var description: String
    }

    /// True when the `ffmpeg` and `ffprobe` commands run.
    static let toolsPresent: Bool = ["ffmpeg", "ffprobe"].allSatisfy { tool in
        (try? run(tool, ["-version"])) != nil
    }

    // MARK: Probing

    private static let probes = ProbeCache()

    /// ffprobe's view of `url` (cached per path for the process: the corpus does not change while tests run).
    static func probe(_ url: URL) throws -> Probe {
        try probes.value(for: url.path) { try makeProbe(url) }
    }

    private static func makeProbe(_ url: URL) throws -> Probe {
        // One ffprobe run: every video stream, the container's duration, and every video frame.
        let json = try run(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "v", "-show_entries",
                "stream=index,codec_name,width,height,sample_aspect_ratio,avg_frame_rate:stream_side_data_list"
                    + ":format=duration:frame=stream_index,best_effort_timestamp_time,pkt_dts_time,key_frame,pict_type",
                "-of", "json", url.path,
            ]
        ).output
        guard let root = try JSONSerialization.jsonObject(with: json) as? [String: Any],
            let streams = root["streams"] as? [[String: Any]], !streams.isEmpty
        else { throw ToolError(description: "ffprobe printed no video stream for \(url.lastPathComponent)") }
        // With several video streams, ask the ffmpeg CLI which one it maps.
        let index = streams.count == 1 ? streams[0]["index"] as? Int ?? 0 : try defaultVideoStream(url)
        guard let stream = streams.first(where: { $0["index"] as? Int == index }) else {
            throw ToolError(description: "ffprobe did not list stream \(index) of \(url.lastPathComponent)")
        }
        let format = root["format"] as? [String: Any]
        var probe = Probe(
            streamIndex: index,
            codec: stream["codec_name"] as? String ?? "?",
            width: stream["width"] as? Int ?? 0,
            height: stream["height"] as? Int ?? 0,
            sampleAspectRatio: ratio(stream["sample_aspect_ratio"] as? String),
            displayMatrix: nil,
            duration: (format?["duration"] as? String).flatMap(Double.init),
            frames: []
        )
        for side in stream["side_data_list"] as? [[String: Any]] ?? [] {
            guard let text = side["displaymatrix"] as? String else { continue }
            // "00000000:            0      -65536           0\n...": three rows, each an offset then three values.
            let values = text.split(separator: "\n").flatMap { row in row.split(separator: " ").dropFirst() }
                .compactMap { Int32($0) }
            if values.count == 9 { probe.displayMatrix = values }
        }
        // A frame without a timestamp (raw streams, cover art) follows the one before by the nominal frame duration.
        let rate = (stream["avg_frame_rate"] as? String ?? "").split(separator: "/").compactMap { Double($0) }
        let nominal = rate.count == 2 && rate[0] > 0 && rate[1] > 0 ? rate[1] / rate[0] : 0.04
        for frame in root["frames"] as? [[String: Any]] ?? [] where frame["stream_index"] as? Int == index {
            let stamped =
                (frame["best_effort_timestamp_time"] as? String).flatMap(Double.init)
                ?? (frame["pkt_dts_time"] as? String).flatMap(Double.init)
            let time = stamped ?? probe.frames.last.map { $0.time + nominal } ?? 0
            probe.frames.append(
                ProbedFrame(
                    time: time, isKeyframe: frame["key_frame"] as? Int == 1,
                    pictureType: frame["pict_type"] as? String ?? "?"))
        }
        guard !probe.frames.isEmpty else {
            throw ToolError(description: "ffprobe lists no frame of stream \(index) of \(url.lastPathComponent)")
        }
        return probe
    }

    /// The input stream the ffmpeg CLI maps to its video output by default (its own choice among several).
    private static func defaultVideoStream(_ url: URL) throws -> Int {
        let result = try run(
            "ffmpeg",
            [
                "-hide_banner", "-nostdin", "-loglevel", "info", "-i", url.path, "-an", "-sn", "-frames:v", "1", "-f",
                "null", "-",
            ]
        )
        // "  Stream #0:1 -> #0:0 (h264 (native) -> wrapped_avframe (native))"
        for line in result.errors.split(separator: "\n") where line.contains(" -> #0:0") {
            let fields = line.split(separator: " ")
            if let stream = fields.first(where: { $0.hasPrefix("#0:") }),
                let index = Int(stream.dropFirst(3).prefix { $0.isNumber })
            {
                return index
            }
        }
        throw ToolError(description: "ffmpeg mapped no video stream of \(url.lastPathComponent): \(result.errors)")
    }

    /// "2:1" as a pair; 1:1 when absent or not positive.
    private static func ratio(_ text: String?) -> (Int, Int) {
        let parts = (text ?? "1:1").split(separator: ":").compactMap { Int($0) }
        return parts.count == 2 && parts[0] > 0 && parts[1] > 0 ? (parts[0], parts[1]) : (1, 1)
    }

    // MARK: Pictures

    /// Frame `index` of ffprobe's list, decoded by the ffmpeg CLI, then `filters`, turned upright, scaled to
    /// `scaled` (turned with it) and converted to RGB24.
    /// `turn` replaces the display matrix's filters (to find which orientation a wrong cover has).
    static func picture(
        of url: URL, probe: Probe, frame index: Int, scaled: (Int, Int), filters: [String] = [],
        turn: [String]? = nil
    ) throws -> Picture {
        // Turned first, as the CLI's autorotate turns the decoded planes before any filter of the command.
        let turn = turn ?? probe.uprightFilters
        let quarter = turn.contains { $0.hasPrefix("transpose") }
        var chain = ["select=eq(n\\,\(index))"] + filters + turn
        chain.append(
            quarter ? "scale=\(scaled.1):\(scaled.0):flags=bilinear" : "scale=\(scaled.0):\(scaled.1):flags=bilinear")
        chain.append("format=rgb24")
        let result = try run(
            "ffmpeg",
            [
                "-hide_banner", "-nostdin", "-loglevel", "error", "-noautorotate", "-i", url.path,
                "-map", "0:\(probe.streamIndex)", "-vf", chain.joined(separator: ","), "-frames:v", "1",
                "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "rgb24", "pipe:",
            ]
        )
        let width = quarter ? scaled.1 : scaled.0
        let height = quarter ? scaled.0 : scaled.1
        guard result.output.count == width * height * 3 else {
            throw ToolError(
                description: "ffmpeg gave \(result.output.count) bytes for frame \(index) of \(url.lastPathComponent), "
                    + "not \(width)x\(height) RGB: \(result.errors)")
        }
        return Picture(width: width, height: height, pixels: [UInt8](result.output))
    }

    // MARK: Processes

    /// Runs `tool` (found on PATH) with `arguments`; stdout is returned, stderr is collected in a file so a chatty
    /// tool cannot block on a full pipe. Throws when the tool cannot start or exits non-zero.
    static func run(_ tool: String, _ arguments: [String]) throws -> (output: Data, errors: String) {
        let process = Process()
        process.executableURL = URL(filePath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        let output = Pipe()
        let errorFile = FileManager.default.temporaryDirectory
            .appending(path: "realworld-\(UUID().uuidString).log", directoryHint: .notDirectory)
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errorFile) }
        let errors = try FileHandle(forWritingTo: errorFile)
        defer { try? errors.close() }
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let message = String(decoding: (try? Data(contentsOf: errorFile)) ?? Data(), as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw ToolError(description: "\(tool) exited \(process.terminationStatus): \(message)")
        }
        return (data, message)
    }
}

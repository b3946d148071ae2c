import Foundation
import Pixels

extension CompositionPlan {
    /// A plan read from JSON (what `canvas-compose --plan FILE.json` reads; Docs/Composition.md, "Plan files"):
    ///
    /// ```json
    /// {"size": "720x1280", "fps": 30, "background": "#000000", "grid": "2x2", "scaling": "fit",
    ///  "crf": 23, "preset": "veryfast", "audioBitRate": 128000,
    ///  "takes": [{"file": "a.mp4"}, {"file": "b.mp4", "start": -0.25, "gain": 0.8, "pan": -0.5},
    ///            {"file": "c.mp4", "rect": [0, 0.5, 1, 0.5], "scaling": "fill", "z": 1}]}
    /// ```
    ///
    /// Only `size` and `takes` (each with its `file`, or `files`: its segments in order) are required; `music` is
    /// `{"file": "song.m4a", "start": 12, "gain": 0.5, "loop": true}` (only `file` required; ``CompositionPlan/Soundtrack``). A take without `rect` gets tile i of `grid`
    /// (or of the squarest grid holding every take); `scaling` defaults to the plan's, `start`, `z` and `pan` to 0,
    /// `gain` to 1. A relative `file` is relative to `folder`. `fps` is a number (29.97 is read as 30000/1001) or a
    /// fraction in a string ("24000/1001"). `"target": "tiktok"` (or `reels`, `shorts`) makes the plan's
    /// ``target``: `size` may then be left out (the target's), `scaling` defaults to `fill`, and `audioBitRate` is
    /// refused (the target sets it).
    ///
    /// - Throws: ``CompositionPlanError`` with a one-line reason naming the key (`takes[1].gain: expected a number`),
    ///   for JSON that does not parse, a missing or unknown key, or a value of the wrong type; the plan is not
    ///   validated (call ``validated()``).
    public init(json data: Data, relativeTo folder: URL) throws(CompositionPlanError) {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw CompositionPlanError("not valid JSON (\(Self.firstLine(of: error)))")
        }
        let reader = JSONReader(path: "")
        let root = try reader.object(object)
        try reader.rejectUnknown(
            root,
            known: [
                "size", "fps", "background", "grid", "scaling", "crf", "preset", "audioBitRate", "target", "takes",
                "music",
            ])
        let target = try root["target"].map { value throws(CompositionPlanError) in try reader.target(value) }
        var size = target?.size ?? PixelSize(width: 0, height: 0)
        if target == nil || root["size"] != nil { size = try reader.size(root["size"], key: "size") }
        let frameRate = try root["fps"].map { value throws(CompositionPlanError) in try reader.rate(value, key: "fps") }
        let background = try root["background"].map { value throws(CompositionPlanError) in
            try reader.color(value, key: "background")
        }
        let scaling = try root["scaling"].map { value throws(CompositionPlanError) in
            try reader.scaling(value, key: "scaling")
        }
        let (video, audio) = try Self.encoderSettings(from: root, target: target)
        guard let takesValue = root["takes"] else { throw CompositionPlanError("takes: missing") }
        guard let takeValues = takesValue as? [Any] else { throw CompositionPlanError("takes: expected an array") }
        guard !takeValues.isEmpty else { throw CompositionPlanError("takes: a plan needs at least one take") }
        let grid = try root["grid"].map { value throws(CompositionPlanError) in
            let text = try reader.string(value, key: "grid")
            guard let grid = GridLayout(text) else {
                throw CompositionPlanError("grid: expected COLUMNSxROWS such as 2x2, got \(text)")
            }
            return grid
        }
        let layout = grid ?? GridLayout(holding: takeValues.count)
        var takes: [Take] = []
        for (index, value) in takeValues.enumerated() {
            takes.append(
                try Self.take(
                    from: value, index: index, layout: layout, scaling: scaling ?? (target == nil ? .fit : .fill),
                    folder: folder))
        }
        self.init(
            size: size, frameRate: frameRate ?? FrameRate(frames: 30), background: background ?? .black,
            takes: takes, video: video, audio: audio)
        soundtrack = try root["music"].map { value throws(CompositionPlanError) in
            try Self.soundtrack(from: value, folder: folder)
        }
        self.target = target
    }

    /// The plan file's `music`, read from `value`; a relative `file` is relative to `folder`.
    private static func soundtrack(from value: Any, folder: URL) throws(CompositionPlanError) -> Soundtrack {
        let reader = JSONReader(path: "music.")
        let entry = try reader.object(value)
        try reader.rejectUnknown(entry, known: ["file", "start", "gain", "loop"])
        guard let fileValue = entry["file"] else { throw CompositionPlanError("music.file: missing") }
        var music = Soundtrack(file: reader.url(try reader.string(fileValue, key: "file"), in: folder))
        if let value = entry["start"] { music.start = try reader.number(value, key: "start") }
        if let value = entry["gain"] { music.gain = try reader.number(value, key: "gain") }
        if let value = entry["loop"] { music.loops = try reader.boolean(value, key: "loop") }
        return music
    }

    /// The encoders' settings of a plan file (`crf`, `preset`, `audioBitRate`; the last refused with a `target`).
    private static func encoderSettings(
        from root: [String: Any], target: PublishingTarget?
    ) throws(CompositionPlanError) -> (VideoSettings, AudioSettings) {
        let reader = JSONReader(path: "")
        var video = VideoSettings()
        if let crf = root["crf"] { video.constantRateFactor = try reader.integer(crf, key: "crf") }
        if let preset = root["preset"] { video.preset = try reader.string(preset, key: "preset") }
        var audio = AudioSettings()
        if let rate = root["audioBitRate"] {
            if let target {
                throw CompositionPlanError("audioBitRate: target \(target.rawValue) sets the audio bit rate")
            }
            audio.bitRate = try reader.integer(rate, key: "audioBitRate")
        }
        return (video, audio)
    }

    /// Take `index` of a plan file, read from `value`; a take without `rect` gets tile `index` of `layout`, one
    /// without `scaling` gets `scaling`, a relative `file` is relative to `folder`.
    private static func take(
        from value: Any, index: Int, layout: GridLayout, scaling: Scaling, folder: URL
    ) throws(CompositionPlanError) -> Take {
        let reader = JSONReader(path: "takes[\(index)].")
        let entry = try reader.object(value)
        try reader.rejectUnknown(entry, known: ["file", "files", "rect", "scaling", "z", "start", "gain", "pan"])
        let segments: [URL]
        switch (entry["file"], entry["files"]) {
        case (.some, .some):
            throw CompositionPlanError("takes[\(index)]: give \"file\" or \"files\", not both")
        case (.some(let value), nil):
            segments = [reader.url(try reader.string(value, key: "file"), in: folder)]
        case (nil, .some(let value)):
            guard let names = value as? [Any] else {
                throw CompositionPlanError("takes[\(index)].files: expected an array")
            }
            guard !names.isEmpty else {
                throw CompositionPlanError("takes[\(index)].files: a take needs at least one file")
            }
            segments = try names.map { name throws(CompositionPlanError) in
                reader.url(try reader.string(name, key: "files"), in: folder)
            }
        case (nil, nil):
            throw CompositionPlanError("takes[\(index)].file: missing (or \"files\": its segments)")
        }
        let region: NormalizedRect
        if let rect = entry["rect"] {
            region = try reader.rect(rect, key: "rect")
        } else {
            guard index < layout.tileCount else {
                throw CompositionPlanError(
                    "takes[\(index)]: no rect, and a \(layout) grid has only \(layout.tileCount) "
                        + (layout.tileCount == 1 ? "tile" : "tiles"))
            }
            region = layout.region(ofTile: index)
        }
        var take = Take(segments: segments, region: region, scaling: scaling)
        if let value = entry["scaling"] { take.scaling = try reader.scaling(value, key: "scaling") }
        if let value = entry["z"] { take.zIndex = try reader.integer(value, key: "z") }
        if let value = entry["start"] { take.start = try reader.number(value, key: "start") }
        if let value = entry["gain"] { take.gain = try reader.number(value, key: "gain") }
        if let value = entry["pan"] { take.pan = try reader.number(value, key: "pan") }
        return take
    }

    /// What JSONSerialization said was wrong, without its error domain and user-info dump: "Unexpected character
    /// 'x' around line 1, column 1."
    private static func firstLine(of error: any Error) -> String {
        let bridged = error as NSError
        let text = bridged.userInfo[NSDebugDescriptionErrorKey] as? String ?? bridged.localizedDescription
        return text.split(separator: "\n").first.map(String.init) ?? "unreadable"
    }
}

/// Reads typed values out of `JSONSerialization`'s objects, naming the key in every error.
private struct JSONReader {
    /// The prefix of every key named in an error (`takes[1].`).
    let path: String

    func object(_ value: Any) throws(CompositionPlanError) -> [String: Any] {
        guard let object = value as? [String: Any] else {
            throw CompositionPlanError(
                path.isEmpty ? "expected a JSON object" : "\(path.dropLast()): expected an object")
        }
        return object
    }

    func rejectUnknown(_ object: [String: Any], known: Set<String>) throws(CompositionPlanError) {
        if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
            throw CompositionPlanError(
                "\(path)\(unknown): unknown key (known: \(known.sorted().joined(separator: ", ")))")
        }
    }

    /// A frame rate: a number, or a fraction in a string ("24000/1001"), within ``FrameRate/allowedRange``.
    func rate(_ value: Any, key: String) throws(CompositionPlanError) -> FrameRate {
        let rate: FrameRate?
        if let text = value as? String {
            rate = FrameRate(parsing: text)
        } else {
            rate = FrameRate(try number(value, key: key))
        }
        guard let rate, FrameRate.allowedRange.contains(rate.framesPerSecond) else {
            throw CompositionPlanError(
                "\(path)\(key): expected a rate from 1 to 240 such as 30, 29.97 or \"24000/1001\", got \(value)")
        }
        return rate
    }

    func number(_ value: Any, key: String) throws(CompositionPlanError) -> Double {
        // `true` and `false` arrive as a boolean NSNumber, whose type is not NSNumber itself (`is Bool` holds for 0
        // and 1 too, so it cannot tell them apart).
        guard let number = value as? NSNumber, !String(describing: type(of: number)).contains("Boolean"),
            number.doubleValue.isFinite
        else {
            throw CompositionPlanError("\(path)\(key): expected a number")
        }
        return number.doubleValue
    }

    func integer(_ value: Any, key: String) throws(CompositionPlanError) -> Int {
        let number = try number(value, key: key)
        guard number.rounded() == number, abs(number) < 1e15 else {
            throw CompositionPlanError("\(path)\(key): expected a whole number, got \(number)")
        }
        return Int(number)
    }

    /// `path` as a file URL: itself when absolute, relative to `folder` otherwise.
    func url(_ path: String, in folder: URL) -> URL {
        path.hasPrefix("/") ? URL(fileURLWithPath: path) : folder.appendingPathComponent(path)
    }

    func boolean(_ value: Any, key: String) throws(CompositionPlanError) -> Bool {
        guard let number = value as? NSNumber, String(describing: type(of: number)).contains("Boolean") else {
            throw CompositionPlanError("\(path)\(key): expected true or false")
        }
        return number.boolValue
    }

    func string(_ value: Any, key: String) throws(CompositionPlanError) -> String {
        guard let string = value as? String else { throw CompositionPlanError("\(path)\(key): expected a string") }
        return string
    }

    func target(_ value: Any) throws(CompositionPlanError) -> PublishingTarget {
        let text = try string(value, key: "target")
        guard let target = PublishingTarget(rawValue: text) else {
            throw CompositionPlanError("\(path)target: expected \"tiktok\", \"reels\" or \"shorts\", got \(text)")
        }
        return target
    }

    func scaling(_ value: Any, key: String) throws(CompositionPlanError) -> CompositionPlan.Scaling {
        let text = try string(value, key: key)
        guard let scaling = CompositionPlan.Scaling(rawValue: text) else {
            throw CompositionPlanError("\(path)\(key): expected \"fit\" or \"fill\", got \(text)")
        }
        return scaling
    }

    func size(_ value: Any?, key: String) throws(CompositionPlanError) -> PixelSize {
        guard let value else { throw CompositionPlanError("\(path)\(key): missing") }
        if let text = value as? String, let size = PixelSize(parsing: text) { return size }
        if let pair = value as? [Any], pair.count == 2 {
            return PixelSize(width: try integer(pair[0], key: key), height: try integer(pair[1], key: key))
        }
        throw CompositionPlanError("\(path)\(key): expected \"WIDTHxHEIGHT\" or [width, height]")
    }

    func rect(_ value: Any, key: String) throws(CompositionPlanError) -> NormalizedRect {
        guard let values = value as? [Any], values.count == 4 else {
            throw CompositionPlanError("\(path)\(key): expected [x, y, width, height] in fractions of the output")
        }
        return NormalizedRect(
            x: try number(values[0], key: key), y: try number(values[1], key: key),
            width: try number(values[2], key: key), height: try number(values[3], key: key))
    }

    func color(_ value: Any, key: String) throws(CompositionPlanError) -> RGBColor {
        let text = try string(value, key: key)
        guard let color = RGBColor(hex: text) else {
            throw CompositionPlanError("\(path)\(key): expected a colour #RRGGBB, got \(text)")
        }
        return color
    }
}

extension PixelSize {
    /// A size written `WIDTHxHEIGHT` (for example `720x1280`), or nil.
    public init?(parsing text: String) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]), width > 0, height > 0 else {
            return nil
        }
        self.init(width: width, height: height)
    }
}

extension RGBColor {
    /// A colour written `#RRGGBB` or `RRGGBB` in hexadecimal, or nil.
    public init?(hex text: String) {
        let digits = text.hasPrefix("#") ? text.dropFirst() : Substring(text)
        guard digits.count == 6, digits.allSatisfy(\.isHexDigit), let value = UInt32(digits, radix: 16) else {
            return nil
        }
        self.init(red: UInt8(value >> 16), green: UInt8((value >> 8) & 0xFF), blue: UInt8(value & 0xFF))
    }
}

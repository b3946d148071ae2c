import CommandLineSupport
import Composition
import Foundation
import Pixels

/// canvas-compose's command line, parsed. Parsing only: what the options mean is the Composition module's business.
struct Options {
    var takes: [String] = []
    var output: String?
    var size: PixelSize?
    var grid: GridLayout?
    var scaling: CompositionPlan.Scaling?
    var frameRate: FrameRate?
    var starts: [Int: Double] = [:]
    var gains: [Int: Double] = [:]
    var pans: [Int: Double] = [:]
    var crf: Int?
    var preset: String?
    var target: PublishingTarget?
    var planFile: String?
    /// `--music FILE` and its settings.
    var music: CompositionPlan.Soundtrack?
    var json = false
    var help = false
    var version = false

    static let usage = """
        usage: canvas-compose TAKE... -o OUT.mp4 [--size WxH] [--grid CxR] [--fit | --fill] [--fps RATE]
                              [--start INDEX=SECONDS]... [--gain INDEX=G]... [--pan INDEX=P]...
                              [--crf N] [--preset NAME] [--target tiktok|reels|shorts] [--plan FILE.json] [--json]
                              [--music FILE [--music-start S] [--music-gain G] [--music-loop]]
          TAKE               a video (or audio) file; TAKE i goes in tile i (column i % C, row i / C);
                             A1.mp4+A2.mp4 is a take of segments played back to back (a file whose
                             name holds + goes through --plan)
          -o, --output OUT   the MP4 to write (atomically: nothing is left there on failure)
          --size WxH         the output size, even sides (default 720x1280)
          --grid CxR         columns x rows (default: the squarest grid holding every take)
          --fit | --fill     letterbox each take in its tile (default) or fill and crop it
          --fps RATE         output frame rate, 1-240 (default 30; 29.97 or 30000/1001)
          --start I=S        take I starts S seconds into the board's timeline (may be negative)
          --gain I=G         take I's samples times G in the mix (default 1)
          --pan I=P          take I from -1 (left) to 1 (right), constant power (default 0)
          --crf N            libx264 CRF, 0 (lossless) to 51 (default 23)
          --preset NAME      libx264 preset, ultrafast ... veryslow (default veryfast)
          --music FILE       music mixed under the takes (never lengthening the video)
          --music-start S    the point of the music, in seconds, that plays at timeline 0 (default 0;
                             negative: the music begins S seconds after it)
          --music-gain G     the music's samples times G in the mix (default 1; 0 silent)
          --music-loop       start the music again each time it ends, to the end of the video
          --target NAME      shape the output for tiktok, reels or shorts: 1080x1920, takes filling their tiles,
                             23-60 fps, H.264 High at the level needed, closed GOPs of half a second, 2 B-frames,
                             the platform's bit-rate cap, AAC-LC 48 kHz stereo, moov first, no edit list, and its
                             length limit (Docs/Composition.md); not with --size or --fit
          --plan FILE.json   the plan from a file (Docs/Composition.md); the options above override it
          --json             print one JSON object at the end (output, duration, frames, seconds)
          -h, --help         show this help;  --version  print the version
        exit status: 0 written, 1 failed (nothing written), 2 usage
        """

    typealias UsageError = OptionUsageError

    /// The options canvas-compose accepts: `--start`, `--gain` and `--pan` once per take, `--fit` or `--fill`.
    static let parser = OptionParser([
        .init(["-o", "--output"], takesValue: true), .init(["--size"], takesValue: true),
        .init(["--grid"], takesValue: true), .init(["--fit"], group: "scaling"), .init(["--fill"], group: "scaling"),
        .init(["--fps"], takesValue: true), .init(["--start"], takesValue: true, repeatable: true),
        .init(["--gain"], takesValue: true, repeatable: true), .init(["--pan"], takesValue: true, repeatable: true),
        .init(["--crf"], takesValue: true), .init(["--preset"], takesValue: true),
        .init(["--target"], takesValue: true, excludes: ["--size", "--fit"]), .init(["--plan"], takesValue: true),
        .init(["--json"]), .init(["-h", "--help"]), .init(["--version"]), .init(["--music"], takesValue: true),
        .init(["--music-start"], takesValue: true), .init(["--music-gain"], takesValue: true), .init(["--music-loop"]),
    ])

    static func parse(_ arguments: [String]) throws(UsageError) -> Options {
        let parsed = try parser.parse(arguments)
        var options = Options()
        options.help = parsed.has("-h")
        options.version = parsed.has("--version")
        if options.help || options.version { return options }
        options.takes = parsed.operands
        options.json = parsed.has("--json")
        if let path = parsed.value("-o") {
            guard !path.isEmpty else { throw UsageError("-o: the output path is empty") }
            options.output = path
        }
        options.size = try typed(parsed, "--size", PixelSize.init(parsing:), "WIDTHxHEIGHT such as 720x1280")
        options.grid = try typed(parsed, "--grid", GridLayout.init, "COLUMNSxROWS such as 2x2")
        options.scaling = parsed.has("--fit") ? .fit : parsed.has("--fill") ? .fill : nil
        options.frameRate = try typed(
            parsed, "--fps", allowedRate, "a rate from 1 to 240 such as 30, 29.97 or 24000/1001")
        options.crf = try typed(parsed, "--crf", { Int($0) }, "a whole number")
        options.preset = parsed.value("--preset")
        options.target = try typed(parsed, "--target", PublishingTarget.init(rawValue:), "tiktok, reels or shorts")
        options.planFile = parsed.value("--plan")
        options.starts = try indexed(parsed, "--start")
        options.gains = try indexed(parsed, "--gain")
        options.pans = try indexed(parsed, "--pan")
        options.music = try music(parsed)
        try options.checkTakes()
        try options.checkTarget()
        return options
    }

    /// Refuses a frame rate or CRF that `--target` cannot take.
    private func checkTarget() throws(UsageError) {
        guard let target else { return }
        let range = target.frameRateRange
        if let frameRate, !range.contains(frameRate.framesPerSecond) {
            throw UsageError(
                "--fps \(frameRate) is outside the \(Int(range.lowerBound))-\(Int(range.upperBound)) frames per second "
                    + "of --target \(target.rawValue)")
        }
        if crf == 0 {
            throw UsageError("--crf 0 is lossless, which H.264 High cannot be; --target needs a CRF from 1 to 51")
        }
    }

    /// The frame rate `text` spells when a composition accepts it.
    private static func allowedRate(_ text: String) -> FrameRate? {
        guard let rate = FrameRate(parsing: text), FrameRate.allowedRange.contains(rate.framesPerSecond) else {
            return nil
        }
        return rate
    }

    /// The value of `name` read by `read`, nil when the option was not given; a value `read` refuses is a usage error
    /// saying what was `expected`.
    private static func typed<Value>(
        _ parsed: OptionParser.Parsed<String>, _ name: String, _ read: (String) -> Value?, _ expected: String
    ) throws(UsageError) -> Value? {
        guard let text = parsed.value(name) else { return nil }
        guard let value = read(text) else { throw UsageError("\(name) expects \(expected), got '\(text)'") }
        return value
    }

    /// The soundtrack `--music` and its settings describe; a setting without `--music` is a usage error.
    private static func music(_ parsed: OptionParser.Parsed<String>) throws(UsageError) -> CompositionPlan.Soundtrack? {
        let number = { (text: String) in Double(text).flatMap { $0.isFinite ? $0 : nil } }
        let start = try typed(parsed, "--music-start", number, "a number of seconds")
        let gain = try typed(parsed, "--music-gain", number, "a number")
        guard let file = parsed.value("--music") else {
            if let setting = ["--music-start", "--music-gain", "--music-loop"].first(where: parsed.has) {
                throw UsageError("\(setting) needs --music FILE")
            }
            return nil
        }
        guard !file.isEmpty else { throw UsageError("--music: the file name is empty") }
        return CompositionPlan.Soundtrack(
            file: URL(fileURLWithPath: file), start: start ?? 0, gain: gain ?? 1, loops: parsed.has("--music-loop"))
    }

    /// The files of take argument `text`: its segments, joined by `+`.
    private static func segments(of text: String) throws(UsageError) -> [URL] {
        let parts = text.split(separator: "+", omittingEmptySubsequences: false)
        guard !parts.contains(where: \.isEmpty) else {
            throw UsageError(
                "take \(OptionSyntax.quoted(text)) has an empty segment: segments are joined by + "
                    + "(a file whose name holds + goes through --plan)")
        }
        return parts.map { URL(fileURLWithPath: String($0)) }
    }

    /// The `INDEX=NUMBER` values of the repeatable option `name`, by take index.
    private static func indexed(_ parsed: OptionParser.Parsed<String>, _ name: String) throws(UsageError) -> [Int:
        Double]
    {
        var values: [Int: Double] = [:]
        for text in parsed.values[name] ?? [] {
            let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, let take = Int(parts[0]), take >= 0, let number = Double(parts[1]),
                number.isFinite
            else { throw UsageError("\(name) expects INDEX=NUMBER, got '\(text)'") }
            values[take] = number
        }
        return values
    }

    /// Refuses a command line without an output, with takes both as arguments and in a plan, or with none.
    private func checkTakes() throws(UsageError) {
        guard output != nil else { throw UsageError("no output: give -o OUT.mp4") }
        if planFile != nil, !takes.isEmpty {
            throw UsageError("give the takes either as arguments or in --plan, not both")
        }
        if planFile == nil, takes.isEmpty {
            throw UsageError("no takes: give TAKE... or --plan")
        }
        if let grid, takes.count > grid.tileCount {
            throw UsageError("\(takes.count) takes do not fit a \(grid) grid (\(grid.tileCount) tiles)")
        }
    }

    /// The plan the options describe (the plan file's, with the options' overrides).
    func plan() throws(UsageError) -> CompositionPlan {
        var plan: CompositionPlan
        if let planFile {
            let url = URL(fileURLWithPath: planFile)
            guard let data = FileManager.default.contents(atPath: planFile) else {
                throw UsageError("cannot read the plan \(planFile)")
            }
            do {
                plan = try CompositionPlan(json: data, relativeTo: url.deletingLastPathComponent())
            } catch {
                throw UsageError("\(planFile): \(error.description)")
            }
            if let size { plan.size = size }
            if let frameRate { plan.frameRate = frameRate }
            if let scaling { for index in plan.takes.indices { plan.takes[index].scaling = scaling } }
            if let grid {
                guard plan.takes.count <= grid.tileCount else {
                    throw UsageError("\(plan.takes.count) takes do not fit a \(grid) grid")
                }
                for index in plan.takes.indices { plan.takes[index].region = grid.region(ofTile: index) }
            }
        } else {
            let segments = try takes.map { text throws(UsageError) in try Self.segments(of: text) }
            plan = CompositionPlan(
                files: segments.map { $0[0] }, grid: grid ?? GridLayout(holding: takes.count),
                size: size ?? PixelSize(width: 720, height: 1280), scaling: scaling ?? .fit,
                frameRate: frameRate ?? FrameRate(frames: 30))
            for (index, files) in segments.enumerated() { plan.takes[index].segments = files }
        }
        if let target { plan.shape(for: target) }
        if let music { plan.soundtrack = music }
        for (name, values) in [("--start", starts), ("--gain", gains), ("--pan", pans)] {
            if let bad = values.keys.sorted().first(where: { $0 >= plan.takes.count }) {
                let count = plan.takes.count == 1 ? "there is 1 take" : "there are \(plan.takes.count) takes"
                throw UsageError("\(name) names take \(bad), but \(count)")
            }
        }
        for (take, start) in starts { plan.takes[take].start = start }
        for (take, gain) in gains { plan.takes[take].gain = gain }
        for (take, pan) in pans { plan.takes[take].pan = pan }
        if let crf { plan.video.constantRateFactor = crf }
        if let preset { plan.video.preset = preset }
        do {
            return try plan.validated()
        } catch {
            throw UsageError(error.description)
        }
    }
}

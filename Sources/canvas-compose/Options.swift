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
    var planFile: String?
    var json = false
    var help = false
    var version = false

    static let usage = """
        usage: canvas-compose TAKE... -o OUT.mp4 [--size WxH] [--grid CxR] [--fit | --fill] [--fps RATE]
                              [--start INDEX=SECONDS]... [--gain INDEX=G]... [--pan INDEX=P]...
                              [--crf N] [--preset NAME] [--plan FILE.json] [--json]
          TAKE               a video (or audio) file; TAKE i goes in tile i (column i % C, row i / C)
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
          --plan FILE.json   the plan from a file (Docs/Composition.md); the options above override it
          --json             print one JSON object at the end (output, duration, frames, seconds)
          -h, --help         show this help;  --version  print the version
        exit status: 0 written, 1 failed (nothing written), 2 usage
        """

    struct UsageError: Error {
        let message: String
    }

    static let valued: Set<String> = [
        "--output", "--size", "--grid", "--fps", "--start", "--gain", "--pan", "--crf", "--preset", "--plan",
    ]

    static func parse(_ arguments: [String]) throws(UsageError) -> Options {
        var options = Options()
        var index = 0
        let arguments = OptionSyntax.expandingEqualsForm(arguments, valued: valued)
        var optionsEnded = false
        func value(_ name: String) throws(UsageError) -> String {
            index += 1
            guard index < arguments.count else { throw UsageError(message: "\(name) needs a value") }
            return arguments[index]
        }
        func indexed(_ name: String, _ text: String) throws(UsageError) -> (Int, Double) {
            let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, let take = Int(parts[0]), take >= 0, let number = Double(parts[1]),
                number.isFinite
            else { throw UsageError(message: "\(name) expects INDEX=NUMBER, got '\(text)'") }
            return (take, number)
        }
        var seen: [String: String] = [:]
        while index < arguments.count {
            let argument = arguments[index]
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
                options.takes.append(argument)
                index += 1
                continue
            }
            try Self.checkRepeat(of: argument, seen: &seen)
            switch argument {
            case "--": optionsEnded = true
            case "-o", "--output":
                let path = try value(argument)
                guard !path.isEmpty else { throw UsageError(message: "\(argument): the output path is empty") }
                options.output = path
            case "--size":
                let text = try value(argument)
                guard let size = PixelSize(parsing: text) else {
                    throw UsageError(message: "--size expects WIDTHxHEIGHT such as 720x1280, got '\(text)'")
                }
                options.size = size
            case "--grid":
                let text = try value(argument)
                guard let grid = GridLayout(text) else {
                    throw UsageError(message: "--grid expects COLUMNSxROWS such as 2x2, got '\(text)'")
                }
                options.grid = grid
            case "--fit": options.scaling = .fit
            case "--fill": options.scaling = .fill
            case "--fps":
                let text = try value(argument)
                guard let rate = FrameRate(parsing: text), FrameRate.allowedRange.contains(rate.framesPerSecond)
                else {
                    throw UsageError(
                        message: "--fps expects a rate from 1 to 240 such as 30, 29.97 or 24000/1001, got '\(text)'")
                }
                options.frameRate = rate
            case "--start":
                let (take, seconds) = try indexed(argument, try value(argument))
                options.starts[take] = seconds
            case "--gain":
                let (take, gain) = try indexed(argument, try value(argument))
                options.gains[take] = gain
            case "--pan":
                let (take, pan) = try indexed(argument, try value(argument))
                options.pans[take] = pan
            case "--crf":
                let text = try value(argument)
                guard let crf = Int(text) else {
                    throw UsageError(message: "--crf expects a whole number, got '\(text)'")
                }
                options.crf = crf
            case "--preset": options.preset = try value(argument)
            case "--plan": options.planFile = try value(argument)
            case "--json": options.json = true
            case "-h", "--help": options.help = true
            case "--version": options.version = true
            default: throw UsageError(message: "unknown option '\(argument)'")
            }
            index += 1
        }
        if options.help || options.version { return options }
        guard options.output != nil else { throw UsageError(message: "no output: give -o OUT.mp4") }
        if options.planFile != nil, !options.takes.isEmpty {
            throw UsageError(message: "give the takes either as arguments or in --plan, not both")
        }
        if options.planFile == nil, options.takes.isEmpty {
            throw UsageError(message: "no takes: give TAKE... or --plan")
        }
        if let grid = options.grid, options.takes.count > grid.tileCount {
            throw UsageError(
                message: "\(options.takes.count) takes do not fit a \(grid) grid (\(grid.tileCount) tiles)")
        }
        return options
    }

    /// The options that may be given more than once (one value per take each time).
    static let repeatable: Set<String> = ["--start", "--gain", "--pan"]
    /// Options that exclude each other, by the name of the setting they share.
    static let settings: [String: String] = [
        "-o": "output", "--output": "output", "--fit": "scaling", "--fill": "scaling", "-h": "help", "--help": "help",
    ]

    /// Throws when `argument` repeats an option (or one it excludes, such as `--fill` after `--fit`).
    static func checkRepeat(of argument: String, seen: inout [String: String]) throws(UsageError) {
        guard !repeatable.contains(argument), argument != "--" else { return }
        let setting = settings[argument] ?? argument
        if let earlier = seen[setting] {
            throw UsageError(
                message: earlier == argument
                    ? "\(argument) is given twice" : "\(earlier) and \(argument) cannot be given together")
        }
        seen[setting] = argument
    }

    /// The plan the options describe (the plan file's, with the options' overrides).
    func plan() throws(UsageError) -> CompositionPlan {
        var plan: CompositionPlan
        if let planFile {
            let url = URL(fileURLWithPath: planFile)
            guard let data = FileManager.default.contents(atPath: planFile) else {
                throw UsageError(message: "cannot read the plan \(planFile)")
            }
            do {
                plan = try CompositionPlan(json: data, relativeTo: url.deletingLastPathComponent())
            } catch {
                throw UsageError(message: "\(planFile): \(error.description)")
            }
            if let size { plan.size = size }
            if let frameRate { plan.frameRate = frameRate }
            if let scaling { for index in plan.takes.indices { plan.takes[index].scaling = scaling } }
            if let grid {
                guard plan.takes.count <= grid.tileCount else {
                    throw UsageError(message: "\(plan.takes.count) takes do not fit a \(grid) grid")
                }
                for index in plan.takes.indices { plan.takes[index].region = grid.region(ofTile: index) }
            }
        } else {
            plan = CompositionPlan(
                files: takes.map { URL(fileURLWithPath: $0) }, grid: grid ?? GridLayout(holding: takes.count),
                size: size ?? PixelSize(width: 720, height: 1280), scaling: scaling ?? .fit,
                frameRate: frameRate ?? FrameRate(frames: 30))
        }
        for (name, values) in [("--start", starts), ("--gain", gains), ("--pan", pans)] {
            if let bad = values.keys.sorted().first(where: { $0 >= plan.takes.count }) {
                let count = plan.takes.count == 1 ? "there is 1 take" : "there are \(plan.takes.count) takes"
                throw UsageError(message: "\(name) names take \(bad), but \(count)")
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
            throw UsageError(message: error.description)
        }
    }
}

import Composition
import Foundation
import Pixels
import Testing

@Suite("Composition plans")
struct PlanTests {
    let folder = URL(fileURLWithPath: "/plans")

    @Test func jsonPlanWithDefaults() throws {
        let json = """
            {"size": "720x1280", "fps": 29.97, "background": "#102030", "grid": "2x2", "crf": 18, "preset": "fast",
             "takes": [{"file": "a.mp4"}, {"file": "/abs/b.mp4", "start": -0.25, "gain": 0.5, "pan": -1, "z": 2},
                       {"file": "c.mp4", "rect": [0, 0.5, 1, 0.5], "scaling": "fill"}]}
            """
        let plan = try CompositionPlan(json: Data(json.utf8), relativeTo: folder).validated()
        #expect(plan.size == PixelSize(width: 720, height: 1280))
        #expect(plan.frameRate == FrameRate(frames: 30000, per: 1001))
        #expect(plan.background == RGBColor(red: 0x10, green: 0x20, blue: 0x30))
        #expect(plan.video == CompositionPlan.VideoSettings(constantRateFactor: 18, preset: "fast"))
        #expect(plan.takes[0].file.path == "/plans/a.mp4")
        #expect(plan.takes[0].region == GridLayout(columns: 2, rows: 2).region(ofTile: 0))
        #expect(plan.takes[1].file.path == "/abs/b.mp4")
        #expect(plan.takes[1].start == -0.25 && plan.takes[1].gain == 0.5 && plan.takes[1].pan == -1)
        #expect(plan.takes[1].zIndex == 2)
        #expect(plan.takes[2].region == NormalizedRect(x: 0, y: 0.5, width: 1, height: 0.5))
        #expect(plan.takes[2].scaling == .fill)
        #expect(plan.timelineOrigin == -0.25)
    }

    @Test(arguments: [
        ("{", "not valid JSON"),
        ("[]", "expected a JSON object"),
        (#"{"takes": [{"file": "a"}]}"#, "size: missing"),
        (#"{"size": "720x1280"}"#, "takes: missing"),
        (#"{"size": "720x1280", "takes": []}"#, "takes: a plan needs at least one take"),
        (#"{"size": "720x1280", "takes": [{"file": "a", "gain": "loud"}]}"#, "takes[0].gain: expected a number"),
        (#"{"size": "720x1280", "takes": [{"file": "a", "gian": 1}]}"#, "takes[0].gian: unknown key"),
        (#"{"size": "720x1280", "takes": [{}]}"#, "takes[0].file: missing"),
        (
            #"{"size": "720x1280", "grid": "1x1", "takes": [{"file": "a"}, {"file": "b"}]}"#,
            "takes[1]: no rect, and a 1x1 grid has only 1 tile"
        ),
        (#"{"size": "7x", "takes": [{"file": "a"}]}"#, "size: expected"),
        (#"{"size": "720x1280", "takes": [{"file": "a", "gain": true}]}"#, "takes[0].gain: expected a number"),
        (#"{"size": "720x1280", "takes": [{"file": "a", "scaling": "stretch"}]}"#, "takes[0].scaling: expected"),
        (#"{"size": "720x1280", "fps": 0.001, "takes": [{"file": "a"}]}"#, "fps: expected a rate from 1 to 240"),
        (#"{"size": "720x1280", "fps": 1e-9, "takes": [{"file": "a"}]}"#, "fps: expected a rate from 1 to 240"),
        (#"{"size": "720x1280", "fps": "0/0", "takes": [{"file": "a"}]}"#, "fps: expected a rate from 1 to 240"),
        (#"{"size": , "takes": [{"file": "a"}]}"#, "not valid JSON"),
    ])
    func jsonErrorsNameTheKey(json: String, message: String) {
        expectPlanRefused(json, saying: message, relativeTo: folder)
    }

    @Test func validationNamesTheTake() throws {
        let file = URL(fileURLWithPath: "/a.mp4")
        var plan = CompositionPlan(
            size: PixelSize(width: 720, height: 1280),
            takes: [
                .init(file: file, region: .full), .init(file: file, region: .full, gain: -1),
            ])
        #expect(throws: CompositionPlanError.self) { try plan.validated() }
        do {
            _ = try plan.validated()
        } catch {
            #expect(error.canvasIndex == 1)
            #expect(error.description == "canvas 1: gain must be a number from 0 to 1000, got -1.0")
        }
        plan.takes[1].gain = 1
        plan.takes[1].pan = 2
        #expect(throws: CompositionPlanError.self) { try plan.validated() }
        plan.takes[1].pan = 0
        plan.takes[1].region = NormalizedRect(x: 0.6, y: 0, width: 0.5, height: 1)
        #expect(throws: CompositionPlanError.self) { try plan.validated() }
        plan.takes[1].region = .full
        plan.size = PixelSize(width: 721, height: 1280)
        #expect(throws: CompositionPlanError.self) { try plan.validated() }
        plan.size = PixelSize(width: 720, height: 1280)
        plan.video.preset = "fastest"
        #expect(throws: CompositionPlanError.self) { try plan.validated() }
        plan.video.preset = "veryfast"
        _ = try plan.validated()
    }

    /// A plan's takes, frame rate and the span of its starts are limited, and each limit is named when refused.
    @Test func planLimits() throws {
        let file = URL(fileURLWithPath: "/a.mp4")
        let size = PixelSize(width: 64, height: 64)
        var plan = CompositionPlan(size: size, takes: Array(repeating: .init(file: file, region: .full), count: 64))
        _ = try plan.validated()
        plan.takes.append(.init(file: file, region: .full))
        #expect {
            try plan.validated()
        } throws: { error in
            String(describing: error) == "the plan has 65 takes: refused, a plan may have at most 64"
        }
        plan = CompositionPlan(
            size: size, takes: [.init(file: file, region: .full), .init(file: file, region: .full, start: -9_999_999)])
        #expect {
            try plan.validated()
        } throws: { error in
            String(describing: error)
                == "the takes' starts span 9999999.0 s: refused, an output may last at most 3600 s"
        }
        plan.takes[1].start = -3600
        _ = try plan.validated()
        plan.frameRate = FrameRate(frames: 1, per: 1000)
        #expect(throws: CompositionPlanError.self) { try plan.validated() }
        plan.frameRate = FrameRate(frames: 24000, per: 1001)
        _ = try plan.validated()
    }

    @Test func frameRates() {
        #expect(FrameRate(29.97) == FrameRate(frames: 30000, per: 1001))
        #expect(FrameRate(23.976) == FrameRate(frames: 24000, per: 1001))
        #expect(FrameRate(25) == FrameRate(frames: 25))
        #expect(FrameRate(12.5) == FrameRate(frames: 12500, per: 1000))
        #expect(FrameRate(0) == nil)
        #expect(FrameRate(0.0001) == nil, "rounds to no frames: nil, not a trap")
        #expect(FrameRate(1e-9) == nil)
        #expect(FrameRate(0.001).map { FrameRate.allowedRange.contains($0.framesPerSecond) } == false)
        #expect(FrameRate(parsing: "24000/1001") == FrameRate(frames: 24000, per: 1001))
        #expect(FrameRate(parsing: "29.97") == FrameRate(frames: 30000, per: 1001))
        #expect(FrameRate(parsing: "0/1") == nil && FrameRate(parsing: "1/0") == nil && FrameRate(parsing: "x") == nil)
        #expect(FrameRate(frames: 30).frameCount(for: 10) == 300)
        #expect(FrameRate(frames: 30).frameCount(for: 10.01) == 301)
    }
}

/// Expects the plan `json` refused with one line that begins with `message`.
func expectPlanRefused(
    _ json: String, saying message: String, relativeTo folder: URL, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(sourceLocation: sourceLocation) {
        _ = try CompositionPlan(json: Data(json.utf8), relativeTo: folder)
    } throws: { error in
        let text = String(describing: error)
        return text.hasPrefix(message) && !text.contains("\n")
    }
}

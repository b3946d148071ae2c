import Composition
import Foundation
import Pixels
import Testing

/// Plans whose takes are several segments, and plans with a soundtrack: read from JSON and validated.
@Suite("Composition plans: segments and music")
struct SegmentPlanTests {
    let folder = URL(fileURLWithPath: "/plans")

    @Test func jsonSegmentsAndMusic() throws {
        let json = """
            {"size": "720x1280", "takes": [{"files": ["a1.mp4", "/abs/a2.mp4", "a3.mp4"]}, {"file": "b.mp4"}],
             "music": {"file": "song.m4a", "start": -1.5, "gain": 0.25, "loop": true}}
            """
        let plan = try CompositionPlan(json: Data(json.utf8), relativeTo: folder).validated()
        #expect(plan.takes[0].segments.map(\.path) == ["/plans/a1.mp4", "/abs/a2.mp4", "/plans/a3.mp4"])
        #expect(plan.takes[0].file.path == "/plans/a1.mp4")
        #expect(plan.takes[1].segments.map(\.path) == ["/plans/b.mp4"])
        #expect(
            plan.soundtrack
                == CompositionPlan.Soundtrack(
                    file: URL(fileURLWithPath: "/plans/song.m4a"), start: -1.5, gain: 0.25, loops: true))
        let plain = try CompositionPlan(
            json: Data(#"{"size": "64x64", "takes": [{"file": "a"}], "music": {"file": "m.wav"}}"#.utf8),
            relativeTo: folder)
        #expect(plain.soundtrack == CompositionPlan.Soundtrack(file: URL(fileURLWithPath: "/plans/m.wav")))
    }

    @Test(arguments: [
        (
            #"{"size": "64x64", "takes": [{"file": "a", "files": ["b"]}]}"#,
            #"takes[0]: give "file" or "files", not both"#
        ),
        (#"{"size": "64x64", "takes": [{"files": []}]}"#, "takes[0].files: a take needs at least one file"),
        (#"{"size": "64x64", "takes": [{"files": "a.mp4"}]}"#, "takes[0].files: expected an array"),
        (#"{"size": "64x64", "takes": [{"files": ["a", 2]}]}"#, "takes[0].files: expected a string"),
        (#"{"size": "64x64", "takes": [{}]}"#, #"takes[0].file: missing (or "files": its segments)"#),
        (#"{"size": "64x64", "takes": [{"file": "a"}], "music": "m.wav"}"#, "music: expected an object"),
        (#"{"size": "64x64", "takes": [{"file": "a"}], "music": {}}"#, "music.file: missing"),
        (
            #"{"size": "64x64", "takes": [{"file": "a"}], "music": {"file": "m", "loop": 1}}"#,
            "music.loop: expected true or false"
        ),
        (
            #"{"size": "64x64", "takes": [{"file": "a"}], "music": {"file": "m", "volume": 1}}"#,
            "music.volume: unknown key"
        ),
    ])
    func jsonErrorsNameTheKey(json: String, message: String) {
        expectPlanRefused(json, saying: message, relativeTo: folder)
    }

    @Test func limitsOfSegmentsAndMusic() throws {
        let file = URL(fileURLWithPath: "/a.mp4")
        let region = NormalizedRect(x: 0, y: 0, width: 1, height: 1)
        func plan(_ segments: [URL], music: CompositionPlan.Soundtrack? = nil) -> CompositionPlan {
            var plan = CompositionPlan(
                size: PixelSize(width: 64, height: 64), takes: [.init(segments: segments, region: region)])
            plan.soundtrack = music
            return plan
        }
        let most = Array(repeating: file, count: CompositionPlan.maximumSegments)
        #expect(throws: Never.self) { try plan(most).validated() }
        func refusal(_ plan: CompositionPlan) -> String? {
            do {
                _ = try plan.validated()
                return nil
            } catch {
                return error.description
            }
        }
        #expect(
            refusal(plan(most + [file]))
                == "canvas 0: the take has 101 segments: refused, a take may have at most 100")
        #expect(refusal(plan([])) == "canvas 0: a take needs at least one file")
        #expect(
            refusal(plan([file], music: CompositionPlan.Soundtrack(file: file, gain: -1)))
                == "music: gain must be a number from 0 to 1000, got -1.0")
        #expect(
            refusal(plan([file], music: CompositionPlan.Soundtrack(file: file, start: 4000)))
                == "music: start must be a number of seconds from -3600 to 3600, got 4000.0")
        #expect(throws: Never.self) {
            try plan([file], music: CompositionPlan.Soundtrack(file: file, start: -3600, gain: 0)).validated()
        }
        // Setting `file` makes the take that one file.
        var take = plan([file, file]).takes[0]
        take.file = URL(fileURLWithPath: "/b.mp4")
        #expect(take.segments.map(\.path) == ["/b.mp4"])
    }
}

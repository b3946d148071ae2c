import Composition
import Foundation
import Pixels
import Testing

@Suite("Publishing targets: the figures and the plans they allow")
struct PublishingTargetTests {
    let folder = URL(fileURLWithPath: "/plans")

    /// The lowest level of Table A-1 for each size and rate: the frame's macroblocks, the macroblocks a second, and
    /// (for 1080x1920) the bit rate.
    @Test(arguments: [
        (1080, 1920, 30, 8_000_000, "4.0"), (1080, 1920, 60, 12_000_000, "4.2"), (1080, 1920, 25, 30_000_000, "4.1"),
        (1920, 1080, 30, 10_000_000, "4.0"), (1280, 720, 30, 10_000_000, "3.1"), (1280, 720, 60, 10_000_000, "3.2"),
        (720, 1280, 30, 20_000_000, "3.2"), (3840, 2160, 30, 40_000_000, "5.1"), (3840, 2160, 60, 40_000_000, "5.2"),
        (176, 144, 15, 64_000, "1.0"),
    ])
    func lowestLevel(width: Int, height: Int, fps: Int, bitRate: Int, level: String) {
        let found = H264Level.lowest(
            for: PixelSize(width: width, height: height), frameRate: FrameRate(frames: fps), bitRate: bitRate,
            bufferSize: bitRate)
        #expect(found?.description == level, "\(width)x\(height)@\(fps), \(bitRate) bit/s")
    }

    @Test func noLevelHoldsEightKAtTwoHundredFramesASecond() {
        let size = PixelSize(width: 8192, height: 4320)
        #expect(H264Level.lowest(for: size, frameRate: FrameRate(frames: 240), bitRate: 1, bufferSize: 1) == nil)
    }

    /// Level 4.0 at 30 frames a second (its 245,760 macroblocks a second hold 8,160 x 30), 4.2 at 60; GOPs of half
    /// the frame rate, rounded down.
    @Test func targetFigures() {
        for target in PublishingTarget.allCases {
            #expect(target.size == PixelSize(width: 1080, height: 1920))
            #expect(target.level(at: FrameRate(frames: 30))?.idc == 40)
            #expect(target.level(at: FrameRate(frames: 60))?.idc == 42)
            #expect(target.level(at: FrameRate(frames: 24000, per: 1001))?.idc == 40)
            #expect(target.keyframeInterval(at: FrameRate(frames: 30)) == 15)
            #expect(target.keyframeInterval(at: FrameRate(frames: 30000, per: 1001)) == 14)
            #expect(target.keyframeInterval(at: FrameRate(frames: 60)) == 30)
            #expect(target.keyframeInterval(at: FrameRate(frames: 25)) == 12)
            #expect(target.bFrames == 2)
        }
        #expect(PublishingTarget.shorts.maximumVideoBitRate(at: FrameRate(frames: 30)) == 8_000_000)
        #expect(PublishingTarget.shorts.maximumVideoBitRate(at: FrameRate(frames: 60)) == 12_000_000)
        #expect(PublishingTarget.reels.maximumVideoBitRate(at: FrameRate(frames: 60)) == 25_000_000)
        #expect(PublishingTarget.shorts.audioBitRate == 384_000 && PublishingTarget.reels.audioBitRate == 128_000)
        #expect(PublishingTarget.shorts.maximumDuration == 180 && PublishingTarget.reels.maximumDuration == 900)
        #expect(PublishingTarget.reels.minimumDuration == 3 && PublishingTarget.tiktok.maximumDuration == 180)
    }

    /// The largest file a target can write at each length it takes, at 30 and 60 frames a second: the video's VBV
    /// bound (a quarter of the cap, plus three quarters of it a second), the sound at its rate plus a tenth, and 2%
    /// for the index. A Reel stays within 300 MB, so a long one gets a lower cap (at 25 Mbit/s a 15-minute Reel could
    /// reach 2.1 GB); a short one keeps the published cap. TikTok and Shorts stay under 1 GB at their caps.
    @Test func everyLengthFitsTheFileSizeLimit() {
        for target in PublishingTarget.allCases {
            for rate in [FrameRate(frames: 30), FrameRate(frames: 60)] {
                for seconds in stride(from: 3.0, through: target.maximumDuration, by: 0.5) {
                    let cap = Double(target.maximumVideoBitRate(at: rate, duration: seconds))
                    let bits = cap / 4 + 0.75 * cap * seconds + 1.1 * Double(target.audioBitRate) * seconds
                    let bytes = bits / 8 / 0.98
                    #expect(bytes <= Double(target.maximumFileSize ?? 1_000_000_000), "\(target) \(seconds) s")
                    #expect(cap <= Double(target.maximumVideoBitRate(at: rate)))
                }
            }
        }
        let reels = PublishingTarget.reels
        #expect(reels.maximumFileSize == 300_000_000)
        #expect(reels.maximumVideoBitRate(at: FrameRate(frames: 30), duration: 120) == 25_000_000)
        let fifteenMinutes = reels.maximumVideoBitRate(at: FrameRate(frames: 30), duration: 900)
        #expect((3_200_000...3_300_000).contains(fifteenMinutes), "\(fifteenMinutes)")
        #expect(PublishingTarget.tiktok.maximumVideoBitRate(at: FrameRate(frames: 60), duration: 180) == 25_000_000)
    }

    @Test func aTargetPlanFillsAndValidates() throws {
        let files = ["a.mp4", "b.mp4"].map { folder.appendingPathComponent($0) }
        let plan = try CompositionPlan(files: files, grid: GridLayout(columns: 1, rows: 2), target: .reels).validated()
        #expect(plan.size == PixelSize(width: 1080, height: 1920))
        #expect(plan.takes.allSatisfy { $0.scaling == .fill })
        #expect(plan.target == .reels && plan.frameRate == FrameRate(frames: 30))
    }

    @Test func shapingAPlanForATarget() throws {
        var plan = CompositionPlan(
            files: ["a.mp4", "b.mp4"].map { folder.appendingPathComponent($0) }, grid: GridLayout(columns: 2, rows: 1),
            size: PixelSize(width: 720, height: 1280), scaling: .fit, frameRate: FrameRate(frames: 24000, per: 1001))
        #expect(throws: CompositionPlanError.self) {
            var unshaped = plan
            unshaped.target = .shorts
            _ = try unshaped.validated()
        }
        plan.shape(for: .shorts)
        let shaped = try plan.validated()
        #expect(shaped.size == PixelSize(width: 1080, height: 1920) && shaped.target == .shorts)
        #expect(
            shaped.takes.allSatisfy { $0.scaling == .fill } && shaped.frameRate == FrameRate(frames: 24000, per: 1001))
    }

    /// What contradicts a target is refused by `validated()` with one line naming it.
    @Test func contradictionsAreRefused() {
        let base = CompositionPlan(
            files: [folder.appendingPathComponent("a.mp4")], grid: GridLayout(holding: 1), target: .tiktok)
        var cases: [(CompositionPlan, String)] = []
        var plan = base
        plan.size = PixelSize(width: 720, height: 1280)
        cases.append((plan, "target tiktok: the output size must be 1080x1920, got 720x1280"))
        plan = base
        plan.frameRate = FrameRate(frames: 120)
        cases.append((plan, "target tiktok: the frame rate must be 23-60 frames per second, got 120"))
        plan.frameRate = FrameRate(frames: 15)
        cases.append((plan, "target tiktok: the frame rate must be 23-60 frames per second, got 15"))
        plan = base
        plan.video.constantRateFactor = 0
        cases.append((plan, "target tiktok: CRF 0 is lossless, which H.264 High cannot be; use a CRF from 1 to 51"))
        plan = base
        plan.takes[0].scaling = .fit
        cases.append((plan, "canvas 0: target tiktok fills the 9:16 frame, so every take fills its tile"))
        for (plan, message) in cases {
            #expect(
                performing: { _ = try plan.validated() },
                throws: { error in
                    String(describing: error).hasPrefix(message)
                })
        }
    }

    @Test func jsonTarget() throws {
        let json = #"{"target": "shorts", "fps": 60, "takes": [{"file": "a.mp4"}]}"#
        let plan = try CompositionPlan(json: Data(json.utf8), relativeTo: folder).validated()
        #expect(plan.target == .shorts && plan.size == PixelSize(width: 1080, height: 1920))
        #expect(plan.takes[0].scaling == .fill && plan.frameRate == FrameRate(frames: 60))
        let sized = #"{"target": "reels", "size": "720x1280", "takes": [{"file": "a.mp4"}]}"#
        #expect(
            performing: { _ = try CompositionPlan(json: Data(sized.utf8), relativeTo: folder).validated() },
            throws: { String(describing: $0).hasPrefix("target reels: the output size must be 1080x1920") })
        for (json, message) in [
            (#"{"target": "vine", "takes": [{"file": "a"}]}"#, #"target: expected "tiktok", "reels" or "shorts""#),
            (#"{"target": "reels", "audioBitRate": 96000, "takes": [{"file": "a"}]}"#, "audioBitRate: target reels"),
        ] {
            #expect(
                performing: { _ = try CompositionPlan(json: Data(json.utf8), relativeTo: folder) },
                throws: {
                    String(describing: $0).hasPrefix(message)
                })
        }
    }
}

import Foundation
import TestSupport
import Testing

/// canvas-compose as a service runs it on takes and output paths nobody vouches for.
@Suite("canvas-compose on untrusted takes and output paths")
struct CanvasComposeUntrustedTests {
    let tool: BuiltBinary
    let scratch: ScratchFolder
    let shapes: AttackShapes

    init() throws {
        tool = try BuiltBinary("canvas-compose")
        scratch = try ScratchFolder()
        shapes = try AttackShapes(in: scratch.url, fixture: BuiltBinary.root.appending(path: "Fixtures/h264.mp4"))
    }

    /// Headers of a few KB that declare millions of samples or hundreds of streams, as canvas 1's take: exit 1, one
    /// line naming the canvas, the file and the limit, nothing in the output's folder.
    @Test(arguments: AttackShapes.refusedShapes.filter { AttackShapes.headerShapes[$0.name] != nil })
    func hostileHeaderIsRefused(_ shape: AttackShapes.Shape) throws {
        let out = try ScratchFolder()
        let run = try tool.run([
            shapes.url("other-upload.mp4").path, shapes.url(shape.name).path, "-o",
            out.url.appending(path: "board.mp4").path, "--size", "64x32",
        ])
        #expect(run.status == 1)
        #expect(run.errorLines.count == 1, "\(run.standardError)")
        #expect(run.errorLines.first?.hasPrefix("canvas-compose: canvas 1 (\(shape.name)): ") == true)
        #expect(run.standardError.contains(shape.refusal), "\(run.standardError)")
        #expect(out.contents.isEmpty)
    }

    /// A link planted at the output, to a file of someone else's or to the take itself: the link is replaced by the
    /// composition, and the file it pointed to is left as it was.
    @Test func linkAtTheOutputIsReplacedNotFollowed() throws {
        let take = shapes.url("other-upload.mp4")
        let before = try Data(contentsOf: take)
        let victim = scratch.url.appending(path: "victim.txt")
        try Data("precious".utf8).write(to: victim)
        let out = try ScratchFolder()
        for (name, target) in [("to-victim.mp4", victim), ("to-take.mp4", take)] {
            let output = out.url.appending(path: name)
            try FileManager.default.createSymbolicLink(at: output, withDestinationURL: target)
            let run = try tool.run([take.path, "-o", output.path, "--size", "64x32"])
            #expect(run.status == 0, "\(run.standardError)")
            let type = try FileManager.default.attributesOfItem(atPath: output.path)[.type] as? FileAttributeType
            #expect(type == .typeRegular, "\(name)")
        }
        #expect(try Data(contentsOf: victim) == Data("precious".utf8))
        #expect(try Data(contentsOf: take) == before)
        #expect(out.contents == ["to-take.mp4", "to-victim.mp4"])
    }
}

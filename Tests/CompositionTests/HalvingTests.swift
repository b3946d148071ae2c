import Foundation
import MediaCore
import SeededRandom
import TestSupport
import Testing

/// The halving a tile takes when it is exactly half its take's size: the bilinear filter at 2:1, checked against a
/// plain model of that filter (exactly) and against swscale's bilinear scaler, the general path (within one step),
/// and only taken for pictures it needs no conversion for.
@Suite("Composer: halving a take into its tile")
struct HalvingTests {
    /// A 4:2:0 picture of `width` x `height` with seeded random samples.
    func randomPicture(width: Int, height: Int, seed: UInt64) throws -> Frame {
        var random = SplitMix64(seed: seed)
        let frame = try Frame.yuv420(width: width, height: height)
        for index in 0..<3 {
            let plane = try #require(frame.plane(index))
            let shift = index == 0 ? 0 : 1
            for row in 0..<(height >> shift) {
                for column in 0..<(width >> shift) {
                    plane.base[row * plane.stride + column] = UInt8.random(in: 0...255, using: &random)
                }
            }
        }
        return frame
    }

    /// Plane `index` of `frame`, row by row, without the padding at the end of each row.
    func samples(of frame: Frame, plane index: Int) throws -> [[UInt8]] {
        let plane = try #require(frame.plane(index))
        let shift = index == 0 ? 0 : 1
        return (0..<(frame.height >> shift)).map { row in
            Array(UnsafeBufferPointer(start: plane.base + row * plane.stride, count: frame.width >> shift))
        }
    }

    /// The filter written out plainly: weights 1, 3, 3, 1 (over 8) across and down, edge samples repeated, rounded to
    /// nearest.
    func model(_ plane: [[UInt8]]) -> [[UInt8]] {
        let height = plane.count
        let width = plane[0].count
        let weights = [1.0, 3.0, 3.0, 1.0]
        return (0..<(height / 2)).map { row in
            (0..<(width / 2)).map { column in
                var sum = 0.0
                for (down, weightDown) in weights.enumerated() {
                    let y = min(max(2 * row - 1 + down, 0), height - 1)
                    for (across, weightAcross) in weights.enumerated() {
                        let x = min(max(2 * column - 1 + across, 0), width - 1)
                        sum += weightDown * weightAcross * Double(plane[y][x])
                    }
                }
                return UInt8((sum / 64).rounded(.toNearestOrAwayFromZero))
            }
        }
    }

    @Test(arguments: [(4, 4), (8, 4), (4, 12), (36, 20), (64, 64), (720, 1280)])
    func halvingIsTheBilinearFilterAtTwoToOne(width: Int, height: Int) throws {
        let source = try randomPicture(width: width, height: height, seed: UInt64(width * 10_000 + height))
        let tile = try Frame.yuv420(width: width / 2, height: height / 2)
        #expect(source.canBeHalved(into: tile))
        #expect(source.halve(into: tile))
        for plane in 0..<3 {
            let expected = model(try samples(of: source, plane: plane))
            let halved = try samples(of: tile, plane: plane)
            let wrong = zip(halved, expected).enumerated().flatMap { row, pair in
                zip(pair.0, pair.1).enumerated().filter { $0.element.0 != $0.element.1 }.map {
                    "(\($0.offset), \(row))"
                }
            }
            #expect(
                wrong.isEmpty,
                "\(width)x\(height), plane \(plane): \(wrong.count) samples wrong, first \(wrong.prefix(4))")
        }
    }

    /// swscale rounds its intermediate sums with a small bias: the two agree within one step everywhere, and exactly
    /// on all but about 6% of samples of random pictures, so a take composed at 2:1 looks as it did through the
    /// general scaler.
    @Test func halvingAgreesWithSwscaleWithinOneStep() throws {
        let source = try randomPicture(width: 360, height: 640, seed: 7)
        let halved = try Frame.yuv420(width: 180, height: 320)
        #expect(source.halve(into: halved))
        let scaled = try Frame.yuv420(width: 180, height: 320)
        try Scaler(from: .source(source), to: .yuv420(width: 180, height: 320)).scale(source, into: scaled)
        var differing = 0
        var apart = 0
        var total = 0
        for plane in 0..<3 {
            for (ours, theirs) in zip(try samples(of: halved, plane: plane), try samples(of: scaled, plane: plane)) {
                for (a, b) in zip(ours, theirs) {
                    if a != b { differing += 1 }
                    if abs(Int(a) - Int(b)) > 1 { apart += 1 }
                    total += 1
                }
            }
        }
        #expect(apart == 0, "\(apart) samples more than one step from swscale's")
        #expect(Double(differing) < 0.1 * Double(total), "\(differing) of \(total) samples differ")
    }

    @Test func onlyExactHalvesOfPlainPicturesAreHalved() throws {
        let source = try Frame.yuv420(width: 64, height: 48)
        #expect(source.canBeHalved(into: try Frame.yuv420(width: 32, height: 24)))
        #expect(!source.canBeHalved(into: try Frame.yuv420(width: 32, height: 26)))
        // A refused halving touches nothing: the general scaler does the work.
        let tall = try Frame.yuv420(width: 32, height: 26)
        let luma = try #require(tall.plane(0))
        luma.base.update(repeating: 7, count: luma.stride * 26)
        #expect(!source.halve(into: tall))
        #expect(UnsafeBufferPointer(start: luma.base, count: luma.stride * 26).allSatisfy { $0 == 7 })
        #expect(!source.canBeHalved(into: try Frame.yuv420(width: 30, height: 24)))
        #expect(!source.canBeHalved(into: try Frame.rgb(width: 32, height: 24)))
        // Sides that are even but not multiples of 4 would leave the chroma planes an odd side to halve.
        #expect(!(try Frame.yuv420(width: 66, height: 48)).canBeHalved(into: try Frame.yuv420(width: 33, height: 24)))
        #expect(!(try Frame.yuv420(width: 64, height: 50)).canBeHalved(into: try Frame.yuv420(width: 32, height: 25)))
        #expect(!(try Frame.rgb(width: 64, height: 48)).canBeHalved(into: try Frame.yuv420(width: 32, height: 24)))
    }

    /// Decoded pictures that need a conversion on the way to the output (full range to limited, a stated BT.601
    /// matrix) take the general scaler; a plain one is halved.
    @Test(arguments: [
        ("plain", ["-pix_fmt", "yuv420p"], true),
        ("bt709", ["-pix_fmt", "yuv420p", "-colorspace", "bt709"], true),
        ("full range (H.264: yuvj420p)", ["-pix_fmt", "yuvj420p", "-color_range", "pc"], false),
        // FFV1 (as HEVC, VP9 and AV1) decodes full range as plain yuv420p, the range stated apart.
        ("full range (FFV1: yuv420p)", ["-pix_fmt", "yuv420p", "-color_range", "pc", "-c:v", "ffv1"], false),
        ("bt601", ["-pix_fmt", "yuv420p", "-colorspace", "smpte170m"], false),
    ])
    func picturesNeedingConversionAreNotHalved(name: String, options: [String], halved: Bool) throws {
        let folder = try TemporaryFolder(prefix: "CompositionHalving")
        let take = folder.url.appendingPathComponent("take.mkv")
        let codec = options.contains("-c:v") ? [] : ["-c:v", "libx264", "-qp", "0"]
        try FFmpegTool.run(
            ["-f", "lavfi", "-i", "testsrc2=size=64x48:rate=30:duration=0.1"] + options + codec + [take.path])
        let frame = try firstFrame(of: take)
        #expect(frame.canBeHalved(into: try Frame.yuv420(width: 32, height: 24)) == halved, "\(name)")
    }

    func firstFrame(of url: URL) throws -> Frame {
        let format = try FormatContext(path: FileSystemPath(url.path))
        try format.findStreamInfo()
        let index = try format.bestVideoStreamIndex()
        let decoder = try Decoder(format: format, streamIndex: index, threadCount: 1)
        let packet = try Packet()
        let frame = try Frame()
        while true {
            switch try decoder.receive(into: frame) {
            case .done: return frame
            case .endOfFile: throw FFmpegError.endOfFile
            case .tryAgain:
                packet.clear()
                switch format.readPacket(into: packet) {
                case .packet: if packet.streamIndex == index { _ = try decoder.send(packet) }
                case .endOfFile: _ = try decoder.send(nil)
                case .failed(let error): throw error
                }
            }
        }
    }
}

import Foundation
import TestSupport
import Testing
import Thumbnails

/// Colour checks on testsrc2's bars: red on the left, then green, yellow, blue, magenta, cyan.
enum Bars {
    /// Whether `color` is clearly red (the left bar).
    static func isRed(_ color: (red: Double, green: Double, blue: Double)) -> Bool {
        color.red > 180 && color.green < 70 && color.blue < 70
    }

    /// Whether `color` is clearly cyan (the right bar).
    static func isCyan(_ color: (red: Double, green: Double, blue: Double)) -> Bool {
        color.red < 70 && color.green > 180 && color.blue > 180
    }
}

@Suite("Covers: sizes, aspect and rotation")
struct CoverGeneratorTests {
    let generator = CoverGenerator()

    @Test(
        "every codec gives a 320x180 cover at natural size and fits inside a box",
        arguments: ["h264.mp4", "hevc.mp4", "vp9.webm", "mpeg4.avi", "offset-timestamps.ts", "hevc-10bit.mp4"]
    )
    func sizes(_ name: String) throws {
        let natural = try generator.makeCover(for: Fixtures.url(name))
        #expect(natural.size == PixelSize(width: 320, height: 180))
        #expect(natural.bytesPerRow == 320 * 3)
        #expect(natural.pixels.count == 320 * 180 * 3)
        #expect(natural.warnings.isEmpty, "\(natural.warnings)")

        let boxed = try generator.makeCover(
            for: Fixtures.url(name), options: CoverOptions(maximumSize: PixelSize(width: 160, height: 160)))
        #expect(boxed.size == PixelSize(width: 160, height: 90))
        let tall = try generator.makeCover(
            for: Fixtures.url(name), options: CoverOptions(maximumSize: PixelSize(width: 0, height: 45)))
        #expect(tall.size == PixelSize(width: 80, height: 45))
        // Never enlarged.
        let large = try generator.makeCover(
            for: Fixtures.url(name), options: CoverOptions(maximumSize: PixelSize(width: 1000, height: 1000)))
        #expect(large.size == PixelSize(width: 320, height: 180))
        // The bars are where testsrc2 draws them: red on the left, cyan on the right.
        #expect(Bars.isRed(natural.meanColor(x: 5, y: 100, width: 40, height: 60)), "\(name)")
        #expect(Bars.isCyan(natural.meanColor(x: 275, y: 100, width: 40, height: 60)), "\(name)")
    }

    @Test(
        "tiny and odd boxes give covers of at least one pixel that encode as PNG and JPEG",
        arguments: [
            ("h264.mp4", PixelSize(width: 1, height: 1), PixelSize(width: 1, height: 1)),
            ("h264.mp4", PixelSize(width: 3, height: 5), PixelSize(width: 3, height: 2)),
            ("rotation-90.mp4", PixelSize(width: 3, height: 5), PixelSize(width: 3, height: 5)),
            ("rotation-90.mp4", PixelSize(width: 0, height: 100), PixelSize(width: 56, height: 100)),
            ("anamorphic.mp4", PixelSize(width: 1, height: 0), PixelSize(width: 1, height: 1)),
            ("hevc-10bit.mp4", PixelSize(width: 7, height: 7), PixelSize(width: 7, height: 4)),
        ])
    func tinyBoxes(_ name: String, box: PixelSize, expected: PixelSize) throws {
        let cover = try generator.makeCover(for: Fixtures.url(name), options: CoverOptions(maximumSize: box))
        #expect(cover.size == expected)
        #expect(cover.pixels.count == expected.width * expected.height * 3)
        #expect(try cover.encoded(as: .png).starts(with: [0x89, 0x50, 0x4E, 0x47]))
        #expect(try cover.encoded(as: .jpeg).starts(with: [0xFF, 0xD8, 0xFF]))
    }

    @Test("an anamorphic stream is stretched by its pixel aspect ratio")
    func anamorphic() throws {
        let natural = try generator.makeCover(for: Fixtures.url("anamorphic.mp4"))
        #expect(natural.size == PixelSize(width: 320, height: 180))
        let boxed = try generator.makeCover(
            for: Fixtures.url("anamorphic.mp4"), options: CoverOptions(maximumSize: PixelSize(width: 160, height: 160)))
        #expect(boxed.size == PixelSize(width: 160, height: 90))
    }

    /// For each rotation, where the red bar (testsrc2's left edge) must end up.
    @Test(
        "rotation is applied: the red left bar ends up on the side the display matrix turns it to",
        arguments: [
            ("rotation-minus90.mp4", "top"), ("rotation-180.mp4", "right"), ("rotation-90.mp4", "bottom"),
            ("h264.mp4", "left"),
        ]
    )
    func rotation(_ name: String, _ redSide: String) throws {
        let cover = try generator.makeCover(for: Fixtures.url(name))
        let quarter = redSide == "top" || redSide == "bottom"
        #expect(cover.size == (quarter ? PixelSize(width: 180, height: 320) : PixelSize(width: 320, height: 180)))
        let w = cover.width
        let h = cover.height
        // A 30-pixel band along the side where red must be, away from the timecode corner.
        let band =
            switch redSide {
            case "top": cover.meanColor(x: 20, y: 0, width: w - 40, height: 30)
            case "bottom": cover.meanColor(x: 20, y: h - 30, width: w - 40, height: 30)
            case "right": cover.meanColor(x: w - 30, y: 20, width: 30, height: h - 40)
            default: cover.meanColor(x: 0, y: 60, width: 30, height: h - 80)
            }
        #expect(Bars.isRed(band), "\(name): \(band)")

        // Turned off, the stored picture comes back as stored.
        let stored = try generator.makeCover(for: Fixtures.url(name), options: CoverOptions(appliesRotation: false))
        #expect(stored.size == PixelSize(width: 320, height: 180))
        #expect(Bars.isRed(stored.meanColor(x: 5, y: 100, width: 40, height: 60)))
    }

    @Test("a rotated cover fits its upright size into the box")
    func rotatedFit() throws {
        let cover = try generator.makeCover(
            for: Fixtures.url("rotation-minus90.mp4"),
            options: CoverOptions(maximumSize: PixelSize(width: 320, height: 160)))
        #expect(cover.size == PixelSize(width: 90, height: 160))
    }

    @Test("RGBA covers are opaque and match the RGB pixels")
    func rgba() throws {
        let rgb = try generator.makeCover(for: Fixtures.url("h264.mp4"))
        let rgba = try generator.makeCover(for: Fixtures.url("h264.mp4"), options: CoverOptions(pixelFormat: .rgba))
        #expect(rgba.bytesPerRow == 320 * 4)
        #expect(stride(from: 3, to: rgba.pixels.count, by: 4).allSatisfy { rgba.pixels[$0] == 255 })
        #expect(rgba.color(x: 20, y: 100) == rgb.color(x: 20, y: 100))
        #expect(rgba.color(x: 300, y: 170) == rgb.color(x: 300, y: 170))
    }
}

import Foundation
import Locking
import TestSupport
import Testing
import Thumbnails

#if canImport(Glibc)
    import Glibc
#endif

/// The differential suite: each real-world shape (Tools/Corpus/realworld-*.sh) against the ffmpeg CLI's frame at the
/// same time, size and orientation. See FFmpegReference for the reference's rules and Docs/Thumbnails.md ("Real-world
/// files") for the table these cases fill.
///
/// Skipped under ThreadSanitizer (Tools/sanitize.sh sets MULTICANVAS_SANITIZER): it exercises decoding, not
/// concurrency, and runs a hundred ffmpeg processes, which TSan makes slow.
@Suite(
    "Real-world files against the ffmpeg CLI",
    .enabled(if: ProcessInfo.processInfo.environment["MULTICANVAS_SANITIZER"] != "thread"),
    .enabled(if: FFmpegReference.toolsPresent, "needs the ffmpeg and ffprobe commands (Tools/setup.sh)")
)
struct RealWorldTests {
    /// PSNR a cover must reach against the ffmpeg CLI's picture of the same frame (both one bilinear swscale pass;
    /// covers that match are bit-identical in practice, a neighbouring frame of testsrc2 is below 25 dB).
    static let minimumPSNR = 35.0
    /// Against ffmpeg's yadif: a different deinterlacer may be used, so only the same frame is required (neighbouring
    /// frames of the interlaced clip, both through yadif, are 19.5 to 21.8 dB apart at 160x120).
    static let minimumDeinterlacedPSNR = 25.0

    @Test(arguments: RealWorldCase.all)
    func matchesTheFFmpegCLI(_ shape: RealWorldCase) throws {
        let original = try Corpus.url(shape.file)
        let probe = try FFmpegReference.probe(original)
        let folder = try TemporaryFolder()
        let input = shape.nonUTF8Name ? try Self.nonUTF8Copy(of: original, in: folder) : FileSystemPath(original)

        // The reference: which frame, its time, the cover's size.
        let requested: Double =
            switch shape.time {
            case .seconds(let seconds): seconds
            case .fraction(let fraction): fraction * probe.effectiveDuration
            }
        let index = Self.referenceFrame(in: probe, at: requested, mode: shape.mode)
        let referenceTime = probe.frames[index].time - probe.origin
        let sizes = probe.sizes(maximum: (shape.box.width, shape.box.height))
        var row = RealWorldRow(
            shape: shape,
            ffmpeg: "\(sizes.upright.0)x\(sizes.upright.1), \(Self.describe(frame: index, of: probe))")

        var options = CoverOptions(maximumSize: shape.box, time: shape.time)
        switch shape.mode {
        case .keyframe: break
        case .exact: options = options.exact()
        case .skipDark: options.skipsDarkFrames = true
        }
        let cover: CoverImage
        do {
            cover = try CoverGenerator().makeCover(forFileAt: input, options: options)
        } catch {
            // The table names files without this machine's folders.
            var reason = error.reason
            for prefix in [Corpus.folder.path, folder.url.path] {
                reason = reason.replacingOccurrences(of: prefix.hasSuffix("/") ? prefix : prefix + "/", with: "")
            }
            row.ours = "error: \(reason)"
            RealWorldRow.record(row)
            shape.expect(.cover, false, "no cover: \(error.reason)")
            return
        }
        shape.expect(.cover, true, "a cover")
        if shape.expectsWarning {
            shape.expect(.warning, !cover.warnings.isEmpty, "no warning that the input cannot seek")
        }

        // Which frame ours is: the listed frame nearest to its actual time.
        let oursIndex = probe.frames.indices.min {
            abs(probe.frames[$0].time - probe.origin - cover.actualTime)
                < abs(probe.frames[$1].time - probe.origin - cover.actualTime)
        }!
        let halfFrame = probe.frameDuration(at: index) / 2
        shape.expect(
            .time, abs(cover.actualTime - referenceTime) <= halfFrame + 1e-6,
            "actual time \(cover.actualTime) s, ffmpeg's frame \(index) is at \(referenceTime) s")
        shape.expect(
            .size, cover.width == sizes.upright.0 && cover.height == sizes.upright.1,
            "size \(cover.width)x\(cover.height), expected \(sizes.upright.0)x\(sizes.upright.1)")
        var ours = "\(cover.width)x\(cover.height), \(Self.describe(frame: oursIndex, of: probe))"
        defer {
            row.ours = ours
            RealWorldRow.record(row)
        }
        guard cover.width == sizes.upright.0, cover.height == sizes.upright.1 else {
            shape.expect(.picture, false, "picture not compared: the sizes differ")
            return
        }
        let rgb = Self.rgb(of: cover)

        switch shape.reference {
        case .frame:
            let reference = try FFmpegReference.picture(of: original, probe: probe, frame: index, scaled: sizes.scaled)
            let psnr = PictureComparison.psnr(rgb, reference.pixels)
            ours += ", \(Self.decibels(psnr))"
            var message = "PSNR \(Self.decibels(psnr)) against ffmpeg's frame \(index)"
            if psnr < Self.minimumPSNR {
                let match = Self.bestMatch(for: rgb, of: original, probe: probe, near: index, scaled: sizes.scaled)
                message += match
                ours += match
            }
            shape.expect(.picture, psnr >= Self.minimumPSNR, "\(message)")

        case .toneMapped(let sdrName):
            // The SDR master, same frame; ffmpeg's chains: linear light, BT.709 primaries, a tone curve, BT.709.
            let sdrURL = try Corpus.url(sdrName)
            let sdrProbe = try FFmpegReference.probe(sdrURL)
            let sdr = try FFmpegReference.picture(of: sdrURL, probe: sdrProbe, frame: index, scaled: sizes.scaled)
            var chains: [(curve: String, psnr: Double)] = []
            for curve in ["hable", "mobius"] {
                let chain = try FFmpegReference.picture(
                    of: original, probe: probe, frame: index, scaled: sizes.scaled,
                    filters: [
                        "zscale=t=linear:npl=100", "format=gbrpf32le", "zscale=p=bt709",
                        "tonemap=tonemap=\(curve):desat=0", "zscale=t=bt709:m=bt709:r=tv", "format=yuv420p",
                    ])
                chains.append((curve, PictureComparison.psnr(chain.pixels, sdr.pixels)))
            }
            let oursPSNR = PictureComparison.psnr(rgb, sdr.pixels)
            let saturation = PictureComparison.saturation(rgb) / PictureComparison.saturation(sdr.pixels)
            let floor = chains.map(\.psnr).min()! - 1
            ours += ", \(Self.decibels(oursPSNR)) against the SDR master, saturation x\(Self.fixed(saturation))"
            row.ffmpeg +=
                ", zscale+tonemap against the master: "
                + chains.map { "\($0.curve) \(Self.decibels($0.psnr))" }.joined(separator: ", ")
            shape.expect(
                .picture, oursPSNR >= floor && saturation >= 0.8,
                "PSNR against the SDR master \(Self.decibels(oursPSNR)) (ffmpeg's chains: "
                    + chains.map { "\($0.curve) \(Self.decibels($0.psnr))" }.joined(separator: ", ")
                    + "), saturation x\(Self.fixed(saturation)) of the master's")

        case .deinterlaced:
            let reference = try FFmpegReference.picture(
                of: original, probe: probe, frame: index, scaled: sizes.scaled, filters: ["yadif=mode=send_frame"])
            let woven = try FFmpegReference.picture(of: original, probe: probe, frame: index, scaled: sizes.scaled)
            let psnr = PictureComparison.psnr(rgb, reference.pixels)
            let combing = PictureComparison.combing(rgb, width: cover.width, height: cover.height)
            let referenceCombing = PictureComparison.combing(reference.pixels, width: cover.width, height: cover.height)
            let wovenCombing = PictureComparison.combing(woven.pixels, width: cover.width, height: cover.height)
            ours += ", \(Self.decibels(psnr)) against yadif, combing \(Self.fixed(combing))"
            row.ffmpeg += " (yadif), combing \(Self.fixed(referenceCombing)) (woven: \(Self.fixed(wovenCombing)))"
            // Combing is measured at the stored height only: scaling down mixes the fields' lines, and a cover made
            // from one field keeps more vertical detail than the mixed woven frame without combing.
            let combs = cover.height == probe.height && combing > (referenceCombing + wovenCombing) / 2
            shape.expect(
                .picture, psnr >= Self.minimumDeinterlacedPSNR && !combs,
                "PSNR \(Self.decibels(psnr)) against yadif's frame \(index); combing \(Self.fixed(combing)), "
                    + "yadif's \(Self.fixed(referenceCombing)), the woven frame's \(Self.fixed(wovenCombing))")
        }
    }

    // MARK: The reference frame

    /// The index in ffprobe's list of the frame the contract says the cover shows for `requested` seconds.
    static func referenceFrame(in probe: FFmpegReference.Probe, at requested: Double, mode: RealWorldCase.Mode) -> Int {
        let target = probe.origin + requested + 1e-6
        let frames = probe.frames
        // At or past the end: the last frame, in every mode.
        if requested >= probe.effectiveDuration - 1e-6 { return frames.count - 1 }
        switch mode {
        case .exact:
            return frames.indices.last { frames[$0].time <= target } ?? 0
        case .keyframe:
            // The first frame is what `ffmpeg -frames:v 1` shows: the first one listed, a keyframe or not (an edit
            // list starting between keyframes shows the frame at its start; the hidden keyframe is not listed).
            if requested <= 1e-6 { return 0 }
            return frames.indices.last { frames[$0].isKeyframe && frames[$0].time <= target }
                ?? frames.indices.first { frames[$0].isKeyframe } ?? 0
        case .skipDark(let pictureFrom):
            let start = max(target, probe.origin + pictureFrom - 1e-6)
            return frames.indices.first { frames[$0].isKeyframe && frames[$0].time >= start } ?? 0
        }
    }

    /// On a mismatch, which nearby frame, or which orientation of this frame, the cover is, for the report.
    static func bestMatch(
        for rgb: [UInt8], of url: URL, probe: FFmpegReference.Probe, near index: Int, scaled: (Int, Int)
    ) -> String {
        var best: (index: Int, psnr: Double)?
        for candidate in max(0, index - 2)...min(probe.frames.count - 1, index + 2) where candidate != index {
            guard let picture = try? FFmpegReference.picture(of: url, probe: probe, frame: candidate, scaled: scaled)
            else { continue }
            let psnr = PictureComparison.psnr(rgb, picture.pixels)
            if psnr > best?.psnr ?? -1 { best = (candidate, psnr) }
        }
        if let best, best.psnr >= minimumPSNR { return "; the picture is frame \(best.index) (\(decibels(best.psnr)))" }
        // The right frame in another orientation?
        let quarter = probe.isQuarterTurn
        let turns: [[String]] =
            quarter
            ? [["transpose=clock"], ["transpose=cclock"], ["transpose=clock_flip"], ["transpose=cclock_flip"]]
            : [[], ["hflip"], ["vflip"], ["hflip", "vflip"]]
        for turn in turns where turn != probe.uprightFilters {
            guard
                let picture = try? FFmpegReference.picture(
                    of: url, probe: probe, frame: index, scaled: scaled, turn: turn)
            else { continue }
            if PictureComparison.psnr(rgb, picture.pixels) >= minimumPSNR {
                return
                    "; the picture is this frame \(turn.isEmpty ? "unturned" : "with " + turn.joined(separator: "+"))"
            }
        }
        return "; no frame within 2 of it matches, in any orientation"
    }

    // MARK: Helpers

    /// The cover's pixels as packed RGB24 (RGBA covers drop their opaque alpha).
    static func rgb(of cover: CoverImage) -> [UInt8] {
        guard cover.pixelFormat == .rgba else { return cover.pixels }
        var rgb: [UInt8] = []
        rgb.reserveCapacity(cover.width * cover.height * 3)
        for index in stride(from: 0, to: cover.pixels.count, by: 4) {
            rgb += cover.pixels[index..<index + 3]
        }
        return rgb
    }

    /// "frame 25 (1.00 s, I, key)"
    static func describe(frame index: Int, of probe: FFmpegReference.Probe) -> String {
        let frame = probe.frames[index]
        return
            "frame \(index) (\(fixed(frame.time - probe.origin)) s, \(frame.pictureType)\(frame.isKeyframe ? ", key" : ""))"
    }

    static func decibels(_ value: Double) -> String { value.isInfinite ? "identical" : "\(fixed(value, digits: 1)) dB" }

    static func fixed(_ value: Double, digits: Int = 2) -> String {
        let scale = pow(10, Double(digits))
        let rounded = (value * scale).rounded() / scale
        var text = "\(rounded)"
        let decimals = text.split(separator: ".").last.map(\.count) ?? 0
        if !text.contains(".") { text += "." }
        return text + String(repeating: "0", count: max(0, digits - decimals))
    }

    /// A copy of `original` named with the Latin-1 bytes of "café" (not UTF-8), in `folder`: its
    /// path as bytes (a `URL` would replace the 0xE9 byte with U+FFFD).
    static func nonUTF8Copy(of original: URL, in folder: TemporaryFolder) throws -> FileSystemPath {
        let contents = try Data(contentsOf: original)
        let path = FileSystemPath(folder.url).appending(component: Array("caf".utf8) + [0xE9] + Array(".mp4".utf8))
        let descriptor = path.withCString { open($0, O_WRONLY | O_CREAT | O_EXCL, 0o644) }
        guard descriptor >= 0 else {
            throw FFmpegReference.ToolError(description: "cannot create the non-UTF-8 copy: errno \(errno)")
        }
        defer { close(descriptor) }
        let written = contents.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == contents.count else {
            throw FFmpegReference.ToolError(description: "cannot write the non-UTF-8 copy: errno \(errno)")
        }
        return path
    }
}

extension RealWorldCase {
    /// `#expect(condition)`, inside `withKnownIssue` when this case's known issue covers `aspect`.
    func expect(
        _ aspect: Aspect, _ condition: Bool, _ message: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        if let knownIssue, knownIssue.aspects.contains(aspect) {
            withKnownIssue(Comment(rawValue: knownIssue.finding)) {
                #expect(condition, "\(message)", sourceLocation: sourceLocation)
            }
        } else {
            #expect(condition, "\(message)", sourceLocation: sourceLocation)
        }
    }
}

/// One row of Docs/Thumbnails.md's "Real-world files" table. When MULTICANVAS_REALWORLD_TABLE names a file, every
/// case appends its row there, prefixed by its position in `RealWorldCase.all` (Tools/realworld-table.sh sorts them
/// into the table).
struct RealWorldRow {
    var shape: RealWorldCase
    var ffmpeg: String
    var ours = ""

    private static let lock = LockedValue(())

    static func record(_ row: RealWorldRow) {
        guard let path = ProcessInfo.processInfo.environment["MULTICANVAS_REALWORLD_TABLE"] else { return }
        let position = RealWorldCase.all.firstIndex { $0.testDescription == row.shape.testDescription } ?? 0
        let status = row.shape.knownIssue.map {
            "pending: \($0.finding.replacingOccurrences(of: "finding: ", with: ""))"
        }
        let line =
            "\(position)\t| \(row.shape.testDescription.replacingOccurrences(of: "|", with: "/")) | \(row.ours) | "
            + "\(row.ffmpeg) | \(status ?? "same") |\n"
        lock.withLock { _ in
            if !FileManager.default.fileExists(atPath: path) {
                _ = FileManager.default.createFile(atPath: path, contents: nil)
            }
            if let handle = FileHandle(forWritingAtPath: path) {
                handle.seekToEndOfFile()
                handle.write(Data(line.utf8))
                handle.closeFile()
            }
        }
    }
}

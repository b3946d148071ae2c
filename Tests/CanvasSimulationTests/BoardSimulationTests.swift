import CanvasHost
import CanvasKit
import CanvasSimulation
import Dispatch
import Foundation
import Locking
import Testing

/// A provider that completes on another thread, later: a 4x2 image, or a failure for files named `broken*`.
private final class BackgroundCoverProvider: CompletionCoverProvider {
    struct Broken: Error, CustomStringConvertible {
        let path: String
        var description: String { "\(path): not a media file" }
    }

    private final class Request: CancellableCoverRequest {
        func cancel() {}
    }

    let requested = LockedValue<[URL]>([])

    func requestCover(
        for videoURL: URL,
        maximumSize: PixelSize,
        completion: @escaping @Sendable (Result<CoverImage, any Error>) -> Void
    ) -> any CancellableCoverRequest {
        requested.withLock { $0.append(videoURL) }
        DispatchQueue.global().async {
            if videoURL.lastPathComponent.hasPrefix("broken") {
                completion(.failure(Broken(path: videoURL.path)))
            } else {
                // A 4x2 black picture: consistent sizes by construction.
                completion(
                    .success(
                        try! CoverImage(
                            width: 4, height: 2, bytesPerRow: 16, pixelFormat: .rgba,
                            pixels: [UInt8](repeating: 0, count: 32))))
            }
        }
        return Request()
    }
}

@MainActor
@Suite("BoardSimulation: the board on the headless screen, as canvas-sim runs it")
struct BoardSimulationTests {
    private func run(_ source: String, cells: Int = 4, visible: Int = 9, provider: (any CoverProvider)? = nil)
        throws -> (BoardSimulation, [SimulationStep])
    {
        let base = URL(fileURLWithPath: "/clips/", isDirectory: true)
        let simulation = BoardSimulation(canvasCount: cells, visibleCount: visible, coverProvider: provider)
        var steps: [SimulationStep] = []
        simulation.run(try CanvasScript(parsing: source, baseDirectory: base)) { steps.append($0) }
        return (simulation, steps)
    }

    @Test("each step reports the event, acceptance, effects and every canvas as its cell shows it")
    func steps() throws {
        let (simulation, steps) = try run("tap 0; record; tap 1; stop; tap 1")
        #expect(steps.map(\.event) == ["tap 0", "record", "tap 1", "stop take-1.mov", "tap 1"])
        #expect(steps.map(\.isAccepted) == [true, true, false, true, true])
        #expect(steps[2].reason == "locked while recording: canvas 0 is recording")
        #expect(steps[4].effects == [.movePreview(from: 0, to: 1)])
        let last = try #require(steps.last)
        #expect(last.canvases.map(\.shows.name) == ["cover", "livePreview", "addButton", "addButton"])
        #expect(last.canvases.map(\.isVisible) == [true, true, true, true])
        #expect(last.canvases[0].takeIsSimulated)
        let summary = simulation.summary
        #expect(summary.accepted == 4 && summary.rejected == 1)
        #expect(summary.reloads == 0 && summary.staleCells == 0 && summary.registrationViolations == 0)
        #expect(summary.cellRegistrations == 4 * CanvasCellViewModel.modelKeyPaths.count)
    }

    @Test("scrolling reuses cells; an offscreen canvas reports its model, and its cell shows it when scrolled in")
    func scrolling() throws {
        let (simulation, steps) = try run("tap 7; scroll 7; scroll 9; scroll 0", cells: 8, visible: 3)
        #expect(steps[0].canvases[7].isVisible == false)
        #expect(steps[0].canvases[7].shows.picture == .livePreview)
        #expect(steps[1].canvases[7].isVisible && steps[1].canvases[7].shows.picture == .livePreview)
        #expect(steps[1].visibleRange == 5..<8)
        #expect(steps[2].isAccepted == false)
        #expect(steps[3].cellsMade == 3 && steps[3].cellsReused == 6)
        #expect(simulation.summary.staleCells == 0)
    }

    @Test("disappear ends every cell observation; appear shows what changed meanwhile")
    func disappearAppear() throws {
        let (simulation, steps) = try run("disappear; tap 2; disappear; appear; appear")
        #expect(steps[0].isOnScreen == false)
        #expect(simulation.screen.binder.log.liveCount == 4 * CanvasCellViewModel.modelKeyPaths.count)
        #expect(steps[1].canvases.allSatisfy { !$0.isVisible })
        #expect(steps[2].isAccepted == false && steps[4].isAccepted == false)
        #expect(steps[3].canvases[2].isVisible && steps[3].canvases[2].shows.picture == .livePreview)
        #expect(simulation.summary.staleCells == 0)
    }

    @Test("covers: prepared when a take finishes, drawn by the cell, failures reported once, simulated takes not asked")
    func covers() throws {
        let provider = BackgroundCoverProvider()
        let (_, steps) = try run(
            "tap 0; record; stop a.mov; tap 1; record; stop broken.mov; tap 2; record; stop; tap 2", provider: provider)
        #expect(steps[2].canvases[0].cover?.width == 4, "prepared on coverWanted, before any cell shows it")
        #expect(
            steps[3].canvases[0].shows.picture
                == .cover(URL(fileURLWithPath: "a.mov", relativeTo: URL(fileURLWithPath: "/clips/"))))
        #expect(steps[3].canvases[0].cover?.height == 2)
        #expect(steps[5].coverFailures.map(\.reason) == ["broken.mov: not a media file"], "the path as written")
        #expect(steps[5].coverFailures.map(\.index) == [1])
        let last = try #require(steps.last)
        #expect(last.coverFailures.isEmpty, "reported once, although the cell asked again")
        #expect(last.canvases[1].coverError == "broken.mov: not a media file")
        #expect(last.canvases[2].takeIsSimulated && last.canvases[2].cover == nil)
        #expect(provider.requested.withLock { $0 }.allSatisfy { $0.lastPathComponent != "take-1.mov" })
    }

    @Test("a host that makes takes up as it goes gets fresh simulated names")
    func simulatedTakes() {
        let simulation = BoardSimulation(canvasCount: 2)
        #expect(simulation.nextSimulatedTake().lastPathComponent == "take-1.mov")
        _ = simulation.perform(.event(.tap(0)))
        _ = simulation.perform(.event(.record))
        _ = simulation.perform(.event(.stop(URL(fileURLWithPath: "take-2.mov"))), takeIsSynthetic: true)
        #expect(simulation.nextSimulatedTake().lastPathComponent == "take-3.mov", "take-2.mov is in use")
    }
}

@Suite("BoardPicture: the board as a grid of tiles")
struct BoardPictureTests {
    private func canvas(
        _ index: Int, _ picture: CanvasDisplay.Picture, selected: Bool = false, cover: CoverImage? = nil
    ) -> SimulationCanvas {
        let shows = CanvasDisplay(picture: picture)
        return SimulationCanvas(
            index: index, status: selected ? .inPreview : .noPreview, isSelected: selected, videoURL: shows.videoURL,
            shows: shows, isVisible: true, takeIsSimulated: false, cover: cover, coverError: nil)
    }

    @Test("tiles in the smallest square grid, the selected one highlighted, the cover scaled into its tile")
    func grid() throws {
        let url = URL(fileURLWithPath: "/a.mov")
        let red = (0..<(8 * 4)).map { $0 % 4 == 0 || $0 % 4 == 3 ? UInt8(255) : 0 }
        let cover = try CoverImage(width: 4, height: 2, bytesPerRow: 16, pixelFormat: .rgba, pixels: red)
        let picture = BoardPicture(canvases: [
            canvas(0, .cover(url), cover: cover), canvas(1, .livePreview, selected: true), canvas(2, .addButton),
        ])
        let step = BoardPicture.tileWidth + BoardPicture.gap
        #expect(picture.width == BoardPicture.gap + 2 * step)
        #expect(picture.height == BoardPicture.gap + 2 * (BoardPicture.tileHeight + BoardPicture.gap))
        #expect(picture.pixels.count == picture.width * picture.height * 3)
        let g = BoardPicture.gap
        #expect(picture.color(x: g + 80, y: g + 60) == RGBColor(red: 255, green: 0, blue: 0), "the cover, scaled up")
        #expect(
            picture.color(x: g + 80, y: g + 2) == RGBColor(red: 0, green: 0, blue: 0), "letterboxed: 4x2 fills 160x80")
        #expect(picture.color(x: g + step - 2, y: g + 60) == BoardPicture.highlight, "the selected tile's border")
        #expect(picture.color(x: g - 2, y: g + 60) == BoardPicture.background, "no border on the cover")
        #expect(picture.color(x: g + 4, y: g + step - g + g + 4) == BoardPicture.addTile)
        #expect(picture.color(x: g + 80, y: g + BoardPicture.tileHeight + g + 60) != BoardPicture.addTile, "the plus")
        #expect(BoardPicture.size(canvasCount: 3) == (picture.width, picture.height))
        // The same cover as RGB with padded rows draws the same picture.
        let rgb = try CoverImage(
            width: 4, height: 2, bytesPerRow: 14, pixelFormat: .rgb,
            pixels: (0..<2).flatMap { _ in [255, 0, 0, 255, 0, 0, 255, 0, 0, 255, 0, 0, 9, 9] })
        let samePicture = BoardPicture(canvases: [
            canvas(0, .cover(url), cover: rgb), canvas(1, .livePreview, selected: true), canvas(2, .addButton),
        ])
        #expect(samePicture.pixels == picture.pixels)
    }

    @Test("size(canvasCount:) is the square grid the picture draws, and the limit keeps large boards out")
    func sizes() {
        let step = (
            width: BoardPicture.tileWidth + BoardPicture.gap, height: BoardPicture.tileHeight + BoardPicture.gap
        )
        #expect(BoardPicture.size(canvasCount: 1) == (BoardPicture.gap + step.width, BoardPicture.gap + step.height))
        #expect(
            BoardPicture.size(canvasCount: 10) == (
                BoardPicture.gap + 4 * step.width, BoardPicture.gap + 3 * step.height
            ))
        #expect(BoardPicture.size(canvasCount: 10, columns: 2).width == BoardPicture.gap + 2 * step.width)
        let thousand = BoardPicture.size(canvasCount: 1_000)
        #expect(thousand.width * thousand.height <= BoardPicture.maximumPixelCount)
        let huge = BoardPicture.size(canvasCount: 100_000)
        #expect(huge.width * huge.height > BoardPicture.maximumPixelCount)
    }
}

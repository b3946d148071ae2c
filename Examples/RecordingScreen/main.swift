// A recording screen wired as an app wires it, driven through a short session: the preview moves with taps, a take
// is recorded and shows its cover (pulled from the file by FFmpeg), the screen is locked while recording, a canvas is
// added, the screen disappears and comes back. After each step it prints what each visible cell draws, and checks it
// against what the board says that canvas shows (the preview layer included): the example fails (exit 1) if a cell
// ever shows something else, or if the collection view was ever reloaded. Exit 2: no footage argument; exit 3: the footage is not a readable file.
import CanvasCovers
import CanvasHost
import CanvasKit
import Foundation
import Thumbnails

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count == 1, let footagePath = arguments.first else {
    FileHandle.standardError.write(Data("usage: recording-screen-example VIDEO (the footage each take copies)\n".utf8))
    exit(2)
}
var isFolder: ObjCBool = false
guard FileManager.default.fileExists(atPath: footagePath, isDirectory: &isFolder), !isFolder.boolValue,
    FileManager.default.isReadableFile(atPath: footagePath)
else {
    FileHandle.standardError.write(Data("recording-screen-example: no readable video file at \(footagePath)\n".utf8))
    exit(3)
}
let takes = FileManager.default.temporaryDirectory.appendingPathComponent("recording-screen-\(getpid())")
try FileManager.default.createDirectory(at: takes, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: takes) }

let camera = CameraEffects(takesFolder: takes, footage: URL(fileURLWithPath: footagePath))
let screen = RecordingScreenController(canvasCount: 4, visibleCanvases: 3, covers: CoverService(), camera: camera)
var mismatches = 0
var effectsShown = 0

/// Waits (bounded) until every visible cell that should show a cover has its image: covers arrive on the main queue.
@MainActor
func waitForCovers() {
    let deadline = Date().addingTimeInterval(10)
    while Date() < deadline {
        let missing = screen.adapter.visibleCells.contains { index, cell in
            if case .cover = screen.board.display(at: index).picture { return !cell.hasCoverImage }
            return false
        }
        if !missing { return }
        RunLoop.main.run(until: Date().addingTimeInterval(0.01))
    }
}

@MainActor
func show(_ step: String, rejected: CanvasRejection? = nil) {
    waitForCovers()
    print(step + (rejected.map { " -> rejected: \($0)" } ?? ""))
    for (index, cell) in screen.adapter.visibleCells {
        let expected = screen.board.display(at: index)
        let shown = cell.drawn + (cell.hasCoverImage ? " + cover image" : "") + (cell.hostsPreview ? " + preview" : "")
        print("  canvas \(index): \(shown)")
        // The preview layer is in the cell of the previewing canvas, and in no other.
        if !cell.drawn.hasPrefix(expected.name) || cell.hostsPreview != expected.isHighlighted { mismatches += 1 }
    }
    let newEffects = camera.log.dropFirst(effectsShown)
    if !newEffects.isEmpty {
        let named = newEffects.map { $0.replacingOccurrences(of: takes.path + "/", with: "takes/") }
        print("  camera: " + named.joined(separator: "; "))
    }
    effectsShown = camera.log.count
}

screen.viewDidAppear()
show("appear")
show("tap 0", rejected: screen.didTapCell(at: 0))
show("tap 2", rejected: screen.didTapCell(at: 2))
show("record", rejected: screen.recordTapped())
show("tap 1 while recording", rejected: screen.didTapCell(at: 1))
screen.stopTapped()
show("stop")
show("tap 1", rejected: screen.didTapCell(at: 1))
show("record", rejected: screen.recordTapped())
screen.stopTapped()
show("stop")
show("tap 1 (preview off: both takes show covers)", rejected: screen.didTapCell(at: 1))
show("tap 0", rejected: screen.didTapCell(at: 0))
show("record", rejected: screen.recordTapped())
show("cancel (the take is thrown away)", rejected: screen.cancelTapped())
screen.addCanvasTapped()
screen.scrollToCanvas(at: 4)
show("add a canvas, scroll to it")
screen.viewWillDisappear()
screen.viewDidAppear()
show("disappear, appear")

let reloads = screen.collectionView.statistics.reloads
print("reloads: \(reloads), cells that showed something else than their canvas: \(mismatches)")
exit(reloads == 0 && mismatches == 0 ? 0 : 1)

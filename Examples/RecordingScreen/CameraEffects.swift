import CanvasKit
import Foundation

/// Carries out the board's effects the way an AVFoundation app does (Docs/Apps.md maps each effect to
/// `AVCaptureVideoPreviewLayer` and `AVCaptureMovieFileOutput`). Here the "camera" writes a take by copying a real
/// video into the takes folder, so every cover is pulled from a real file, and the log says what the app would do.
final class CameraEffects: CanvasEffectPerformer {
    /// The folder the recorder writes takes into (an app uses its documents or caches folder).
    let takesFolder: URL
    /// The video the simulated recorder writes for each take.
    private let footage: URL
    /// The canvas the preview layer is attached to.
    private(set) var previewCanvas: Int?
    /// The file being recorded, while recording.
    private var recording: URL?
    private var takeNumber = 0
    /// What was done, one line per effect.
    private(set) var log: [String] = []

    init(takesFolder: URL, footage: URL) {
        self.takesFolder = takesFolder
        self.footage = footage
    }

    func perform(_ effect: CanvasEffect) {
        switch effect {
        case .attachPreview(let index):
            previewCanvas = index  // previewLayer added to the cell's content view; session.startRunning()
        case .movePreview(_, let index):
            previewCanvas = index  // the same previewLayer moved to the other cell: no new session, no reload
        case .detachPreview:
            previewCanvas = nil  // previewLayer removed; the session may stop
        case .startRecording(let index, _):
            takeNumber += 1
            let file = takesFolder.appendingPathComponent("take-\(takeNumber)-canvas-\(index).mp4")
            recording = file  // movieOutput.startRecording(to: file, recordingDelegate: self)
        case .takeDiscarded:
            if let recording { try? FileManager.default.removeItem(at: recording) }
            recording = nil
        case .takeReplaced(_, let oldURL), .takeRemoved(_, let oldURL):
            try? FileManager.default.removeItem(at: oldURL)  // the app's choice: it could keep it in a library
        case .takeFinished, .coverWanted, .canvasesInserted, .canvasesRemoved:
            break  // the cell's view-model asks for the cover; the wiring applies list changes
        }
        log.append(effect.description)
    }

    /// Stops the recorder and returns the finished file (the delegate's `didFinishRecordingTo`), or nil when nothing
    /// records.
    /// - Throws: the file system's error when the take could not be written (the delegate's `error`); the take stays
    ///   the current recording, so the board's `cancel` that follows discards what was written of it.
    func finishRecording() throws -> URL? {
        guard let file = recording else { return nil }
        do {
            try FileManager.default.copyItem(at: footage, to: file)  // movieOutput.stopRecording()
        } catch {
            log.append("recording failed: \(error.localizedDescription)")
            throw error
        }
        recording = nil
        return file
    }
}

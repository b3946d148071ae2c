import CanvasKit
import Foundation

/// Carries out the board's effects as an AVFoundation app does (Docs/Apps.md maps each effect to
/// `AVCaptureSession` and `AVCaptureMovieFileOutput`). Where the preview layer goes is not an effect: the adapter puts
/// it into the cell of the previewing canvas. The "recorder" writes a take by copying a real video, so every cover is
/// pulled from a real file, and the log says what the app would do.
@MainActor
final class CameraEffects: @MainActor CanvasEffectPerformer {
    /// The board the recorder's answers are sent to (set by the controller).
    weak var board: CanvasBoard?
    private let takesFolder: URL
    private let footage: URL
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
        case .startRecording(let index, _, _):
            takeNumber += 1
            recording = takesFolder.appendingPathComponent("take-\(takeNumber)-canvas-\(index).mp4")
        case .takeDiscarded:
            recording = nil  // movieOutput.stopRecording(); the delegate deletes the file
        case .takeReplaced, .takeRemoved, .segmentRemoved:
            for url in effect.givenUpFiles { try? FileManager.default.removeItem(at: url) }  // this app keeps no old takes
        case .takeInterrupted(_, let url?): try? FileManager.default.removeItem(at: url)
        default:
            break  // preview effects: session.startRunning() once; covers and list changes: the adapter's
        }
        log.append(effect.description)
    }

    /// `movieOutput.stopRecording()`; its delegate's `fileOutput(_:didFinishRecordingTo:from:error:)` sends the
    /// finished take to the board, or cancels the recording when the file could not be written.
    func stopRecording() {
        guard let take = recording, let board else { return }
        recording = nil
        do {
            try FileManager.default.copyItem(at: footage, to: take)
            board.send(.stop(take), performingEffectsWith: self)
        } catch {
            log.append("recording failed: \(error.localizedDescription)")
            board.send(.cancel, performingEffectsWith: self)
        }
    }
}
